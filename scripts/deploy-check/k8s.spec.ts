import { join } from 'node:path';
import { AppName, ENV_SCHEMA } from '@mailroom/config';
import { APP_POOL_SIZE, MIGRATION_LOCK_WAIT } from '@mailroom/database';
import { configProblems, containerEnvironment, isKnownVariable, variableProblem } from './test/known-env';
import {
  configFor,
  Container,
  LabelSelector,
  named,
  NetworkPolicySpec,
  ofKind,
  podTemplate,
  portNumber,
  selects,
  spec,
} from './test/k8s-queries';
import { readmeManifests } from './test/readme-manifests';
import { K8sObject, renderKustomization, renderOverlayWithComponents } from './test/render-kustomize';
import { schemaProblems } from './test/validate-k8s';

const K8S = join(__dirname, '..', '..', 'k8s');
const APPS = ['gateway', 'keys', 'domains', 'emails', 'webhook-dispatcher'];
const AUTOSCALED = ['gateway', 'emails', 'webhook-dispatcher'];
const OVERLAYS = { dev: 'mailroom-dev', production: 'mailroom' } as const;
const EMAILS_SPLIT = 'components/emails-split';
const WITH_SPLIT = ` with ${EMAILS_SPLIT}`;
/** Every overlay as shipped, and as it renders with the emails split added to its components. */
const RENDERED_OVERLAYS = Object.keys(OVERLAYS).flatMap((overlay) => [`overlays/${overlay}`, `overlays/${overlay}${WITH_SPLIT}`]);

// Rendered once: kustomize takes about a second per overlay.
const rendered = new Map<string, K8sObject[]>();
function render(path: string): K8sObject[] {
  if (!rendered.has(path)) {
    const split = path.endsWith(WITH_SPLIT);
    const directory = join(K8S, split ? path.slice(0, -WITH_SPLIT.length) : path);
    rendered.set(path, split ? renderOverlayWithComponents(directory, [join(K8S, EMAILS_SPLIT)]) : renderKustomization(directory));
  }
  return rendered.get(path)!;
}

/** Mailroom's Deployments, each with the app its command runs: one per app, and the emails worker under the emails split. */
function appDeployments(objects: K8sObject[]): { name: string; app: string }[] {
  return ofKind(objects, 'Deployment')
    .filter((deployment) => deployment.metadata.labels?.['app.kubernetes.io/name'] === 'mailroom')
    .map((deployment) => ({ name: deployment.metadata.name, app: podTemplate(deployment).spec.containers[0].args?.[0] ?? '' }));
}

function appContainer(objects: K8sObject[], app: string): Container {
  return podTemplate(named(objects, 'Deployment', `mailroom-${app}`)).spec.containers[0];
}

/** Ports (as numbers) a pod with these labels may reach, or be reached on, under every policy that selects it. */
function allowedPorts(objects: K8sObject[], labels: Record<string, string>, direction: 'ingress' | 'egress', container?: Container): number[] {
  const ports = ofKind(objects, 'NetworkPolicy')
    .map((policy) => spec<NetworkPolicySpec>(policy))
    .filter((policy) => selects(policy.podSelector, labels))
    .flatMap((policy) => policy[direction] ?? [])
    .flatMap((rule) => (rule.ports ?? []).map((port) => portNumber(port.port, container?.ports ?? [])));
  return [...new Set(ports)].filter((port): port is number => port !== undefined).sort((a, b) => a - b);
}

