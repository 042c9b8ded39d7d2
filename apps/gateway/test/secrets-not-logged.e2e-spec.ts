import { hashApiKey } from '@mailroom/auth';
import { setLogDestination } from '@mailroom/runtime';
import { startStack, Stack } from '@mailroom/testing';

describe('logs', () => {
  let stack: Stack;
  const lines: string[] = [];

  beforeAll(async () => {
    setLogDestination({ write: (line: string) => void lines.push(line) });
    stack = await startStack({ env: { LOG_LEVEL: 'trace' } });
  });
  afterAll(async () => {
    await stack?.stop();
    setLogDestination(undefined);
  });

  it('are JSON and never contain API keys, key hashes, webhook secrets or message bodies', async () => {
    const created = await stack.api.post('/v1/api-keys', { name: 'logged?', permissions: ['*'] });
    const secretKey: string = created.body.key;
    await stack.api.withKey(secretKey).get('/v1/api-keys');
    await stack.api.withKey(`${secretKey.slice(0, -1)}x`).get('/v1/api-keys');
    const webhook = await stack.api.post('/v1/webhooks', { url: 'https://hooks.example.com/in', events: ['*'] });
    const body = 'BODY-7f3a9c-never-log-me';
    const { key: testKey } = await stack.issueKey({ mode: 'test' });
    await stack.api.withKey(testKey).post('/v1/emails', { from: 'a@acme.test', to: 'delivered@example.com', subject: 'S', text: body, html: `<p>${body}</p>` });
    // Force an internal error path and a validation error to be logged too.
    await stack.api.post('/v1/api-keys', { name: '', permissions: ['nope'] });

    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    const all = lines.join('\n');
    expect(all).not.toContain(secretKey);
    expect(all).not.toContain(stack.rootKey);
    // The hash is what the gateway sends the keys service to look a key up; the title promised it, nothing checked it.
    expect(all).not.toContain(hashApiKey(secretKey));
    expect(all).not.toContain(hashApiKey(stack.rootKey));
    expect(all).not.toContain(body);
    if (webhook.status === 201) expect(all).not.toContain(webhook.body.secret);
  });
});
