import type { ApiClient, ApiResponse } from '@mailroom/testing';

const RESOURCES = ['api-keys', 'domains', 'emails', 'webhooks'] as const;
type Resource = (typeof RESOURCES)[number];
export type CreatedData = Record<Resource, string[]>;

/**
 * Keeps account of what the API's answers said they created and deleted, to
 * check afterwards that the stack holds exactly that: a request refused with
 * a 4xx stored nothing, and one answered 2xx stored one thing (a batch one
 * per email). An Idempotency-Key reused with the same API key on the same
 * route must give the first answer's emails back (a different body is a 409).
 */
export class ResourceLedger {
  private readonly baseline = emptyData();
  private readonly created = emptyData();
  private readonly deleted = emptyData();
  private readonly firstAnswers = new Map<string, string>();
  readonly reusedKeyMismatches: string[] = [];

  /** Clients whose lists together see everything (a live and a test key: each mode lists only its own). */
  constructor(private readonly readers: ApiClient[]) {}

  async snapshot(): Promise<this> {
    const now = await this.listed();
    for (const resource of RESOURCES) this.baseline[resource].push(...now[resource]);
    return this;
  }

  record(operation: string, request: { keyName: string; headers: Record<string, string> }, response: ApiResponse): void {
    if (response.status >= 300) return;
    const [method, path] = operation.split(' ');
    const resource = RESOURCES.find((name) => path.startsWith(`/v1/${name}`));
    if (!resource) return;
    if (method === 'POST' && (path === `/v1/${resource}` || path === '/v1/emails/batch')) {
      const ids: string[] = path === '/v1/emails/batch' ? response.body.data.map((item: { id: string }) => item.id) : [response.body.id];
      this.created[resource].push(...ids);
      this.checkReusedKey(`${request.keyName} ${path} ${request.headers['idempotency-key']}`, ids, request.headers['idempotency-key']);
    }
    if (method === 'DELETE' && path === `/v1/${resource}/{id}`) this.deleted[resource].push(response.body.id);
  }

  expected(): CreatedData {
    const expected = emptyData();
    for (const resource of RESOURCES) {
      const gone = new Set(this.deleted[resource]);
      expected[resource] = [...new Set([...this.baseline[resource], ...this.created[resource]])].filter((id) => !gone.has(id)).sort();
    }
    return expected;
  }

  async listed(): Promise<CreatedData> {
    const listed = emptyData();
    for (const resource of RESOURCES) {
      const ids = new Set<string>();
      for (const reader of this.readers) for (const id of await everyId(reader, resource)) ids.add(id);
      listed[resource] = [...ids].sort();
    }
    return listed;
  }

  private checkReusedKey(scope: string, ids: string[], key: string | undefined): void {
    if (key === undefined) return;
    const answer = ids.join();
    const first = this.firstAnswers.get(scope);
    if (first === undefined) this.firstAnswers.set(scope, answer);
    else if (first !== answer) this.reusedKeyMismatches.push(`${scope}: first ${first}, then ${answer}`);
  }
}

function emptyData(): CreatedData {
  return { 'api-keys': [], domains: [], emails: [], webhooks: [] };
}

async function everyId(reader: ApiClient, resource: Resource): Promise<string[]> {
  const ids: string[] = [];
  for (let after = ''; ; ) {
    const page = await reader.get(`/v1/${resource}?limit=100${after ? `&starting_after=${after}` : ''}`);
    if (page.status !== 200) throw new Error(`listing ${resource}: ${page.status} ${JSON.stringify(page.body)}`);
    ids.push(...page.body.data.map((item: { id: string }) => item.id));
    if (!page.body.hasMore) return ids;
    after = ids[ids.length - 1];
  }
}