describe.each(['base', ...RENDERED_OVERLAYS])('k8s/%s', (path) => {
  it('renders with kustomize and every object matches its Kubernetes schema', () => {
    const objects = render(path);
    expect(objects.length).toBeGreaterThan(20);
    expect(objects.flatMap(schemaProblems)).toEqual([]);
  });

  it('runs one Deployment per app, picking the app by its command, with probes, resources and a locked-down securityContext', () => {
    const objects = render(path);
    expect(APPS.map((app) => appContainer(objects, app).args)).toEqual(APPS.map((app) => [app]));
    for (const { name } of appDeployments(objects)) {
      const pod = podTemplate(named(objects, 'Deployment', name));
      const container = pod.spec.containers[0];
      const config = configFor(objects, container);
      expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true });
      expect(pod.spec.securityContext?.runAsUser).toBeGreaterThan(0);
      expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
      expect(Object.keys(container.resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
      expect(container.resources?.limits?.memory).toBeDefined();
      // Both probes hit the operations port the app opens at HEALTH_PORT.
      expect(container.readinessProbe?.httpGet?.path).toBe('/health/ready');
      expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
      for (const probe of [container.readinessProbe, container.livenessProbe]) {
        expect(portNumber(probe?.httpGet?.port, container.ports ?? [])).toBe(Number(config.HEALTH_PORT));
      }
    }
  });

  it('exposes the gateway over HTTP and the DKIM DNS server over UDP and TCP', () => {
    const objects = render(path);
    const gatewayPod = podTemplate(named(objects, 'Deployment', 'mailroom-gateway'));
    const gatewayService = spec<{ selector: Record<string, string>; ports: { port: number; targetPort: string; protocol: string }[] }>(
      named(objects, 'Service', 'mailroom-gateway'),
    );
    expect(selects({ matchLabels: gatewayService.selector }, gatewayPod.metadata.labels)).toBe(true);
    const gatewayContainer = gatewayPod.spec.containers[0];
    expect(portNumber(gatewayService.ports[0].targetPort, gatewayContainer.ports ?? [])).toBe(Number(configFor(objects, gatewayContainer).PORT));

    const domainsPod = podTemplate(named(objects, 'Deployment', 'mailroom-domains'));
    const dns = spec<{ selector: Record<string, string>; ports: { port: number; targetPort: string; protocol: string }[] }>(
      named(objects, 'Service', 'mailroom-dkim-dns'),
    );
    expect(selects({ matchLabels: dns.selector }, domainsPod.metadata.labels)).toBe(true);
    expect(dns.ports.map(({ port, protocol }) => `${port}/${protocol}`).sort()).toEqual(['53/TCP', '53/UDP']);
    const bind = configFor(objects, domainsPod.spec.containers[0]).DKIM_DNS_BIND;
    for (const port of dns.ports) {
      expect(`0.0.0.0:${portNumber(port.targetPort, domainsPod.spec.containers[0].ports ?? [])}`).toBe(bind);
    }
  });

  it('autoscales the gateway, emails and webhook-dispatcher, and budgets disruptions for every app', () => {
    const objects = render(path);
    const scaled = ofKind(objects, 'HorizontalPodAutoscaler').map((hpa) => spec<{ scaleTargetRef: { kind: string; name: string } }>(hpa).scaleTargetRef);
    const deployments = appDeployments(objects);
    expect(scaled.map(({ name }) => name).sort()).toEqual(deployments.filter(({ app }) => AUTOSCALED.includes(app)).map(({ name }) => name).sort());
    for (const { name, app } of deployments) {
      const deployment = named(objects, 'Deployment', name);
      // A replica count in the Deployment would fight the autoscaler on every apply.
      expect({ name, replicasSet: spec<{ replicas?: number }>(deployment).replicas !== undefined }).toEqual({ name, replicasSet: !AUTOSCALED.includes(app) });
      const budgets = ofKind(objects, 'PodDisruptionBudget').filter((pdb) =>
        selects(spec<{ selector: { matchLabels: Record<string, string> } }>(pdb).selector, podTemplate(deployment).metadata.labels),
      );
      expect({ name, budgets: budgets.length }).toEqual({ name, budgets: 1 });
    }
  });

  it('runs the migrations as a one-shot Job with the same image', () => {
    const objects = render(path);
    const job = named(objects, 'Job', 'mailroom-migrate');
    const container = podTemplate(job).spec.containers[0];
    expect(container.args).toEqual(['migrate']);
    expect(container.image).toBe(appContainer(objects, 'gateway').image);
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    expect(container.env?.map((variable) => variable.name)).toContain('DATABASE_URL');
    // A migration waiting for its table locks gives up (naming who holds them) before Kubernetes ends the Job without a word.
    expect(1000 * spec<{ activeDeadlineSeconds: number }>(job).activeDeadlineSeconds).toBeGreaterThan(MIGRATION_LOCK_WAIT.giveUpAfterMs);
  });

  it('sets only configuration variables libs/config knows, with values it accepts', () => {
    const objects = render(path);
    for (const configMap of ofKind(objects, 'ConfigMap').filter((object) => object.metadata.name.startsWith('mailroom-config'))) {
      const data = configMap.data as Record<string, string>;
      expect(Object.keys(data).filter((name) => !isKnownVariable(name))).toEqual([]);
      expect(Object.entries(data).map(([name, value]) => variableProblem(name, value)).filter(Boolean)).toEqual([]);
    }
  });

  it('gives database credentials to the services, and the gateway only the keys that verify tracking links', () => {
    const objects = render(path);
    const secretNames = (app: string) => (appContainer(objects, app).env ?? []).flatMap((variable) => (variable.valueFrom?.secretKeyRef ? [variable.name] : []));
    expect(secretNames('gateway')).toEqual(['ENCRYPTION_KEY', 'ENCRYPTION_KEY_PREVIOUS']);
    for (const app of APPS.filter((name) => name !== 'keys')) expect(secretNames(app)).toContain('ENCRYPTION_KEY_PREVIOUS');
    for (const app of APPS.filter((name) => name !== 'gateway')) expect(secretNames(app)).toContain('DATABASE_URL');
  });

  it("gives every app an environment its own boot validation accepts, in production too", () => {
    const objects = render(path);
    for (const { name, app } of appDeployments(objects)) {
      const container = podTemplate(named(objects, 'Deployment', name)).spec.containers[0];
      const environment = Object.assign({ NODE_ENV: 'production' }, containerEnvironment(objects, container));
      expect({ name, problems: configProblems(environment, app as AppName) }).toEqual({ name, problems: [] });
    }
  });

  it('lets every app finish its work in flight within its grace period, after its preStop hook', () => {
    const objects = render(path);
    for (const { name } of appDeployments(objects)) {
      const pod = podTemplate(named(objects, 'Deployment', name));
      const container = pod.spec.containers[0];
      const shutdownMs = Number(containerEnvironment(objects, container).SHUTDOWN_TIMEOUT_MS ?? ENV_SCHEMA.SHUTDOWN_TIMEOUT_MS.default);
      const preStopMs = 1000 * Number(container.lifecycle?.preStop?.exec?.command?.[0] === 'sleep' ? container.lifecycle.preStop.exec.command[1] : 0);
      const graceMs = 1000 * (pod.spec.terminationGracePeriodSeconds ?? 30);
      // The app exits at SHUTDOWN_TIMEOUT_MS at the latest; a grace period shorter than that, with a few seconds to exit, kills it mid-delivery.
      expect({ name, roomMs: graceMs - preStopMs - shutdownMs >= 3000 }).toEqual({ name, roomMs: true });
    }
  });

  it('lets every app that reads DNS_SERVERS ask resolvers anywhere, not only the cluster DNS', () => {
    const objects = render(path);
    const readers = ENV_SCHEMA.DNS_SERVERS.apps as readonly string[];
    for (const { name } of appDeployments(objects).filter(({ app }) => readers.includes(app))) {
      const labels = podTemplate(named(objects, 'Deployment', name)).metadata.labels;
      const anywhere = ofKind(objects, 'NetworkPolicy')
        .map((policy) => spec<NetworkPolicySpec>(policy))
        .filter((policy) => selects(policy.podSelector, labels))
        .flatMap((policy) => policy.egress ?? [])
        .filter((rule) => (rule.to ?? []).some((peer) => peer.ipBlock?.cidr === '0.0.0.0/0' && !peer.ipBlock.except?.length))
        .flatMap((rule) => (rule.ports ?? []).filter((port) => port.port === 53).map((port) => port.protocol));
      // A DNS_SERVERS set in mailroom-config reaches every reader: one that may not ask them fails every lookup.
      expect({ name, dns: [...new Set(anywhere)].sort() }).toEqual({ name, dns: ['TCP', 'UDP'] });
    }
  });

  it('denies all traffic by default; only the gateway takes requests, and each app reaches only NATS, Postgres and what it delivers to', () => {
    const objects = render(path);
    const denyAll = ofKind(objects, 'NetworkPolicy').map((policy) => spec<NetworkPolicySpec>(policy)).find((policy) => Object.keys(policy.podSelector).length === 0);
    expect(denyAll?.policyTypes.sort()).toEqual(['Egress', 'Ingress']);
    expect(denyAll?.ingress ?? []).toEqual([]);
    expect(denyAll?.egress ?? []).toEqual([]);

    const viaMailpit = path.startsWith('overlays/dev') ? [1025] : [];
    const expectedEgress: Record<string, number[]> = {
      gateway: [53, 4222],
      keys: [53, 4222, 5432],
      domains: [53, 4222, 5432],
      emails: [25, 53, 465, 587, ...viaMailpit, 4222, 5432],
      'webhook-dispatcher': [53, 443, 4222, 5432],
    };
    // 8081 is the operations port, open to Prometheus only.
    const expectedIngress: Record<string, number[]> = { gateway: [3000, 8081], keys: [8081], domains: [5353, 8081], emails: [8081], 'webhook-dispatcher': [8081] };
    // Both halves of the emails split reach what emails does (see mailroom-emails-smtp-egress for why the api keeps SMTP).
    for (const { name, app } of appDeployments(objects)) {
      const pod = podTemplate(named(objects, 'Deployment', name));
      expect({ name, egress: allowedPorts(objects, pod.metadata.labels, 'egress') }).toEqual({ name, egress: expectedEgress[app] });
      expect({ name, ingress: allowedPorts(objects, pod.metadata.labels, 'ingress', pod.spec.containers[0]) }).toEqual({ name, ingress: expectedIngress[app] });
    }
    const migrate = podTemplate(named(objects, 'Job', 'mailroom-migrate'));
    expect(allowedPorts(objects, migrate.metadata.labels, 'egress')).toEqual([53, 5432]);
    expect(allowedPorts(objects, migrate.metadata.labels, 'ingress')).toEqual([]);
  });
});

