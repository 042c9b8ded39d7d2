import { execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

function run(command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 * 1024 * 1024 });
}

/**
 * Renders a kustomization with the real kustomize: the standalone binary when
 * installed, else the one built into kubectl (>= 1.21 carries kustomize v4+;
 * Debian's kubernetes-client 1.20 is too old for `labels`).
 */
export function renderKustomization(directory: string): K8sObject[] {
  let output: string;
  try {
    output = run('kustomize', ['build', directory]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    output = run('kubectl', ['kustomize', directory]);
  }
  return parseAllDocuments(output)
    .map((document) => {
      if (document.errors.length) throw new Error(`${directory}: ${document.errors[0].message}`);
      return document.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}
