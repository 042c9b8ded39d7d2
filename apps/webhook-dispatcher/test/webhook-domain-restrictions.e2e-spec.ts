import { eventually, Stack, startStack } from '@mailroom/testing';
import { EventPublisher } from './support/event-publisher';
import { WebhookFixtures } from './support/webhook-fixtures';
import { WebhookReceiver } from './support/webhook-receiver';

/** A webhook made by a key with domainRestrictions carries them: its events and who may reach it stay within those domains. */
describe('webhook domain restrictions', () => {
  let stack: Stack;
  let events: EventPublisher;
  let fixtures: WebhookFixtures;

  beforeAll(async () => {
    stack = await startStack({
      apps: ['keys', 'webhook-dispatcher', 'gateway'],
      env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50' },
    });
    events = await EventPublisher.connect(stack.nats.url);
    fixtures = new WebhookFixtures(stack);
  });

  afterEach(async () => {
    await fixtures.cleanup();
  });

  afterAll(async () => {
    await events?.close();
    await stack?.stop();
  });

  /** An API client of a live key restricted to these domains (as the keys service stores them: lower-case punycode). */
  const restrictedApi = async (domains: string[]) => stack.api.withKey((await stack.issueKey({ permissions: ['webhooks:*'], domainRestrictions: domains })).key);

  it("delivers to a restricted key's webhook only its domains' events, and to an unrestricted webhook every domain's", async () => {
    const restrictedReceiver = await new WebhookReceiver().start();
    const openReceiver = await new WebhookReceiver().start();
    try {
      const api = await restrictedApi(['mail.a.test', 'xn--bcher-kva.test']);
      const restricted = await fixtures.create(restrictedReceiver.url(), ['*'], api);
      expect(restricted.domainRestrictions).toEqual(['mail.a.test', 'xn--bcher-kva.test']);
      const open = await fixtures.create(openReceiver.url(), ['*']);
      expect(open.domainRestrictions).toEqual([]);

      const own = await events.publish('email.sent', 'live', { from: 'Sender <hi@Mail.A.test>' });
      const ownIdn = await events.publish('email.delivered', 'live', { from: 'x@bücher.test' });
      const other = await events.publish('email.sent', 'live', { from: 'hi@mail.b.test', subject: 'Not yours' });
      const unreadable = await events.publish('email.complained', 'live', { from: undefined });
      const ownDomain = await events.publish('domain.verified', 'live', { id: 'dom_a', name: 'mail.a.test' });
      const otherDomain = await events.publish('domain.failed', 'live', { id: 'dom_b', name: 'mail.b.test' });
      // Published last: the dispatcher fans the stream out in order, one committed batch after another, so once
      // this one has a delivery every event above has been matched to webhooks, delivered or not.
      const marker = await events.publish('email.sent', 'live', { from: 'hi@mail.a.test' });

      const deliveredToRestricted = await eventually(async () => {
        const eventIds = (await fixtures.deliveries(restricted.id, api)).map((delivery) => delivery.eventId);
        return eventIds.includes(marker.id) && eventIds;
      });
      expect(deliveredToRestricted.sort()).toEqual([own.id, ownIdn.id, ownDomain.id, marker.id].sort());
      await eventually(() => restrictedReceiver.requests.length >= 4);
      expect(restrictedReceiver.eventIds().sort()).toEqual([own.id, ownIdn.id, ownDomain.id, marker.id].sort());
      expect(restrictedReceiver.bodies().map((body) => body.data.subject)).not.toContain('Not yours');

      const everything = [own, ownIdn, other, unreadable, ownDomain, otherDomain, marker].map((event) => event.id);
      await eventually(() => openReceiver.requests.length >= everything.length);
      expect(openReceiver.eventIds().sort()).toEqual(everything.sort());
    } finally {
      await restrictedReceiver.stop();
      await openReceiver.stop();
    }
  });

  it('lets a restricted key reach only webhooks restricted within its domains; others are 404 and not listed', async () => {
    const url = 'https://hooks.example.com/h';
    const apiA = await restrictedApi(['mail.a.test']);
    const apiB = await restrictedApi(['mail.b.test']);
    const apiAB = await restrictedApi(['mail.a.test', 'mail.b.test']);
    const unrestricted = await fixtures.create(url);
    const ofA = await fixtures.create(url, ['*'], apiA);
    const ofB = await fixtures.create(url, ['*'], apiB);
    const ofAB = await fixtures.create(url, ['*'], apiAB);

    for (const id of [unrestricted.id, ofB.id, ofAB.id]) {
      expect((await apiA.get(`/v1/webhooks/${id}`)).status).toBe(404);
      expect((await apiA.get(`/v1/webhooks/${id}/secret`)).status).toBe(404);
      expect((await apiA.get(`/v1/webhooks/${id}/deliveries`)).status).toBe(404);
      expect((await apiA.patch(`/v1/webhooks/${id}`, { url: 'https://attacker.example.com/h' })).status).toBe(404);
      expect((await apiA.post(`/v1/webhooks/${id}/secret/rotate`, {})).status).toBe(404);
      expect((await apiA.delete(`/v1/webhooks/${id}`)).status).toBe(404);
    }
    expect((await stack.api.get(`/v1/webhooks/${unrestricted.id}`)).body.url).toBe(url);

    const fetched = await apiA.get(`/v1/webhooks/${ofA.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body.domainRestrictions).toEqual(['mail.a.test']);
    expect((await apiA.patch(`/v1/webhooks/${ofA.id}`, { description: 'mine' })).body).toMatchObject({ description: 'mine', domainRestrictions: ['mail.a.test'] });

    const listed = async (api: typeof apiA) => (await api.get('/v1/webhooks?limit=100')).body.data.map((item: { id: string }) => item.id).sort();
    expect(await listed(apiA)).toEqual([ofA.id]);
    expect(await listed(apiAB)).toEqual([ofA.id, ofB.id, ofAB.id].sort());
    expect(await listed(stack.api)).toEqual([unrestricted.id, ofA.id, ofB.id, ofAB.id].sort());
    expect((await apiAB.get(`/v1/webhooks/${ofB.id}`)).status).toBe(200);
  });
});