describe.each(RENDERED_OVERLAYS.map((path) => [path, OVERLAYS[path.split(/[/ ]/)[1] as keyof typeof OVERLAYS]]))('k8s/%s', (path, namespace) => {
  it('puts every namespaced object in its namespace and every pod on one image', () => {
    const objects = render(path);
    expect(named(objects, 'Namespace', namespace)).toBeDefined();
    expect(objects.filter((object) => object.kind !== 'Namespace' && object.metadata.namespace !== namespace).map((object) => object.metadata.name)).toEqual([]);
    const images = new Set(
      [...ofKind(objects, 'Deployment'), ...ofKind(objects, 'Job')]
        .filter((object) => object.metadata.labels?.['app.kubernetes.io/name'] === 'mailroom')
        .map((object) => podTemplate(object).spec.containers[0].image),
    );
    expect(images.size).toBe(1);
  });

  it('provides every Secret key the pods require, or leaves the Secret to be created outside git', () => {
    const objects = render(path);
    const required = [...ofKind(objects, 'Deployment'), ...ofKind(objects, 'Job')]
      .flatMap((object) => podTemplate(object).spec.containers.flatMap((container) => container.env ?? []))
      .flatMap((variable) => {
        const ref = variable.valueFrom?.secretKeyRef;
        return ref && !ref.optional ? [`${ref.name}/${ref.key}`] : [];
      });
    const provided = ofKind(objects, 'Secret').flatMap((secret) => Object.keys((secret.data ?? {}) as object).map((key) => `${secret.metadata.name}/${key}`));
    if (path.startsWith('overlays/production')) expect(provided).toEqual([]);
    else expect([...new Set(required)].filter((key) => !provided.includes(key))).toEqual([]);
  });
});

