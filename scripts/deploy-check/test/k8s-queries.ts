import type { K8sObject } from './render-kustomize';

/* Small typed views over rendered manifests, so the spec reads as rules. */

export interface Port {
  name?: string;
  containerPort: number;
  protocol?: string;
}
export interface Probe {
  httpGet?: { path: string; port: number | string };
}
export interface Container {
  name: string;
  image: string;
  args?: string[];
  ports?: Port[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command?: string[] } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; runAsNonRoot?: boolean; capabilities?: { drop?: string[] } };
}
export interface PodSpec {
  containers: Container[];
  topologySpreadConstraints?: { topologyKey: string; labelSelector: LabelSelector }[];
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
}
export interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: PodSpec;
}
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}
export interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
export interface PolicyRule {
  ports?: { port?: number | string; protocol?: string }[];
  to?: PolicyPeer[];
  from?: PolicyPeer[];
}
export interface NetworkPolicySpec {
  podSelector: LabelSelector;
  policyTypes: string[];
  ingress?: PolicyRule[];
  egress?: PolicyRule[];
}

export function ofKind(objects: K8sObject[], kind: string): K8sObject[] {
  return objects.filter((object) => object.kind === kind);
}

export function named(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} named ${name}`);
  return found;
}

export function spec<T>(object: K8sObject): T {
  return object.spec as T;
}

/** The pod template of a Deployment or Job. */
export function podTemplate(object: K8sObject): PodTemplate {
  return spec<{ template: PodTemplate }>(object).template;
}

/** Kubernetes label-selector semantics: every matchLabels pair and every In/NotIn/Exists expression holds. */
export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  const pairs = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const expressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    if (operator === 'In') return values.includes(labels[key]);
    if (operator === 'NotIn') return !values.includes(labels[key]);
    if (operator === 'Exists') return key in labels;
    return !(key in labels);
  });
  return pairs && expressions;
}

/** A port as a number: a named port resolves against the pod's container ports. */
export function portNumber(port: number | string | undefined, containerPorts: Port[]): number | undefined {
  if (typeof port === 'number' || port === undefined) return port;
  return containerPorts.find((candidate) => candidate.name === port)?.containerPort;
}

/** The configuration data of the ConfigMap a container reads through envFrom. */
export function configFor(objects: K8sObject[], container: Container): Record<string, string> {
  const refs = (container.envFrom ?? []).flatMap((source) => (source.configMapRef ? [source.configMapRef.name] : []));
  return Object.assign({}, ...refs.map((name) => named(objects, 'ConfigMap', name).data as Record<string, string>));
}
