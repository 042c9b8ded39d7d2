import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';

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

/**
 * Renders an overlay as it renders with these components added to its
 * `components:`, the one line k8s/README.md tells operators to add: a copy of
 * the overlay in a temporary directory, its paths outside the overlay pointed
 * back at the originals (kustomize takes only relative paths).
 */
export function renderOverlayWithComponents(overlay: string, components: string[]): K8sObject[] {
  const copy = mkdtempSync(join(tmpdir(), 'kustomize-overlay-'));
  try {
    cpSync(overlay, copy, { recursive: true });
    const file = join(copy, 'kustomization.yaml');
    const kustomization = parse(readFileSync(file, 'utf8')) as { resources?: string[]; components?: string[] };
    const fromCopy = (entry: string) => (entry.startsWith('..') ? relative(copy, resolve(overlay, entry)) : entry);
    kustomization.resources = kustomization.resources?.map(fromCopy);
    kustomization.components = [...(kustomization.components ?? []).map(fromCopy), ...components.map((component) => relative(copy, component))];
    writeFileSync(file, stringify(kustomization));
    return renderKustomization(copy);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