/** The Deployments whose selector picks these pod labels. */
function deploymentsSelecting(objects: K8sObject[], selector: LabelSelector): string[] {
  return ofKind(objects, 'Deployment').filter((deployment) => selects(selector, podTemplate(deployment).metadata.labels)).map((deployment) => deployment.metadata.name);
}

describe.each(['base', ...RENDERED_OVERLAYS])('k8s/%s: selectors', (path) => {
  it("gives every Deployment a selector that picks no other Deployment's pods, and every HPA and PodDisruptionBudget exactly one Deployment's", () => {
    const objects = render(path);
    // Overlapping controller selectors are unsupported: the ReplicaSets fight over the pods, and an HPA averages in, a budget counts, a spread mixes the other's.
    for (const deployment of ofKind(objects, 'Deployment')) {
      const name = deployment.metadata.name;
      expect({ name, selects: deploymentsSelecting(objects, spec<{ selector: LabelSelector }>(deployment).selector) }).toEqual({ name, selects: [name] });
      const spread = podTemplate(deployment).spec.topologySpreadConstraints ?? [];
      for (const constraint of spread) expect({ name, spreadsOver: deploymentsSelecting(objects, constraint.labelSelector) }).toEqual({ name, spreadsOver: [name] });
    }
    for (const hpa of ofKind(objects, 'HorizontalPodAutoscaler')) {
      const target = named(objects, 'Deployment', spec<{ scaleTargetRef: { name: string } }>(hpa).scaleTargetRef.name);
      expect({ hpa: hpa.metadata.name, averages: deploymentsSelecting(objects, spec<{ selector: LabelSelector }>(target).selector) }).toEqual({ hpa: hpa.metadata.name, averages: [hpa.metadata.name] });
    }
    for (const pdb of ofKind(objects, 'PodDisruptionBudget')) {
      expect({ pdb: pdb.metadata.name, counts: deploymentsSelecting(objects, spec<{ selector: LabelSelector }>(pdb).selector) }).toEqual({ pdb: pdb.metadata.name, counts: [pdb.metadata.name] });
    }
  });
});

