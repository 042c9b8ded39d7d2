import { startStack, Stack } from '@mailroom/testing';
describe('probe', () => {
  let stack: Stack;
  beforeAll(async () => { stack = await startStack(); });
  afterAll(() => stack?.stop());
  it('lists', async () => { expect((await stack.api.get('/v1/api-keys')).status).toBe(200); });
});
