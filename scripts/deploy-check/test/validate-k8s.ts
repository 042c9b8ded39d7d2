import type { K8sObject } from './render-kustomize';

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;

/**
 * kustomize wraps a long Secret value's base64 at 70 columns; the API server
 * accepts that (Go's base64 decoder skips newlines) but the schema's "byte"
 * format does not, so the lines are joined before validation.
 */
function withUnwrappedSecretData(object: K8sObject): K8sObject {
  if (object.kind !== 'Secret' || !object.data) return object;
  const data = Object.fromEntries(Object.entries(object.data as Record<string, string>).map(([key, value]) => [key, value.replace(/\s+/g, '')]));
  return { ...object, data };
}

/**
 * Validates one object against the Kubernetes OpenAPI schema of its kind, as
 * compiled by the kubernetes-models package (Kubernetes 1.27 API). An
 * apiVersion/kind without a schema is an error, like kubeconform's -strict.
 */
export function schemaProblems(object: K8sObject): string[] {
  const where = `${object.kind ?? '?'}/${object.metadata?.name ?? '?'}`;
  if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') return [`${where}: apiVersion and kind are required`];
  let models: Record<string, ModelClass | undefined>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    models = require(`kubernetes-models/${object.apiVersion}`);
  } catch {
    return [`${where}: no schema for apiVersion ${object.apiVersion}`];
  }
  const Kind = models[object.kind];
  if (!Kind) return [`${where}: no schema for ${object.apiVersion} ${object.kind}`];
  try {
    new Kind(withUnwrappedSecretData(object)).validate();
    return [];
  } catch (error) {
    return [`${where}: ${(error as Error).message}`];
  }
}