describe.each(Object.keys(OVERLAYS))(`k8s/overlays/%s${WITH_SPLIT}`, (overlay) => {
  const path = `overlays/${overlay}${WITH_SPLIT}`;
  const api = () => named(render(path), 'Deployment', 'mailroom-emails');
  const worker = () => named(render(path), 'Deployment', 'mailroom-emails-worker');
  const role = (deployment: K8sObject) => podTemplate(deployment).spec.containers[0].env?.find((variable) => variable.name === 'EMAILS_ROLE')?.value;

  it('runs mailroom-emails as the api and mailroom-emails-worker as the worker, which the shipped overlay runs as one (all)', () => {
    expect({ api: role(api()), worker: role(worker()) }).toEqual({ api: 'api', worker: 'worker' });
    expect(role(named(render(`overlays/${overlay}`), 'Deployment', 'mailroom-emails'))).toBeUndefined();
  });

  it("keeps mailroom-emails' selector, so an install of the shipped overlay takes the split with a plain apply", () => {
    const shipped = named(render(`overlays/${overlay}`), 'Deployment', 'mailroom-emails');
    // A Deployment's selector is immutable: the API server refuses an apply that changes it.
    expect(spec<{ selector: LabelSelector }>(api()).selector).toEqual(spec<{ selector: LabelSelector }>(shipped).selector);
  });

  it('runs the worker pod as the emails pod but for its role and labels, and keeps at least one running', () => {
    const relabelled = (deployment: K8sObject) => {
      const template = structuredClone(podTemplate(deployment));
      template.metadata.labels['app.kubernetes.io/component'] = 'emails';
      for (const constraint of template.spec.topologySpreadConstraints ?? []) constraint.labelSelector.matchLabels!['app.kubernetes.io/component'] = 'emails';
      template.spec.containers[0].env = template.spec.containers[0].env?.filter((variable) => variable.name !== 'EMAILS_ROLE');
      return template;
    };
    // Probes, grace period, securityContext, Secrets and an overlay's resources must not drift apart between the two.
    expect(relabelled(worker())).toEqual(relabelled(api()));
    const hpa = ofKind(render(path), 'HorizontalPodAutoscaler').find((object) => spec<{ scaleTargetRef: { name: string } }>(object).scaleTargetRef.name === 'mailroom-emails-worker');
    // With no worker pod nothing is delivered: accepted mail waits in the queue.
    expect(spec<{ minReplicas: number }>(hpa!).minReplicas).toBeGreaterThanOrEqual(1);
  });

  it('lets every network policy that selects the emails pods, or names them as a peer, cover the worker pods too', () => {
    const objects = render(path);
    const emailsPods = podTemplate(api()).metadata.labels;
    const workerPods = podTemplate(worker()).metadata.labels;
    const selectors = ofKind(objects, 'NetworkPolicy').flatMap((policy) => {
      const { podSelector, ingress = [], egress = [] } = spec<NetworkPolicySpec>(policy);
      const peers = [...ingress.flatMap((rule) => rule.from ?? []), ...egress.flatMap((rule) => rule.to ?? [])];
      return [{ where: `${policy.metadata.name} podSelector`, selector: podSelector }, ...peers.flatMap((peer) => (peer.podSelector ? [{ where: `${policy.metadata.name} peer`, selector: peer.podSelector }] : []))];
    });
    const ofEmails = selectors.filter(({ selector }) => selects(selector, emailsPods));
    expect(ofEmails.map(({ where }) => where)).toEqual(expect.arrayContaining(['mailroom-emails-smtp-egress podSelector', 'mailroom-postgres-egress podSelector', 'mailroom-nats-egress podSelector']));
    expect(ofEmails.filter(({ selector }) => !selects(selector, workerPods)).map(({ where }) => where)).toEqual([]);
  });
});

