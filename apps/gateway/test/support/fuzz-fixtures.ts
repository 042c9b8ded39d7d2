import type { ApiClient, ApiResponse } from '@mailroom/testing';

export type Mode = 'live' | 'test';
/** The collection a path parameter names a member of, by the path's start. */
export const FIXTURE_OWNERS = ['/v1/api-keys', '/v1/domains', '/v1/emails', '/v1/suppressions', '/v1/webhooks'] as const;
export type FixtureOwner = (typeof FIXTURE_OWNERS)[number];

/**
 * One real resource of each kind in each mode, for the path parameters of a
 * fuzz, so that most requests reach a resource rather than stop at a 404. A
 * fuzzed DELETE that removes one gets it replaced, so the operations after it
 * still have something to act on; every creation is reported (`created`) so
 * the data the stack holds can be accounted for.
 */
export class FuzzFixtures {
  private readonly ids: Record<Mode, Partial<Record<FixtureOwner, string>>> = { live: {}, test: {} };
  private made = 0;

  constructor(
    private readonly clients: Record<Mode, ApiClient>,
    private readonly webhookUrl: string,
    private readonly created: (operation: string, response: ApiResponse) => void,
  ) {}

  async createAll(): Promise<this> {
    for (const mode of ['live', 'test'] as Mode[]) for (const owner of FIXTURE_OWNERS) await this.create(mode, owner);
    return this;
  }

  idOf(mode: Mode, owner: FixtureOwner): string {
    return this.ids[mode][owner]!;
  }

  /** After an answer: when it deleted a fixture, makes another. */
  async replaceDeleted(operation: string, response: ApiResponse): Promise<void> {
    if (!operation.startsWith('DELETE ') || response.status !== 200) return;
    const deleted = response.body.id ?? response.body.email;
    for (const mode of ['live', 'test'] as Mode[]) {
      for (const owner of FIXTURE_OWNERS) if (this.ids[mode][owner] === deleted) await this.create(mode, owner);
    }
  }

  private async create(mode: Mode, owner: FixtureOwner): Promise<void> {
    const client = this.clients[mode];
    this.made += 1;
    // Domains belong to no mode: both modes share one.
    if (owner === '/v1/domains' && mode === 'test' && this.ids.live[owner]) {
      this.ids.test[owner] = this.ids.live[owner];
      return;
    }
    const bodies: Record<FixtureOwner, object> = {
      '/v1/api-keys': { name: `fuzz target ${this.made}`, permissions: ['emails:read'] },
      '/v1/domains': { name: `fuzz-${this.made}.example.org` },
      '/v1/emails': { from: 'hi@acme.test', to: 'delivered@example.com', subject: 'Later', text: 'x', scheduledAt: new Date(Date.now() + 86_400_000).toISOString() },
      '/v1/suppressions': { email: 'fuzz@example.com' },
      '/v1/webhooks': { url: this.webhookUrl, events: ['email.delivered'] },
    };
    const response = await client.post(owner, bodies[owner]);
    if (response.status >= 300) throw new Error(`creating a ${owner} fixture (${mode}): ${response.status} ${JSON.stringify(response.body)}`);
    this.created(`POST ${owner}`, response);
    this.ids[mode][owner] = response.body.id ?? response.body.email;
    if (owner === '/v1/domains') this.ids.test[owner] = this.ids.live[owner];
  }
}
