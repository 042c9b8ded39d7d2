import { authenticate } from 'mailauth';
import { eventually, startTestSmtp } from '@mailroom/testing';
import { DeliveryHarness, emailReaching, eventsOf, routeMailTo, startDeliveryHarness, testDnsResolver, verifiedDomain } from './support/delivery-harness';

const PIXEL = 'R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==';

/** Live delivery in mx mode, through a real SMTP server found by MX lookup in the test DNS. */
describe('delivery in mx mode', () => {
  let harness: DeliveryHarness;

  beforeAll(async () => {
    // A verified domain whose records are gone fails at the first verify after the one that found them missing.
    harness = await startDeliveryHarness({ DOMAIN_FAILURE_CONFIRMATION: '1ms' });
    for (const domain of ['example.test', 'other.test', 'xn--bcher-kva.test']) routeMailTo(harness.dns, domain);
    await verifiedDomain(harness, 'acme.test');
  });
  afterAll(() => harness?.stop());
  beforeEach(() => harness.smtp.clear());

  const send = async (body: Record<string, unknown>) => {
    const response = await harness.stack.api.post('/v1/emails', { from: 'Acme <hi@acme.test>', subject: 'Hello', text: 'Hi there', ...body });
    expect(response.status).toBe(202);
    return response.body.id as string;
  };

  it('delivers a DKIM-signed message that passes SPF and DMARC, with both bodies, the attachment and the inline image', async () => {
    const id = await send({
      to: 'Bob <bob@example.test>',
      cc: 'carol@example.test',
      bcc: 'dave@other.test',
      replyTo: 'support@acme.test',
      subject: 'Your receipt',
      text: 'Plain receipt body',
      html: '<p>HTML receipt body <img src="cid:logo"></p>',
      headers: { 'X-Campaign': 'spring' },
      // The html is compared byte for byte below; tracking has its own suite (tracking-received).
      tracking: { opens: false, clicks: false },
      attachments: [
        { filename: 'receipt.txt', content: Buffer.from('paid in full').toString('base64'), contentType: 'text/plain' },
        { filename: 'logo.gif', content: PIXEL, contentType: 'image/gif', contentId: 'logo' },
      ],
    });
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    expect(email.deliveredAt).toEqual(expect.any(String));
    expect(email.recipients.map((recipient: any) => [recipient.address, recipient.status, recipient.smtpCode])).toEqual(
      expect.arrayContaining([
        ['bob@example.test', 'delivered', 250],
        ['carol@example.test', 'delivered', 250],
        ['dave@other.test', 'delivered', 250],
      ]),
    );

    // One message per destination: bob and carol share example.test's MX, dave's domain has its own.
    expect(harness.smtp.messages).toHaveLength(2);
    const message = harness.smtp.messagesFor('bob@example.test')[0];
    expect(message.rcptTo.sort()).toEqual(['bob@example.test', 'carol@example.test']);
    expect(harness.smtp.messagesFor('dave@other.test')).toHaveLength(1);
    expect(message.mailFrom).toBe('bounces@acme.test');
    expect(message.helo).toBe('mailroom.test');
    expect(message.secure).toBe(true);

    const raw = message.raw.toString();
    expect(raw).toMatch(new RegExp(`^Message-ID: <${id}@acme\\.test>\\r$`, 'm'));
    expect(raw).toMatch(/^Date: .+\r$/m);
    expect(raw).toMatch(/^Subject: Your receipt\r$/m);
    expect(raw).toMatch(/^X-Campaign: spring\r$/m);
    expect(raw).toMatch(/^Reply-To: support@acme\.test\r$/m);
    expect(raw).not.toContain('dave@other.test');
    expect(raw).toContain('multipart/alternative');
    expect(raw).toContain('Plain receipt body');
    expect(raw).toContain('<p>HTML receipt body <img src="cid:logo"></p>');
    expect(raw).toMatch(/filename=receipt\.txt/);
    expect(raw).toContain(Buffer.from('paid in full').toString('base64'));
    expect(raw).toMatch(/Content-Id: <logo>/i);

    const result = await authenticate(message.raw, {
      ip: '127.0.0.1',
      helo: message.helo,
      sender: message.mailFrom,
      mta: 'mx.example.test',
      resolver: testDnsResolver(harness.dns),
    });
    expect(result.dkim.results[0]).toMatchObject({ signingDomain: 'acme.test', status: { result: 'pass' } });
    expect((result.spf as any).status.result).toBe('pass');
    expect((result.dmarc as any).status.result).toBe('pass');

    const events = await eventsOf(harness.db, id);
    expect(events.filter((event) => event.type === 'email.delivered').map((event) => event.data.recipient).sort()).toEqual([
      'bob@example.test',
      'carol@example.test',
      'dave@other.test',
    ]);
    expect(events.find((event) => event.type === 'email.delivered')!.data).toMatchObject({ emailId: id, from: 'Acme <hi@acme.test>', subject: 'Your receipt', smtp: { code: 250 } });
  });

  it('delivers to an internationalized domain in punycode, looked up and addressed as DNS and SMTP carry it', async () => {
    const id = await send({ to: 'Ann <Ann@Bücher.test>', cc: 'ann@xn--bcher-kva.test' });
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    // Two spellings of one address are one recipient, sent to and shown as first written: the local part's case is
    // the receiving host's to judge (RFC 5321 §2.4), and only the domain is lower-case punycode. smtp-server shows a
    // punycode domain of RCPT TO in Unicode; the MX found was the punycode name's.
    const [received] = harness.smtp.messagesFor('ann@bücher.test');
    expect(received.rcptTo).toEqual(['Ann@bücher.test']);
    expect(email.recipients).toEqual([expect.objectContaining({ address: 'Ann@xn--bcher-kva.test', status: 'delivered' })]);
    expect(email.to).toEqual(['Ann <Ann@Bücher.test>']);
    const delivered = (await eventsOf(harness.db, id)).find((event) => event.type === 'email.delivered');
    expect(delivered?.data).toMatchObject({ recipient: 'Ann@xn--bcher-kva.test' });
    expect(received.raw.toString('latin1')).toMatch(/^To: Ann <Ann@xn--bcher-kva\.test>\r$/m);
    const listed = await harness.stack.api.get(`/v1/emails?to=${encodeURIComponent('ANN@bücher.test')}`);
    expect(listed.body.data.map((item: { id: string }) => item.id)).toEqual([id]);
  });

  it('retries a 4xx and delivers once', async () => {
    harness.smtp.failNext(451, '4.2.2 Mailbox full');
    const id = await send({ to: 'full@example.test' });
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(harness.smtp.messagesFor('full@example.test')).toHaveLength(1);
    const events = await eventsOf(harness.db, id);
    expect(events.map((event) => event.type)).toEqual(['email.queued', 'email.delivery_delayed', 'email.delivered']);
    expect(events[1].data).toMatchObject({ recipient: 'full@example.test', smtp: { code: 451, reply: '451 4.2.2 Mailbox full', host: 'mx.example.test' }, nextAttemptAt: expect.any(String) });
    // Both attempts stay readable on the recipient, not only the last reply.
    const { attemptLog } = email.recipients[0];
    expect(attemptLog).toEqual([
      { attempt: 1, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), status: 'deferred', smtpCode: 451, smtpReply: '451 4.2.2 Mailbox full', host: 'mx.example.test' },
      { attempt: 2, at: expect.any(String), status: 'delivered', smtpCode: 250, smtpReply: expect.stringMatching(/^250 /), host: 'mx.example.test' },
    ]);
    expect(Date.parse(attemptLog[0].at)).toBeLessThanOrEqual(Date.parse(attemptLog[1].at));
    expect(Date.parse(attemptLog[0].at)).toBeGreaterThanOrEqual(Date.parse(email.createdAt));
  });

  it('sends a retry with the Date the email was accepted at, as well as its Message-ID', async () => {
    // Two 500 ms retries put the accepted attempt a second or more after the email was accepted,
    // so a Date taken when the message is built would name a later second.
    harness.smtp.failNext(451, '4.3.0 Try again later', 2);
    const id = await send({ to: 'later@example.test' });
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 3 });
    const [message] = harness.smtp.messagesFor('later@example.test');
    const acceptedAt = new Date(email.createdAt).toUTCString().replace(/GMT$/, '+0000');
    expect(message.raw.toString().split('\r\n')).toContain(`Date: ${acceptedAt}`);
  });

  it('bounces a 5xx, suppresses the address, and suppresses the next send to it', async () => {
    harness.smtp.rejectRecipient('gone@example.test', 550, '5.1.1 No such user');
    const id = await send({ to: ['gone@example.test', 'here@example.test'] });
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    const gone = email.recipients.find((recipient: any) => recipient.address === 'gone@example.test');
    expect(gone).toMatchObject({ status: 'bounced', smtpCode: 550, smtpReply: '550 5.1.1 No such user', attempts: 1 });
    const { rows } = await harness.db.query(`SELECT reason, details FROM emails.suppressions WHERE mode = 'live' AND address = 'gone@example.test'`);
    expect(rows).toEqual([{ reason: 'bounce', details: '550 5.1.1 No such user' }]);
    expect((await eventsOf(harness.db, id)).find((event) => event.type === 'email.bounced')!.data).toMatchObject({ recipient: 'gone@example.test', smtp: { code: 550 }, suppressed: true });

    const again = await send({ to: 'gone@example.test' });
    const second = await emailReaching(harness.stack, harness.stack.rootKey, again, ['suppressed']);
    expect(second.recipients[0].status).toBe('suppressed');
    expect(harness.smtp.messagesFor('gone@example.test')).toHaveLength(0);
  });

  it('bounces without suppressing anyone when the server refuses the envelope sender', async () => {
    harness.smtp.failSender(550, '5.7.1 Sender address rejected: not owned by user');
    const id = await send({ to: ['first@example.test', 'second@example.test'] });
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['bounced']);
    for (const recipient of email.recipients) expect(recipient).toMatchObject({ status: 'bounced', smtpCode: 550, attempts: 1 });
    const { rows } = await harness.db.query(`SELECT address FROM emails.suppressions WHERE address IN ('first@example.test', 'second@example.test')`);
    expect(rows).toEqual([]);
    const bounces = (await eventsOf(harness.db, id)).filter((event) => event.type === 'email.bounced');
    expect(bounces.map((event) => event.data.suppressed)).toEqual([false, false]);

    // The refusal was about the sender: the same recipients take the next email.
    const again = await send({ to: ['first@example.test', 'second@example.test'] });
    expect((await emailReaching(harness.stack, harness.stack.rootKey, again, ['delivered'])).recipients.map((recipient: any) => recipient.status)).toEqual(['delivered', 'delivered']);
  });

  it('fails at once, suppressing nobody, when the sending domain was deleted after the email was accepted', async () => {
    await verifiedDomain(harness, 'gone.test');
    const id = await send({ from: 'hi@gone.test', to: 'kept@example.test', scheduledAt: new Date(Date.now() + 3600_000).toISOString() });
    // The deletion's in-use check and the send crossed: the domain is gone while its email waits.
    await harness.db.query(`DELETE FROM domains.domains WHERE name = 'gone.test'`);
    // Then the email comes due, as a reschedule would make it (it was scheduled 1.5 s ahead, and on a loaded
    // machine the send and the deletion could take longer than that, so the email went out before the deletion).
    await harness.db.query(`UPDATE emails.emails SET next_attempt_at = now() WHERE id = $1`, [id]);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['failed']);
    expect(email.recipients[0]).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null, smtpReply: expect.stringContaining('gone.test is no longer a sending domain') });
    const { rows } = await harness.db.query(`SELECT address FROM emails.suppressions WHERE address = 'kept@example.test'`);
    expect(rows).toEqual([]);
    expect(harness.smtp.messagesFor('kept@example.test')).toHaveLength(0);
    expect((await eventsOf(harness.db, id)).map((event) => event.type)).toEqual(['email.scheduled', 'email.queued', 'email.failed']);
  });

  it('sends nothing from a domain that failed verification after the email was accepted: it waits for the retry schedule, then fails, suppressing nobody', async () => {
    await verifiedDomain(harness, 'lapsed.test');
    const id = await send({ from: 'hi@lapsed.test', to: 'waiting@example.test', scheduledAt: new Date(Date.now() + 3600_000).toISOString() });
    // Its SPF record is gone, so verifies (one to find it missing, one to confirm) fail the domain while the email waits for its time.
    harness.dns.clear('lapsed.test');
    const domain = (await harness.stack.api.get('/v1/domains?limit=100')).body.data.find((item: { name: string }) => item.name === 'lapsed.test');
    expect((await harness.stack.api.post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('verified');
    expect((await harness.stack.api.post(`/v1/domains/${domain.id}/verify`)).body.status).toBe('failed');
    await harness.db.query(`UPDATE emails.emails SET next_attempt_at = now() WHERE id = $1`, [id]);
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['failed']);
    // The schedule has three waits: four attempts in all, none of them sent.
    expect(email.recipients[0]).toMatchObject({ status: 'failed', attempts: 4, nextAttemptAt: null, smtpCode: null, smtpReply: expect.stringContaining('lapsed.test is not verified') });
    expect(harness.smtp.messagesFor('waiting@example.test')).toHaveLength(0);
    const { rows } = await harness.db.query(`SELECT address FROM emails.suppressions WHERE address = 'waiting@example.test'`);
    expect(rows).toEqual([]);
    const types = (await eventsOf(harness.db, id)).map((event) => event.type);
    expect(types).toEqual(['email.scheduled', 'email.queued', 'email.delivery_delayed', 'email.delivery_delayed', 'email.delivery_delayed', 'email.failed']);
  });

  it('fails a recipient once the retry schedule is used up', async () => {
    harness.smtp.rejectRecipient('busy@example.test', 450, '4.2.1 Try later');
    const id = await send({ to: 'busy@example.test' });
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['failed']);
    // The schedule has three waits: four attempts in all.
    expect(email.recipients[0]).toMatchObject({ status: 'failed', attempts: 4, smtpCode: 450, nextAttemptAt: null });
    const types = (await eventsOf(harness.db, id)).map((event) => event.type);
    expect(types).toEqual(['email.queued', 'email.delivery_delayed', 'email.delivery_delayed', 'email.delivery_delayed', 'email.failed']);
  });

  it('retries while the server is down and delivers when it is back', async () => {
    await harness.smtp.stop();
    const id = await send({ to: 'patient@example.test' });
    const delayed = await eventually(async () => {
      const response = await harness.stack.api.get(`/v1/emails/${id}`);
      const recipient = response.body.recipients[0];
      return recipient.attempts >= 1 && recipient.status === 'deferred' ? response.body : undefined;
    });
    expect(delayed.status).toBe('queued');
    expect(delayed.recipients[0].nextAttemptAt).toEqual(expect.any(String));
    expect(delayed.recipients[0].smtpCode).toBeNull();
    await harness.smtp.start();
    const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    expect(email.recipients[0].status).toBe('delivered');
    expect(harness.smtp.messagesFor('patient@example.test')).toHaveLength(1);
  });

  it('tries the next MX host when the preferred one greets with a 4xx, or its address cannot be looked up', async () => {
    // The preferred host listens on another loopback address with the same port, as MX hosts share port 25.
    const busy = await startTestSmtp({ host: '127.0.0.2', port: harness.smtp.port });
    try {
      busy.failGreeting(421, '4.3.2 Too busy, try another host', 100);
      harness.dns.set('backup.test', 'MX', [
        { exchange: 'busy.backup.test', priority: 10 },
        { exchange: 'broken.backup.test', priority: 15 },
        { exchange: 'mx.backup.test', priority: 20 },
      ]);
      harness.dns.set('busy.backup.test', 'A', '127.0.0.2');
      harness.dns.servfail('broken.backup.test');
      harness.dns.set('mx.backup.test', 'A', '127.0.0.1');

      const id = await send({ to: 'someone@backup.test' });
      const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
      expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 1, smtpCode: 250 });
      expect(harness.smtp.messagesFor('someone@backup.test')).toHaveLength(1);
      // The preferred host was asked first and refused the session; it received nothing.
      expect(busy.connectionCount).toBeGreaterThanOrEqual(1);
      expect(busy.messages).toHaveLength(0);
    } finally {
      await busy.close();
      harness.dns.clear('backup.test');
      harness.dns.clear('busy.backup.test');
      harness.dns.clear('broken.backup.test');
      harness.dns.clear('mx.backup.test');
    }
  });

  it('waits for a retry instead of trying the next MX host when the connection is lost after the message was sent', async () => {
    // The preferred host takes the whole message, then goes away before it replies: it may have kept the message.
    const preferred = await startTestSmtp({ host: '127.0.0.2', port: harness.smtp.port });
    try {
      harness.dns.set('lost.test', 'MX', [
        { exchange: 'first.lost.test', priority: 10 },
        { exchange: 'second.lost.test', priority: 20 },
      ]);
      harness.dns.set('first.lost.test', 'A', '127.0.0.2');
      harness.dns.set('second.lost.test', 'A', '127.0.0.1');
      const held = preferred.holdNextData();
      const id = await send({ to: 'someone@lost.test' });
      await held.arrived;
      await preferred.stop();

      // Deferred with what happened, not handed to the second host in the same attempt; the retry delivers it
      // (through the second host, as the first is still down).
      const email = await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
      expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 2 });
      const events = await eventsOf(harness.db, id);
      expect(events.map((event) => event.type)).toEqual(['email.queued', 'email.delivery_delayed', 'email.delivered']);
      expect(events[1].data.smtp).toMatchObject({ code: null, reply: expect.stringMatching(/after the message was sent; it may have been delivered/) });
      expect(harness.smtp.messagesFor('someone@lost.test')).toHaveLength(1);
    } finally {
      await preferred.close();
      for (const name of ['lost.test', 'first.lost.test', 'second.lost.test']) harness.dns.clear(name);
    }
  });

  it('looks a domain up once for mail sent within the TTL of its records, and every time when the TTL is 0', async () => {
    const queriesFor = (name: string, type: string) => harness.dns.queries.filter((query) => query.name.toLowerCase() === name && query.type === type).length;
    routeMailTo(harness.dns, 'cached.test');
    harness.dns.ttl('cached.test', 60);
    harness.dns.ttl('mx.cached.test', 60);
    try {
      const batch = await harness.stack.api.post('/v1/emails/batch', {
        emails: Array.from({ length: 6 }, (_, index) => ({ from: 'hi@acme.test', to: `reader${index}@cached.test`, subject: 'Cached', text: 'x' })),
      });
      expect(batch.status).toBe(202);
      for (const { id } of batch.body.data) await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
      const later = await send({ to: 'later@cached.test' });
      await emailReaching(harness.stack, harness.stack.rootKey, later, ['delivered']);
      expect(harness.smtp.messages.filter((message) => message.rcptTo[0].endsWith('@cached.test'))).toHaveLength(7);
      expect(queriesFor('cached.test', 'MX')).toBe(1);
      expect(queriesFor('mx.cached.test', 'A')).toBe(1);

      // Records served with TTL 0 (every other test here) are looked up for each email.
      const before = queriesFor('example.test', 'MX');
      for (const to of ['one@example.test', 'two@example.test']) await emailReaching(harness.stack, harness.stack.rootKey, await send({ to }), ['delivered']);
      expect(queriesFor('example.test', 'MX')).toBe(before + 2);
    } finally {
      harness.dns.clear('cached.test');
      harness.dns.clear('mx.cached.test');
    }
  });

  it('sends a scheduled email on time and not before', async () => {
    // A scheduled email reaches the server no later than an email due at once would, plus a few polls: how long that
    // takes is measured here, not assumed. It is most of the lateness: some 30 ms on a quiet machine, 0.8 s for a
    // process's first delivery, and ten times as long on a loaded CI machine (where a fixed 1 s bound failed).
    const sentNowAt = Date.now();
    await send({ to: 'now@example.test' });
    const dueNow = await eventually(() => harness.smtp.messagesFor('now@example.test')[0], 60_000, 20);
    const deliveryMs = dueNow.receivedAt.getTime() - sentNowAt;

    const scheduledAt = new Date(Date.now() + 2500);
    const id = await send({ to: 'later@example.test', scheduledAt: scheduledAt.toISOString() });
    const message = await eventually(() => harness.smtp.messagesFor('later@example.test')[0], 60_000, 20);
    expect(message.receivedAt.getTime()).toBeGreaterThanOrEqual(scheduledAt.getTime());
    expect(message.receivedAt.getTime() - scheduledAt.getTime()).toBeLessThan(deliveryMs + 1000);
    // The message reaches the server just before the outcome commits.
    await emailReaching(harness.stack, harness.stack.rootKey, id, ['delivered']);
    const events = (await eventsOf(harness.db, id)).map((event) => event.type);
    expect(events).toEqual(['email.scheduled', 'email.queued', 'email.delivered']);
  });
});