describe('k8s/overlays/production', () => {
  it('pins the image, routes the Ingress to the gateway only, and publishes the DKIM name server', () => {
    const objects = render('overlays/production');
    expect(appContainer(objects, 'gateway').image).toMatch(/^[^:]+\/mailroom:\d+\.\d+\.\d+$/);
    const backends = ofKind(objects, 'Ingress').flatMap((ingress) =>
      spec<{ rules: { http: { paths: { backend: { service: { name: string } } }[] } }[] }>(ingress).rules.flatMap((rule) => rule.http.paths.map((p) => p.backend.service.name)),
    );
    expect(new Set(backends)).toEqual(new Set(['mailroom-gateway']));
    expect(spec<{ type: string }>(named(objects, 'Service', 'mailroom-dkim-dns')).type).toBe('LoadBalancer');
    expect(configFor(objects, appContainer(objects, 'emails')).DELIVERY_MODE).toBe('mx');
    // A three-node NATS cluster keeps the event stream through the loss of a node only with three copies.
    expect(configFor(objects, appContainer(objects, 'emails')).EVENT_STREAM_REPLICAS).toBe('3');
    // Behind the ingress controller the TCP peer is the controller, never the client.
    expect(configFor(objects, appContainer(objects, 'gateway')).TRUSTED_PROXIES).toMatch(/\//);
  });

  it('routes the tracking host through the Ingress with TLS, and lets bodies up to BODY_LIMIT_BYTES reach the gateway', () => {
    const objects = render('overlays/production');
    const gateway = containerEnvironment(objects, appContainer(objects, 'gateway'));
    const trackingHost = new URL(configFor(objects, appContainer(objects, 'domains')).TRACKING_BASE_URL).hostname;
    const ingress = spec<{ tls: { hosts: string[] }[]; rules: { host: string }[] }>(named(objects, 'Ingress', 'mailroom-gateway'));
    expect(ingress.rules.map((rule) => rule.host)).toContain(trackingHost);
    expect(ingress.tls.flatMap((tls) => tls.hosts)).toContain(trackingHost);
    // ingress-nginx answers a larger body 413 itself, in HTML rather than the API's error shape.
    const proxyBodySize = named(objects, 'Ingress', 'mailroom-gateway').metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-body-size'] ?? '1m';
    const units: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
    const [, amount, unit] = /^(\d+)([kmg]?)$/i.exec(proxyBodySize) ?? [];
    const bodyLimit = Number(gateway.BODY_LIMIT_BYTES ?? ENV_SCHEMA.BODY_LIMIT_BYTES.default);
    expect(Number(amount) * units[unit.toLowerCase()]).toBeGreaterThan(bodyLimit);
  });

  it("names the DKIM zone's name servers outside the zone, which the server answers no address records of", () => {
    const objects = render('overlays/production');
    const config = configFor(objects, appContainer(objects, 'domains'));
    // Unset, the SOA and NS answers name ns.<DKIM_ZONE>, which resolves only while resolvers keep the parent's glue.
    const nameServers = (config.DKIM_ZONE_NS ?? '').split(',').map((name) => name.trim()).filter(Boolean);
    expect(nameServers.length).toBeGreaterThan(0);
    const zone = config.DKIM_ZONE.toLowerCase();
    expect(nameServers.filter((name) => name.toLowerCase() === zone || name.toLowerCase().endsWith(`.${zone}`))).toEqual([]);
  });
});

describe('k8s/README.md', () => {
  // The CloudNativePG cluster the README installs for the apps.
  const cluster = readmeManifests(join(K8S, 'README.md')).find((object) => object.kind === 'Cluster' && object.apiVersion.startsWith('postgresql.cnpg.io/'));
  const postgresPod = { namespace: cluster?.metadata.namespace, labels: { 'cnpg.io/cluster': cluster?.metadata.name ?? '' } };

  it('installs a CloudNativePG cluster in a namespace of its own', () => {
    expect(cluster?.metadata.namespace).toBeDefined();
    expect(Object.values(OVERLAYS)).not.toContain(cluster?.metadata.namespace);
  });

  it.each(Object.keys(OVERLAYS))('leaves the Postgres pods alone under the %s overlay, and lets the services and migrations reach them', (overlay) => {
    const objects = render(`overlays/${overlay}`);
    const policies = ofKind(objects, 'NetworkPolicy');
    // A policy that selects a pod isolates it: default-deny-all would cut CloudNativePG's instances off from the
    // apps, from one another (replication) and from the operator, and them from the Kubernetes API.
    const isolating = policies.filter((policy) => policy.metadata.namespace === postgresPod.namespace && selects(spec<NetworkPolicySpec>(policy).podSelector, postgresPod.labels));
    expect(isolating.map((policy) => policy.metadata.name)).toEqual([]);
    const reachPostgres = policies
      .map((policy) => spec<NetworkPolicySpec>(policy))
      .filter((policy) => (policy.egress ?? []).some((rule) => (rule.to ?? []).some((peer) => peer.podSelector && selects(peer.podSelector, postgresPod.labels))))
      .flatMap((policy) => policy.podSelector.matchExpressions?.flatMap((expression) => expression.values ?? []) ?? []);
    expect(reachPostgres.sort()).toEqual(['domains', 'emails', 'emails-worker', 'keys', 'migrate', 'webhook-dispatcher']);
  });

  it.each(RENDERED_OVERLAYS)("gives that cluster room for every connection the pods of k8s/%s may open at their most replicas", (overlay) => {
    const objects = render(overlay);
    const maxReplicas = (deployment: K8sObject) => {
      const hpa = ofKind(objects, 'HorizontalPodAutoscaler').find((object) => spec<{ scaleTargetRef: { name: string } }>(object).scaleTargetRef.name === deployment.metadata.name);
      const { replicas = 1, strategy } = spec<{ replicas?: number; strategy?: { rollingUpdate?: { maxSurge?: number } } }>(deployment);
      // A rolling update runs the surge pods beside the old ones.
      return (hpa ? spec<{ maxReplicas: number }>(hpa).maxReplicas : replicas) + (strategy?.rollingUpdate?.maxSurge ?? 1);
    };
    const usesDatabase = (object: K8sObject) => (podTemplate(object).spec.containers[0].env ?? []).some((variable) => variable.name === 'DATABASE_URL');
    const appConnections = ofKind(objects, 'Deployment').filter(usesDatabase).reduce((sum, deployment) => sum + maxReplicas(deployment) * APP_POOL_SIZE, 0);
    const migrationConnections = ofKind(objects, 'Job').filter(usesDatabase).length;
    const parameters = spec<{ postgresql?: { parameters?: Record<string, string> } }>(cluster!).postgresql?.parameters ?? {};
    // Postgres's defaults: 100 connections, 3 of them kept for superusers.
    const available = Number(parameters.max_connections ?? 100) - Number(parameters.superuser_reserved_connections ?? 3);
    const needed = appConnections + migrationConnections;
    expect({ overlay, needed, fits: needed <= available }).toEqual({ overlay, needed, fits: true });
  });

  it("points the dev overlay's DATABASE_URL at that cluster's read-write service", () => {
    const objects = render('overlays/dev');
    const url = new URL(containerEnvironment(objects, appContainer(objects, 'keys')).DATABASE_URL);
    expect(url.hostname).toBe(`${cluster?.metadata.name}-rw.${cluster?.metadata.namespace}.svc.cluster.local`);
  });
});
