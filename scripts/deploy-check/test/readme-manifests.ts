import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { K8sObject } from './render-kustomize';

/** The objects k8s/README.md tells operators to apply: its ```yaml blocks that hold a whole object (a kind and a name). */
export function readmeManifests(readmePath: string): K8sObject[] {
  const blocks = [...readFileSync(readmePath, 'utf8').matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  return blocks
    .flatMap((block) => parseAllDocuments(block).map((document) => document.toJS() as unknown))
    .filter((object): object is K8sObject => typeof (object as K8sObject | null)?.kind === 'string' && typeof (object as K8sObject).metadata?.name === 'string');
}
