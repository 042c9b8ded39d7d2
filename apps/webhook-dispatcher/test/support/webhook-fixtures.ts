import { randomBytes } from 'node:crypto';
import { SecretBox } from '@mailroom/auth';
import { Client } from 'pg';
import { eventually, Stack } from '@mailroom/testing';
import { ApiClient } from '@mailroom/testing';

/** Creates webhooks through the API and deletes them after each test, so one test's endpoints never receive another's events. */
export class WebhookFixtures {
  private readonly created: Array<{ api: ApiClient; id: string }> = [];

  constructor(private readonly stack: Stack) {}

  async create(url: string, events: string[] = ['*'], api: ApiClient = this.stack.api): Promise<{ id: string; secret: string; [key: string]: any }> {
    const response = await api.post('/v1/webhooks', { url, events });
    if (response.status !== 201) throw new Error(`creating the webhook answered ${response.status}: ${JSON.stringify(response.body)}`);
    this.created.push({ api, id: response.body.id });
    return response.body;
  }

  async deliveries(id: string, api: ApiClient = this.stack.api): Promise<any[]> {
    const response = await api.get(`/v1/webhooks/${id}/deliveries?limit=100`);
    if (response.status !== 200) throw new Error(`listing deliveries answered ${response.status}`);
    return response.body.data;
  }

  /** The webhook's first listed delivery once it has this status. */
  firstDeliveryOnce(id: string, status: string, timeoutMs = 10_000): Promise<any> {
    return eventually(async () => {
      const [first] = await this.deliveries(id);
      return first?.status === status && first;
    }, timeoutMs);
  }

  /** Writes a stored column behind the API's back, as a bad migration, an old version or a changed key would leave it. */
  async overwriteStored(id: string, column: 'url' | 'secret_sealed' | 'previous_secret_expires_at', value: string): Promise<void> {
    await this.query(`UPDATE webhooks.webhooks SET ${column} = $2 WHERE id = $1`, [id, value]);
  }

  /** Seals the webhook's secret under a key the dispatcher does not have, as if ENCRYPTION_KEY had been changed with the old key left out of ENCRYPTION_KEY_PREVIOUS. */
  async sealSecretUnderAnotherKey(id: string, secret: string): Promise<void> {
    await this.overwriteStored(id, 'secret_sealed', new SecretBox(randomBytes(32).toString('base64')).encrypt(secret, id));
  }

  /** The webhook's signing secrets as stored, sealed (the previous one null outside a rotation's grace). */
  async storedSecrets(id: string): Promise<{ secret_sealed: string; previous_secret_sealed: string | null }> {
    const [row] = await this.query('SELECT secret_sealed, previous_secret_sealed FROM webhooks.webhooks WHERE id = $1', [id]);
    return row;
  }

  /** The webhook's deliveries not yet attempted that no dispatcher holds a lease on (the API does not show leases). */
  async unleasedUnsent(id: string): Promise<number> {
    const [row] = await this.query(`SELECT count(*)::int AS count FROM webhooks.deliveries WHERE webhook_id = $1 AND attempts = 0 AND lease_owner IS NULL`, [id]);
    return row.count;
  }

  /** The webhook's deliveries in all, and how many of them a dispatcher holds under a lease right now. */
  async leased(id: string): Promise<{ rows: number; leased: number }> {
    const [row] = await this.query(`SELECT count(*)::int AS rows, count(lease_owner)::int AS leased FROM webhooks.deliveries WHERE webhook_id = $1`, [id]);
    return row;
  }

  private async query(sql: string, parameters: unknown[]): Promise<any[]> {
    const database = new Client({ connectionString: this.stack.databaseUrl });
    await database.connect();
    try {
      return (await database.query(sql, parameters)).rows;
    } finally {
      await database.end();
    }
  }

  async cleanup(): Promise<void> {
    for (const { api, id } of this.created.splice(0)) await api.delete(`/v1/webhooks/${id}`);
  }
}
