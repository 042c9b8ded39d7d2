import { Client } from 'pg';
import { ApiClient, eventually, scrapeMetrics, startExtraGateway, startStack, Stack, untilBlockedBy } from '@mailroom/testing';
import { emailBody, inOneDay, queryDatabase } from './emails-api-fixtures';

describe('POST /v1/emails', () => {
  let stack: Stack;
  let test: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ env: { RATE_LIMIT_PER_SECOND: '0' } });
    test = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
  });
  afterAll(() => stack?.stop());

  const keyWaits = async () => (await scrapeMetrics(stack.opsUrl('emails'))).value('mailroom_idempotency_key_waits_total');
  const countEmails = async () => (await queryDatabase<{ n: number }>(stack.databaseUrl, 'SELECT count(*)::int AS n FROM emails.emails'))[0].n;

  it('accepts an email with 202 and answers the full email object, committed with its recipients and outbox event', async () => {
    const response = await test.post(
      '/v1/emails',
      emailBody({
        to: 'Ann <Ann@Example.com>',
        cc: ['bob@example.com'],
        bcc: 'carl@example.com',
        replyTo: 'support@acme.test',
        html: '<p>Hi <img src="cid:logo"></p>',
        headers: { 'X-Campaign': 'spring' },
        attachments: [{ filename: 'logo.png', content: Buffer.from('png-bytes').toString('base64'), contentType: 'image/png', contentId: 'logo' }],
        tags: ['welcome', 'beta_1'],
        metadata: { userId: '42' },
        tracking: { opens: false },
      }),
    );
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({
      object: 'email',
      from: 'Acme <hi@acme.test>',
      to: ['Ann <Ann@Example.com>'],
      cc: ['bob@example.com'],
      bcc: ['carl@example.com'],
      replyTo: ['support@acme.test'],
      subject: 'Hello',
      status: 'queued',
      headers: { 'X-Campaign': 'spring' },
      attachments: [{ filename: 'logo.png', contentType: 'image/png', contentId: 'logo', size: 9 }],
      tags: ['welcome', 'beta_1'],
      metadata: { userId: '42' },
      opens: 0,
      clicks: 0,
      scheduledAt: null,
      tracking: { opens: false, clicks: null },
    });
    expect(response.body.id).toMatch(/^email_[0-9A-Z]{26}$/);
    expect(new Date(response.body.createdAt).toISOString()).toBe(response.body.createdAt);
    // Shown as sent to: the local part as written, the domain lower-case.
    expect(response.body.recipients.map((r: { address: string; kind: string }) => [r.address, r.kind])).toEqual([
      ['Ann@example.com', 'to'],
      ['bob@example.com', 'cc'],
      ['carl@example.com', 'bcc'],
    ]);
    const [row] = await queryDatabase(stack.databaseUrl, 'SELECT message_id, status, next_attempt_at FROM emails.emails WHERE id = $1', [response.body.id]);
    expect(row.message_id).toBe(`<${response.body.id}@acme.test>`);
    // Queued for the worker: still waiting with its next attempt due, or (test mode delivers at once) claimed and delivered already.
    expect(row.status === 'delivered' || (row.status === 'queued' && row.next_attempt_at !== null)).toBe(true);
    // Only the acceptance's own event: a test-mode email may already be delivered, with its delivery events beside it.
    const events = await queryDatabase(stack.databaseUrl, `SELECT type, mode, data FROM emails.outbox WHERE data->>'emailId' = $1 AND type = 'email.queued'`, [
      response.body.id,
    ]);
    expect(events).toEqual([{ type: 'email.queued', mode: 'test', data: expect.objectContaining({ emailId: response.body.id, subject: 'Hello' }) }]);

    // The interface's retrieve-only fields, read back as sent; the timestamps null (not absent) until they happen.
    const retrieved = await test.get(`/v1/emails/${response.body.id}`);
    expect(retrieved.status).toBe(200);
    expect(retrieved.body).toMatchObject({
      id: response.body.id,
      object: 'email',
      cc: ['bob@example.com'],
      bcc: ['carl@example.com'],
      html: '<p>Hi <img src="cid:logo"></p>',
      text: emailBody().text,
      tags: ['welcome', 'beta_1'],
      metadata: { userId: '42' },
      opens: 0,
      clicks: 0,
      firstOpenedAt: null,
      lastOpenedAt: null,
      createdAt: response.body.createdAt,
    });
    // Test mode delivers at once: by now the email may be delivered, and then only.
    const { status, deliveredAt } = retrieved.body;
    expect({ status, deliveredAt }).toEqual(status === 'delivered' ? { status, deliveredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) } : { status: 'queued', deliveredAt: null });
  });

  it('answers a batch in the list envelope of the interface: every email accepted, hasMore false and totalCount their number', async () => {
    const response = await test.post('/v1/emails/batch', [emailBody({ subject: 'first' }), emailBody({ subject: 'second' })]);
    expect(response.status).toBe(202);
    expect(Object.keys(response.body).sort()).toEqual(['data', 'hasMore', 'object', 'totalCount']);
    expect(response.body).toMatchObject({ object: 'list', hasMore: false, totalCount: 2 });
    expect(response.body.data.map((item: { subject: string }) => item.subject)).toEqual(['first', 'second']);
  });

  it('takes an optional field sent as null as not given, for single sends and batches', async () => {
    const nulls = { cc: null, bcc: null, replyTo: null, html: null, headers: null, attachments: null, tags: null, metadata: null, scheduledAt: null, tracking: null };
    const single = await test.post('/v1/emails', { ...emailBody(), ...nulls });
    expect(single.status).toBe(202);
    expect(single.body).toMatchObject({ cc: [], bcc: [], replyTo: [], headers: {}, attachments: [], tags: [], metadata: {}, scheduledAt: null, status: 'queued' });
    const batch = await test.post('/v1/emails/batch', { emails: [{ ...emailBody(), ...nulls }] });
    expect(batch.status).toBe(202);
    expect(batch.body.data).toHaveLength(1);
  });

  it('keeps metadata keys and custom headers named like members of Object.prototype, in a send and a batch', async () => {
    const metadata = { constructor: 'c', toString: 't', valueOf: 'v', userId: '7' };
    const headers = { hasOwnProperty: 'h', 'X-Plain': 'p' };
    const single = await test.post('/v1/emails', emailBody({ metadata, headers }));
    expect(single.status).toBe(202);
    const stored = await test.get(`/v1/emails/${single.body.id}`);
    expect(stored.body).toMatchObject({ metadata, headers });
    const batch = await test.post('/v1/emails/batch', { emails: [emailBody({ metadata })] });
    expect(batch.status).toBe(202);
    expect((await test.get(`/v1/emails/${batch.body.data[0].id}`)).body.metadata).toEqual(metadata);
  });

  it('starts an email with scheduledAt as scheduled, due at that time', async () => {
    const at = inOneDay();
    const response = await test.post('/v1/emails', emailBody({ scheduledAt: at }));
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ status: 'scheduled', scheduledAt: at });
    const [row] = await queryDatabase(stack.databaseUrl, 'SELECT next_attempt_at FROM emails.emails WHERE id = $1', [response.body.id]);
    expect((row.next_attempt_at as Date).toISOString()).toBe(at);
  });

  it('never schedules an email before a scheduledAt finer than a millisecond (as Python\'s isoformat() writes it), in a send and a reschedule', async () => {
    const whole = Math.floor((Date.now() + 24 * 3600 * 1000) / 1000) * 1000;
    const finer = (ms: number) => new Date(ms).toISOString().replace('Z', '500+00:00'); // …00.000500: half a millisecond past ms
    const response = await test.post('/v1/emails', emailBody({ scheduledAt: finer(whole) }));
    expect(response.status).toBe(202);
    expect(response.body.scheduledAt).toBe(new Date(whole + 1).toISOString());
    const rescheduled = await test.patch(`/v1/emails/${response.body.id}`, { scheduledAt: finer(whole + 60_000) });
    expect(rescheduled.body.scheduledAt).toBe(new Date(whole + 60_001).toISOString());
    const [row] = await queryDatabase(stack.databaseUrl, 'SELECT next_attempt_at FROM emails.emails WHERE id = $1', [response.body.id]);
    expect((row.next_attempt_at as Date).toISOString()).toBe(new Date(whole + 60_001).toISOString());
  });

  describe('validation: 422 naming the field, nothing stored', () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['missing from', { from: undefined }, /^from: /],
      ['from not an address', { from: 'Acme' }, /^from: 'Acme' is not a valid email address/],
      // It went out as "Acme ceo@bank.example" <…>: a display name showing an address of a domain nobody verified.
      ['from with a second <addr>', { from: 'Acme <hi@acme.test> <ceo@bank.example>' }, /^from: 'Acme <hi@acme.test> <ceo@bank.example>' is not a valid email address/],
      // Without angle brackets the second address became the name: it went out as From: "ceo@bank.example" <hi@acme.test>.
      ['from with a second bare address', { from: 'hi@acme.test ceo@bank.example' }, /^from: 'hi@acme.test ceo@bank.example' is not a valid email address/],
      // nodemailer folds an address header only between words: one word of a name longer than a line went out as a line of over 998 characters.
      ['a from name holding a word longer than a line', { from: `${'A'.repeat(1000)} <hi@acme.test>` }, /^from: the display name holds a word too long for one line of the message/],
      ['a quoted cc name holding a word longer than a line', { cc: ['ok@example.com', `"${'a,'.repeat(500)}" <b@example.com>`] }, /^cc\[1\]: the display name holds a word too long for one line of the message/],
      ['bad address in to[1]', { to: ['a@example.com', 'x@'] }, /^to\[1\]: 'x@' is not a valid email address/],
      ['bad single to', { to: 'nobody' }, /^to: 'nobody' is not a valid email address/],
      ['an internationalized local part', { cc: ['ok@example.com', 'Jörg <jörg@bücher.example>'] }, /^cc\[1\]: 'Jörg <jörg@bücher.example>' is not an address Mailroom sends to: its local part \(before the @\) is not ASCII, which needs SMTPUTF8 \(RFC 6531\)/],
      ['an IP literal', { to: 'a@[192.0.2.1]' }, /^to: 'a@\[192.0.2.1\]' is not an address Mailroom sends to: its domain is an IP address literal; use a host name/],
      // Its punycode form dropped the tab (a@x.xn--testx-nva.test) while the To header showed a@x.test.
      ['an internationalized domain holding a tab', { to: 'a@x.testü\tx.test' }, /^to: "a@x\.testü\\tx\.test" is not a valid email address/],
      ['two addresses in one entry', { to: ['a@example.com, b@example.com'] }, /^to\[0\]: /],
      ['empty to', { to: [] }, /^to: must be a string or an array of 1 to 50 strings/],
      ['51 recipients', { to: Array.from({ length: 51 }, (_, i) => `u${i}@example.com`) }, /^to: /],
      ['to of the wrong type', { to: 42 }, /^to: /],
      ['bad cc', { cc: ['ok@example.com', 'bad@@example.com'] }, /^cc\[1\]: /],
      ['bad bcc', { bcc: 'bad' }, /^bcc: /],
      ['bad replyTo', { replyTo: ['reply@nowhere'] }, /^replyTo\[0\]: /],
      ['missing subject', { subject: undefined }, /^subject: /],
      ['subject too long', { subject: 'x'.repeat(999) }, /^subject: /],
      ['subject with CR LF', { subject: 'Hi\r\nBcc: evil@example.com' }, /^subject: must not contain CR or LF/],
      ['subject of the wrong type', { subject: 123 }, /^subject: must be a string$/],
      // A blank subject left the delivered message with no Subject header at all.
      ['blank subject', { subject: ' \t\u00a0 ' }, /^subject: must not be blank$/],
      ['tags as one string', { tags: 'welcome' }, /^tags: must be an array$/],
      ['attachments as an object', { attachments: { filename: 'a.txt', content: 'aGk=' } }, /^attachments: must be an array$/],
      ['no html nor text', { text: undefined }, /^html: html or text/],
      ['html of the wrong type', { html: 5 }, /^html: /],
      ['header with CR LF', { headers: { 'X-A': 'a\r\nBcc: evil@example.com' } }, /^headers\.X-A: must not contain CR or LF/],
      ['blank header value', { headers: { 'X-Campaign': '  ' } }, /^headers\.X-Campaign: must not be blank$/],
      ['contentId that is no msg-id', { attachments: [{ filename: 'a.png', content: 'AAAA', contentId: 'logo"(1),x' }] }, /^attachments\[0\]\.contentId: must be letters, digits/],
      ['header overriding From', { headers: { from: 'evil@example.com' } }, /^headers\.from: is set by Mailroom/],
      ['header overriding Message-ID', { headers: { 'MESSAGE-ID': '<x@y>' } }, /^headers\.MESSAGE-ID: /],
      ['header overriding DKIM-Signature', { headers: { 'Dkim-Signature': 'v=1' } }, /^headers\.Dkim-Signature: /],
      ['header overriding Date', { headers: { Date: 'now' } }, /^headers\.Date: /],
      // The envelope sender, bounces@<from domain>, is what a receiver writes as Return-Path.
      ['header setting Return-Path', { headers: { 'Return-Path': '<bounce@elsewhere.example>' } }, /^headers\.Return-Path: is set by Mailroom/],
      ['header setting Sender', { headers: { sender: 'Someone Else <ceo@elsewhere.example>' } }, /^headers\.sender: would show another sender than from/],
      ['header making the whole message an attachment', { headers: { 'Content-Disposition': 'attachment; filename=x.exe' } }, /^headers\.Content-Disposition: is set by Mailroom/],
      ['a forged trace header', { headers: { RECEIVED: 'from mail.bank.example by mx.example' } }, /^headers\.RECEIVED: is added by the servers/],
      ['forged authentication results', { headers: { 'Authentication-Results': 'mx.example; dkim=pass; spf=pass' } }, /^headers\.Authentication-Results: is added by the servers/],
      ['a forged ARC seal', { headers: { 'ARC-Seal': 'i=1; a=rsa-sha256; cv=none' } }, /^headers\.ARC-Seal: is added by the servers/],
      ['header name of 129 characters', { headers: { ['X-' + 'n'.repeat(127)]: 'v' } }, /^headers: header names must be at most 128 characters \('X-n{22}…' has 129\)$/],
      ['header name with a colon', { headers: { 'X:A': 'v' } }, /^headers\.X:A: is not a valid header name/],
      ['header value not a string', { headers: { 'X-A': 1 } }, /^headers: must be an object whose values are strings/],
      ['attachment without filename', { attachments: [{ content: 'aGk=' }] }, /^attachments\[0\]\.filename: /],
      ['attachment filename with a path', { attachments: [{ filename: '../../etc/passwd', content: 'aGk=' }] }, /^attachments\[0\]\.filename: must be a file name without a path/],
      ['attachment filename with a backslash', { attachments: [{ filename: 'C:\\temp\\a.txt', content: 'aGk=' }] }, /^attachments\[0\]\.filename: must be a file name without a path/],
      ['attachment filename with CR LF', { attachments: [{ filename: 'a.txt\r\nX-Evil: 1', content: 'aGk=' }] }, /^attachments\[0\]\.filename: .*no control characters/],
      ['attachment not base64', { attachments: [{ filename: 'a.txt', content: 'not base64!' }] }, /^attachments\[0\]\.content: must be base64/],
      ['attachment with a bad content type', { attachments: [{ filename: 'a.txt', content: 'aGk=', contentType: 'text' }] }, /^attachments\[0\]\.contentType: /],
      // A multipart type made the part a container with no parts: the file was left out of the message.
      ['a multipart attachment', { attachments: [{ filename: 'a.bin', content: 'aGk=', contentType: 'Multipart/Mixed' }] }, /^attachments\[0\]\.contentType: must not be multipart\/\*/],
      // message/* parts are sent unencoded (RFC 2046 §5.2.1): bare LFs, 8-bit bytes or long lines would go on the wire.
      ...(
        [
          ['with a bare LF', 'Subject: hi\n\nhello\n'],
          ['with 8-bit bytes', 'Subject: hi\r\n\r\nGrüße\r\n'],
          ['with a line over 998 characters', `Subject: hi\r\n\r\n${'x'.repeat(999)}\r\n`],
        ] as const
      ).map(
        ([problem, eml]): [string, Record<string, unknown>, RegExp] => [
          `a message/rfc822 attachment ${problem}`,
          { attachments: [{ filename: 'a.txt', content: 'aGk=' }, { filename: 'fwd.eml', content: Buffer.from(eml).toString('base64'), contentType: 'message/rfc822' }] },
          /^attachments\[1\]\.content: a message\/rfc822 attachment is sent unencoded/,
        ],
      ),
      ['21 tags', { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, /^tags: /],
      ['tag with a space', { tags: ['ok', 'not ok'] }, /^tags\[1\]: must contain only/],
      ['tag too long', { tags: ['x'.repeat(257)] }, /^tags\[0\]: must be at most 256 characters$/],
      ['metadata not flat', { metadata: { a: { b: 'c' } } }, /^metadata: must be an object whose values are strings/],
      ['51 metadata keys', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, /^metadata: at most 50 keys/],
      ['scheduledAt not ISO 8601', { scheduledAt: 'tomorrow' }, /^scheduledAt: must be an ISO 8601 timestamp/],
      ['scheduledAt in the past', { scheduledAt: '2020-01-01T00:00:00Z' }, /^scheduledAt: must be in the future/],
      ['scheduledAt beyond 30 days', { scheduledAt: new Date(Date.now() + 31 * 24 * 3600 * 1000).toISOString() }, /^scheduledAt: must be at most 30 days ahead/],
      ['tracking of the wrong type', { tracking: { opens: 'yes' } }, /^tracking\.opens: /],
      ['tracking as an array', { tracking: [] }, /^tracking: must be an object$/],
      ['tracking as an array of objects', { tracking: [{ opens: false }] }, /^tracking: must be an object$/],
      ['tracking as a string', { tracking: 'yes' }, /^tracking: must be an object$/],
      ['an attachment as a string', { attachments: ['a.txt'] }, /^attachments\[0\]: must be an object$/],
      ['unknown field', { fromm: 'x' }, /^fromm: is not a known field/],
      ['subject with NUL', { subject: 'Hi\u0000there' }, /^subject: must not contain the NUL character/],
      ['metadata value with NUL', { metadata: { order: '1\u00002' } }, /^metadata\.order: must not contain the NUL character/],
    ];

    it.each(cases)('%s', async (_name, override, message) => {
      const before = await countEmails();
      const response = await test.post('/v1/emails', emailBody(override));
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe('validation_error');
      expect(response.body.error.message).toMatch(message);
      expect(await countEmails()).toBe(before);
    });

    it.each([
      ['an email wrapped in an array', (email: object) => [[email]], /^emails\[0\]: must be an object$/],
      ['a number after an email', (email: object) => [email, 1], /^emails\[1\]: must be an object$/],
      ['an email with tracking as an array', (email: object) => [{ ...email, tracking: [] }], /^emails\[0\]\.tracking: must be an object$/],
    ])('a batch with %s, as a bare array and as { emails }', async (_name, items, message) => {
      const before = await countEmails();
      for (const body of [items(emailBody()), { emails: items(emailBody()) }]) {
        const response = await test.post('/v1/emails/batch', body);
        expect(response.status).toBe(422);
        expect(response.body.error).toEqual({ code: 'validation_error', message: expect.stringMatching(message) });
      }
      expect(await countEmails()).toBe(before);
    });

    // 64 is MESSAGE_QUOTE_MAX_LENGTH: a name or value longer than that is quoted by its start and its length, not whole.
    it.each([
      ['a 100,000-character unknown field name', { ['f'.repeat(100_000)]: 1 }, `"${'f'.repeat(64)}…" (100000 characters): is not a known field`],
      ['a 100,000-character metadata key', { metadata: { ['k'.repeat(100_000)]: 'v' } }, `metadata."${'k'.repeat(64)}…" (100000 characters): keys must be 1 to 256 characters`],
      ['a 100,000-character address', { to: `${'a'.repeat(100_000)}@` }, `to: '${'a'.repeat(64)}…' (100001 characters) is not a valid email address`],
    ])('%s is named by its start and length, in an answer under 2 KB', async (_name, override, message) => {
      const response = await test.post('/v1/emails', emailBody(override));
      expect(response.status).toBe(422);
      expect(response.body.error).toEqual({ code: 'validation_error', message });
      expect(Buffer.byteLength(JSON.stringify(response.body))).toBeLessThan(2048);
    });

    // An emoji is one character and two UTF-16 code units: the subject and a filename already count characters.
    it('counts characters, not UTF-16 code units, in header values and metadata keys and values, as in the subject', async () => {
      const emoji = (count: number) => '🎉'.repeat(count);
      const within = { subject: emoji(998), headers: { 'X-Party': emoji(998) }, metadata: { [emoji(256)]: emoji(2048) } };
      const accepted = await test.post('/v1/emails', emailBody(within));
      expect([accepted.status, accepted.body.error]).toEqual([202, undefined]);
      for (const [override, message] of [
        [{ headers: { 'X-Party': emoji(999) } }, 'headers.X-Party: must be at most 998 characters'],
        [{ metadata: { party: emoji(2049) } }, 'metadata.party: must be at most 2048 characters'],
      ] as const) {
        const refused = await test.post('/v1/emails', emailBody(override));
        expect([refused.status, refused.body.error.message]).toEqual([422, message]);
      }
      const longKey = await test.post('/v1/emails', emailBody({ metadata: { [emoji(257)]: 'v' } }));
      expect([longKey.status, longKey.body.error.message]).toEqual([422, expect.stringMatching(/^metadata\."(?:🎉)+…" \(\d+ characters\): keys must be 1 to 256 characters$/)]);
    });

    it('a bad Idempotency-Key header', async () => {
      const response = await test.post('/v1/emails', emailBody(), { headers: { 'idempotency-key': 'has space' } });
      expect(response.status).toBe(422);
      expect(response.body.error.message).toMatch(/^Idempotency-Key: /);
    });
  });

  it('answers 413 payload_too_large for a body over BODY_LIMIT_BYTES', async () => {
    const response = await test.post('/v1/emails', emailBody({ text: 'x'.repeat(11 * 1024 * 1024) }));
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('payload_too_large');
  });

  it('answers 413 when an email is larger than the message bus carries', async () => {
    const content = Buffer.alloc(2 * 1024 * 1024, 1).toString('base64');
    const response = await test.post('/v1/emails', emailBody({ attachments: [{ filename: 'big.bin', content }] }));
    expect(response.status).toBe(413);
    expect(response.body.error.message).toMatch(/max_payload/);
  });

  it('refuses with 413, storing nothing, an email that would not fit the message bus when read back with its recipients, and reads back one that does', async () => {
    // 150 recipients: each gains a delivery outcome that the request did not carry.
    const addresses = (kind: string) => Array.from({ length: 50 }, (_, i) => `${kind}${i}-a-rather-long-local-part@recipients.example.com`);
    const body = (size: number) => emailBody({ to: addresses('to'), cc: addresses('cc'), bcc: addresses('bcc'), html: 'h'.repeat(size), text: 't'.repeat(size) });
    const before = await countEmails();
    // Its request fits; its answer did not, so it was stored and then answered 503 after RPC_TIMEOUT_MS.
    const refused = await test.post('/v1/emails', body(510_000));
    expect(refused.status).toBe(413);
    expect(refused.body.error.message).toMatch(/room for each recipient's delivery outcome.*max_payload/);
    expect(await countEmails()).toBe(before);
    const accepted = await test.post('/v1/emails', body(300_000));
    expect(accepted.status).toBe(202);
    const read = await test.get(`/v1/emails/${accepted.body.id}`);
    expect(read.status).toBe(200);
    expect([read.body.html.length, read.body.recipients.length]).toEqual([300_000, 150]);
  });

  it('keeps that room per email, not for all the recipients of a batch together: 100 emails of 10 recipients each are accepted', async () => {
    const recipients = Array.from({ length: 10 }, (_, i) => `r${i}@example.com`);
    const response = await test.post('/v1/emails/batch', { emails: Array.from({ length: 100 }, () => emailBody({ to: recipients })) });
    expect(response.status).toBe(202);
    expect(response.body.data).toHaveLength(100);
  });

  describe('live mode', () => {
    it('refuses a from domain that is not a verified domain, naming it', async () => {
      const response = await stack.api.post('/v1/emails', emailBody({ from: 'hi@unknown-sender.test' }));
      expect(response.status).toBe(422);
      expect(response.body.error.message).toMatch(/^from: the domain 'unknown-sender\.test' is not/);
    });

    it('applies domainRestrictions to the from domain with 403 naming the domain', async () => {
      const restricted = stack.api.withKey((await stack.issueKey({ mode: 'test', domainRestrictions: ['allowed.test'] })).key);
      const refused = await restricted.post('/v1/emails', emailBody({ from: 'hi@acme.test' }));
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/'acme\.test' is not one of them/);
      expect((await restricted.post('/v1/emails', emailBody({ from: 'hi@allowed.test' }))).status).toBe(202);
    });

    it('reads a restriction written as an internationalized name as the domain mail comes from', async () => {
      const created = await test.post('/v1/api-keys', { name: 'idn', permissions: ['emails:send'], domainRestrictions: ['bücher.test'] });
      expect(created.body.domainRestrictions).toEqual(['xn--bcher-kva.test']);
      const restricted = stack.api.withKey(created.body.key);
      expect((await restricted.post('/v1/emails', emailBody({ from: 'hi@bücher.test' }))).status).toBe(202);
      expect((await restricted.post('/v1/emails', emailBody({ from: 'hi@xn--bcher-kva.test' }))).status).toBe(202);
      const patched = await test.patch(`/v1/api-keys/${created.body.id}`, { domainRestrictions: ['bücher.test', 'xn--bcher-kva.test'] });
      expect(patched.body.domainRestrictions).toEqual(['xn--bcher-kva.test']);
    });

    it('needs emails:send', async () => {
      const reader = stack.api.withKey((await stack.issueKey({ mode: 'test', permissions: ['emails:read', 'emails:list'] })).key);
      const response = await reader.post('/v1/emails', emailBody());
      expect(response.status).toBe(403);
      expect(response.body.error.message).toMatch(/emails:send/);
    });
  });

  describe('suppressed recipients', () => {
    it('marks suppressed recipients and sends to the rest', async () => {
      await test.post('/v1/suppressions', { email: 'Gone@Example.com' });
      const response = await test.post('/v1/emails', emailBody({ to: ['gone@example.com', 'here@example.com'], scheduledAt: inOneDay() }));
      expect(response.status).toBe(202);
      expect(response.body.status).toBe('scheduled');
      const statuses = Object.fromEntries(response.body.recipients.map((r: { address: string; status: string }) => [r.address, r.status]));
      expect(statuses).toEqual({ 'gone@example.com': 'suppressed', 'here@example.com': 'queued' });
    });

    it('makes an email whose every recipient is suppressed `suppressed`, never queued', async () => {
      await test.post('/v1/suppressions', { email: 'a@blocked.test' });
      await test.post('/v1/suppressions', { email: 'b@blocked.test' });
      const response = await test.post('/v1/emails', emailBody({ to: 'a@blocked.test', cc: 'B@blocked.test' }));
      expect(response.status).toBe(202);
      expect(response.body.status).toBe('suppressed');
      const [row] = await queryDatabase(stack.databaseUrl, 'SELECT status, next_attempt_at FROM emails.emails WHERE id = $1', [response.body.id]);
      expect(row).toEqual({ status: 'suppressed', next_attempt_at: null });
      const events = await queryDatabase(stack.databaseUrl, `SELECT type FROM emails.outbox WHERE data->>'emailId' = $1`, [response.body.id]);
      expect(events).toEqual([{ type: 'email.suppressed' }]);
    });

    it('applies the list to a send with an Idempotency-Key too, and its replay answers the same', async () => {
      await test.post('/v1/suppressions', { email: 'keyed-gone@example.com' });
      const headers = { 'idempotency-key': 'suppressed-keyed-1' };
      const body = emailBody({ to: ['keyed-gone@example.com', 'keyed-here@example.com'] });
      const first = await test.post('/v1/emails', body, { headers });
      expect(first.status).toBe(202);
      const statuses = Object.fromEntries(first.body.recipients.map((r: { address: string; status: string }) => [r.address, r.status]));
      expect(statuses).toEqual({ 'keyed-gone@example.com': 'suppressed', 'keyed-here@example.com': 'queued' });
      const replay = await test.post('/v1/emails', body, { headers });
      expect(replay.body).toEqual(first.body);
      const rows = await queryDatabase(stack.databaseUrl, `SELECT id FROM emails.emails WHERE 'keyed-here@example.com' = ANY("to")`);
      expect(rows).toEqual([{ id: first.body.id }]);
    });

    it('keeps live and test suppression lists apart', async () => {
      await test.post('/v1/suppressions', { email: 'test-only@example.com' });
      const live = await stack.api.get('/v1/suppressions');
      expect(live.body.data.map((s: { email: string }) => s.email)).not.toContain('test-only@example.com');
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer for the same body and creates nothing new', async () => {
      const headers = { 'idempotency-key': 'replay-1' };
      const first = await test.post('/v1/emails', emailBody({ subject: 'once' }), { headers });
      const before = await countEmails();
      // Same body with its keys in another order is the same request.
      const again = await test.post('/v1/emails', { text: 'Hi there', subject: 'once', to: ['ann@example.com'], from: 'Acme <hi@acme.test>' }, { headers });
      expect(first.status).toBe(202);
      expect(again.status).toBe(202);
      expect(again.body).toEqual(first.body);
      // The very same answer, keys in the same order, not an equal object reordered by storage.
      expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body));
      expect(await countEmails()).toBe(before);
    });

    it('replays a batch in the list envelope, also when its answer was stored by a release that kept only object and data', async () => {
      const headers = { 'idempotency-key': 'batch-envelope-1' };
      const first = await test.post('/v1/emails/batch', [emailBody({ subject: 'stored batch' })], { headers });
      expect(first.body).toMatchObject({ hasMore: false, totalCount: 1 });
      await queryDatabase(stack.databaseUrl, `UPDATE emails.idempotency_keys SET response = (response::jsonb - 'hasMore' - 'totalCount')::json WHERE key = 'batch-envelope-1'`);
      const again = await test.post('/v1/emails/batch', [emailBody({ subject: 'stored batch' })], { headers });
      expect(again.status).toBe(202);
      expect(again.body).toEqual(first.body);
    });

    it('answers 409 for the same key with a different body', async () => {
      const headers = { 'idempotency-key': 'conflict-1' };
      expect((await test.post('/v1/emails', emailBody({ subject: 'a' }), { headers })).status).toBe(202);
      const response = await test.post('/v1/emails', emailBody({ subject: 'b' }), { headers });
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('conflict');
    });

    it('takes a string and a one-item array for `to` as different bodies, as the README says', async () => {
      const headers = { 'idempotency-key': 'string-or-array-1' };
      expect((await test.post('/v1/emails', emailBody({ subject: 'string or array', to: 'ann@example.com' }), { headers })).status).toBe(202);
      const response = await test.post('/v1/emails', emailBody({ subject: 'string or array', to: ['ann@example.com'] }), { headers });
      expect(response.status).toBe(409);
      expect(response.body.error.message).toBe(
        "The Idempotency-Key 'string-or-array-1' was already used with a different request; use a new key for a new request.",
      );
    });

    it('takes a batch as {emails: [...]} and as a bare array as one request, as it takes them for the same batch', async () => {
      const headers = { 'idempotency-key': 'batch-forms-1' };
      const emails = [emailBody({ subject: 'batch forms' })];
      const wrapped = await test.post('/v1/emails/batch', { emails }, { headers });
      expect(wrapped.status).toBe(202);
      const bare = await test.post('/v1/emails/batch', emails, { headers });
      expect(bare.status).toBe(202);
      expect(bare.body).toEqual(wrapped.body);
      expect(await queryDatabase(stack.databaseUrl, `SELECT id FROM emails.emails WHERE subject = 'batch forms'`)).toEqual([{ id: wrapped.body.data[0].id }]);
    });

    it('takes an optional field sent as null as the same request as one left out, as it takes the field itself', async () => {
      const headers = { 'idempotency-key': 'null-is-absent-1' };
      const first = await test.post('/v1/emails', emailBody({ subject: 'null or absent', cc: null, attachments: [{ filename: 'a.txt', content: 'aGk=', contentType: null }] }), { headers });
      expect(first.status).toBe(202);
      const again = await test.post('/v1/emails', emailBody({ subject: 'null or absent', attachments: [{ filename: 'a.txt', content: 'aGk=' }] }), { headers });
      expect(again.status).toBe(202);
      expect(again.body).toEqual(first.body);
      const rows = await queryDatabase(stack.databaseUrl, `SELECT id FROM emails.emails WHERE subject = 'null or absent'`);
      expect(rows).toEqual([{ id: first.body.id }]);
    });

    it('forgets a key after 24 hours: the same key then makes a new email, whatever the body', async () => {
      const headers = { 'idempotency-key': 'expires-1' };
      const first = await test.post('/v1/emails', emailBody({ subject: 'before expiry' }), { headers });
      await queryDatabase(stack.databaseUrl, `UPDATE emails.idempotency_keys SET created_at = now() - interval '24 hours 1 second' WHERE key = 'expires-1'`);
      const after = await test.post('/v1/emails', emailBody({ subject: 'after expiry' }), { headers });
      expect(after.status).toBe(202);
      expect(after.body.id).not.toBe(first.body.id);
      // …and the new answer is the one the key replays from now on.
      expect((await test.post('/v1/emails', emailBody({ subject: 'after expiry' }), { headers })).body.id).toBe(after.body.id);
      expect((await test.post('/v1/emails', emailBody({ subject: 'before expiry' }), { headers })).status).toBe(409);
    });

    it('lets one of 10 concurrent requests take over a key past its 24 hours, and answers the others its answer', async () => {
      const headers = { 'idempotency-key': 'expired-race-1' };
      const first = await test.post('/v1/emails', emailBody({ subject: 'expired race, before' }), { headers });
      await queryDatabase(stack.databaseUrl, `UPDATE emails.idempotency_keys SET created_at = now() - interval '24 hours 1 second' WHERE key = 'expired-race-1'`);
      const responses = await Promise.all(Array.from({ length: 10 }, () => test.post('/v1/emails', emailBody({ subject: 'expired race, after' }), { headers })));
      expect(responses.map((r) => r.status)).toEqual(Array(10).fill(202));
      expect(new Set(responses.map((r) => JSON.stringify(r.body)))).toEqual(new Set([JSON.stringify(responses[0].body)]));
      expect(responses[0].body.id).not.toBe(first.body.id);
      expect(await queryDatabase(stack.databaseUrl, `SELECT id FROM emails.emails WHERE subject = 'expired race, after'`)).toEqual([{ id: responses[0].body.id }]);
    });

    it('scopes keys per API key', async () => {
      const other = stack.api.withKey((await stack.issueKey({ mode: 'test' })).key);
      const headers = { 'idempotency-key': 'scoped-1' };
      const mine = await test.post('/v1/emails', emailBody(), { headers });
      const theirs = await other.post('/v1/emails', emailBody(), { headers });
      expect(theirs.status).toBe(202);
      expect(theirs.body.id).not.toBe(mine.body.id);
    });

    it('creates exactly one email for 10 concurrent requests with one key', async () => {
      const headers = { 'idempotency-key': 'concurrent-1' };
      const responses = await Promise.all(Array.from({ length: 10 }, () => test.post('/v1/emails', emailBody({ subject: 'race' }), { headers })));
      expect(responses.map((r) => r.status)).toEqual(Array(10).fill(202));
      // Every answer is the first one, word for word, whether it created the email or waited for the one that did.
      expect(new Set(responses.map((r) => JSON.stringify(r.body)))).toEqual(new Set([JSON.stringify(responses[0].body)]));
      const rows = await queryDatabase(stack.databaseUrl, `SELECT id FROM emails.emails WHERE subject = 'race'`);
      expect(rows).toHaveLength(1);
    });

    it('makes a request that arrives while the first is still being stored wait for it, and answers it the first answer', async () => {
      // Nothing else may be writing events, so the only sends the held lock stops are the two below.
      await eventually(async () => (await queryDatabase<{ n: number }>(stack.databaseUrl, `SELECT count(*)::int AS n FROM emails.emails WHERE status = 'queued'`))[0].n === 0, 10000);
      const holder = new Client({ connectionString: stack.databaseUrl });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE emails.outbox IN EXCLUSIVE MODE');
        const headers = { 'idempotency-key': 'in-flight-1' };
        const send = () => test.post('/v1/emails', emailBody({ subject: 'in flight' }), { headers });
        const first = send();
        // The first has claimed the key and waits to write its email's event.
        await untilBlockedBy(holder);
        const waitsBefore = await keyWaits();
        const second = send();
        // The second finds the key being stored and waits. Told by the count of such waits, not by which session the
        // held lock stopped first: it also stops the outbox relay's read (a CI run took the relay for the first request).
        await eventually(async () => (await keyWaits()) === waitsBefore + 1, 10000);
        await holder.query('COMMIT');
        const [a, b] = await Promise.all([first, second]);
        expect([a.status, b.status]).toEqual([202, 202]);
        expect(JSON.stringify(b.body)).toBe(JSON.stringify(a.body));
        expect(await queryDatabase(stack.databaseUrl, `SELECT id FROM emails.emails WHERE subject = 'in flight'`)).toEqual([{ id: a.body.id }]);
      } finally {
        await holder.end();
      }
    });

    it('keeps requests waiting on a stalled send of their key off the pool: they answer 409 within 2 s, other sends go on', async () => {
      const headers = { 'idempotency-key': 'stalled-key-1' };
      await test.post('/v1/emails', emailBody({ subject: 'stalled key, before' }), { headers });
      await queryDatabase(stack.databaseUrl, `UPDATE emails.idempotency_keys SET created_at = now() - interval '24 hours 1 second' WHERE key = 'stalled-key-1'`);
      const holder = new Client({ connectionString: stack.databaseUrl });
      await holder.connect();
      try {
        // The expired key's row locked, as the purge of expired keys does: the send that takes the key over stalls on
        // it, as the first send of a key stalls on anything its transaction waits for.
        await holder.query('BEGIN');
        await holder.query(`SELECT 1 FROM emails.idempotency_keys WHERE key = 'stalled-key-1' FOR UPDATE`);
        // More requests with that key than the emails service has pooled connections (10).
        const sent = Date.now();
        const sameKey = Array.from({ length: 15 }, () => test.post('/v1/emails', emailBody({ subject: 'stalled key' }), { headers }));
        const answeredAfterMs: number[] = [];
        for (const request of sameKey) void request.then(() => answeredAfterMs.push(Date.now() - sent));
        await untilBlockedBy(holder);
        // Every other send is answered at once while they wait, whether it carries no key or another one.
        do {
          const otherKeys: Record<string, string>[] = [{}, { 'idempotency-key': `not-stalled-${answeredAfterMs.length}-${Date.now()}` }];
          for (const otherHeaders of otherKeys) {
            const started = Date.now();
            const other = await test.post('/v1/emails', emailBody({ subject: 'beside a stalled key' }), { headers: otherHeaders });
            expect([other.status, Date.now() - started < 1000]).toEqual([202, true]);
          }
        } while (answeredAfterMs.length < sameKey.length - 1);
        // 2 s after they arrived, and the time a loaded machine takes to carry the answers.
        expect(Math.max(...answeredAfterMs)).toBeLessThan(3000);
        // All but the stalled one were told to retry; that one stores its email once the row is free.
        await holder.query('COMMIT');
        const responses = await Promise.all(sameKey);
        expect(responses.map((r) => r.status).sort()).toEqual([202, ...Array(14).fill(409)]);
        for (const refused of responses.filter((r) => r.status === 409)) {
          // A code of its own, as Stripe's idempotency_key_in_use: a client tells "retry" from a conflict of bodies without reading the message.
          expect(refused.body.error).toEqual({
            code: 'idempotency_key_in_use',
            message: "A request with the Idempotency-Key 'stalled-key-1' is still being processed; retry it later with the same key.",
          });
        }
        const stored = responses.find((r) => r.status === 202)!;
        expect((await test.post('/v1/emails', emailBody({ subject: 'stalled key' }), { headers })).body.id).toBe(stored.body.id);
        expect(await queryDatabase(stack.databaseUrl, `SELECT id FROM emails.emails WHERE subject = 'stalled key'`)).toEqual([{ id: stored.body.id }]);
      } finally {
        await holder.end();
      }
    });

    it('remembers nothing of a request refused with 422: the same key then takes the corrected body, and replays that', async () => {
      const headers = { 'idempotency-key': 'fixed-after-422' };
      const refused = await test.post('/v1/emails', emailBody({ subject: 'fixed later', to: ['x@'] }), { headers });
      expect(refused.status).toBe(422);
      expect(await queryDatabase(stack.databaseUrl, `SELECT key FROM emails.idempotency_keys WHERE key = 'fixed-after-422'`)).toEqual([]);
      const fixed = await test.post('/v1/emails', emailBody({ subject: 'fixed later' }), { headers });
      expect(fixed.status).toBe(202);
      const again = await test.post('/v1/emails', emailBody({ subject: 'fixed later' }), { headers });
      expect(again.body).toEqual(fixed.body);
      // The key now belongs to the corrected body: the refused one is another request.
      expect((await test.post('/v1/emails', emailBody({ subject: 'fixed later', to: ['x@'] }), { headers })).status).toBe(409);
      expect(await queryDatabase(stack.databaseUrl, `SELECT id FROM emails.emails WHERE subject = 'fixed later'`)).toEqual([{ id: fixed.body.id }]);
    });

    it('gives one of concurrent requests with one key and different bodies the key, and answers the others 409', async () => {
      const headers = { 'idempotency-key': 'concurrent-bodies-1' };
      const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => test.post('/v1/emails', emailBody({ subject: `rival ${i}` }), { headers })));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([202, ...Array(9).fill(409)]);
      const winner = responses.find((r) => r.status === 202)!;
      for (const loser of responses.filter((r) => r.status === 409)) expect(loser.body.error.code).toBe('conflict');
      expect(await queryDatabase(stack.databaseUrl, `SELECT id FROM emails.emails WHERE subject LIKE 'rival %'`)).toEqual([{ id: winner.body.id }]);
    });

    it('keeps nothing of a batch refused with 422 for one invalid email: the corrected batch then takes the key', async () => {
      const headers = { 'idempotency-key': 'batch-fixed-after-422' };
      const refused = await test.post('/v1/emails/batch', [emailBody({ subject: 'batch fixed later' }), emailBody({ subject: 'batch fixed later', to: ['x@'] })], { headers });
      expect([refused.status, refused.body.error.message]).toEqual([422, "emails[1].to[0]: 'x@' is not a valid email address"]);
      expect(await queryDatabase(stack.databaseUrl, `SELECT key FROM emails.idempotency_keys WHERE key = 'batch-fixed-after-422'`)).toEqual([]);
      const corrected = [emailBody({ subject: 'batch fixed later' }), emailBody({ subject: 'batch fixed later', to: ['bob@example.com'] })];
      const fixed = await test.post('/v1/emails/batch', corrected, { headers });
      expect(fixed.status).toBe(202);
      expect((await test.post('/v1/emails/batch', corrected, { headers })).body).toEqual(fixed.body);
      const rows = await queryDatabase<{ id: string }>(stack.databaseUrl, `SELECT id FROM emails.emails WHERE subject = 'batch fixed later' ORDER BY id`);
      expect(rows.map((row) => row.id)).toEqual(fixed.body.data.map((item: { id: string }) => item.id).sort());
    });

    it('replays the first answer after its scheduled email was cancelled, and schedules nothing new', async () => {
      const headers = { 'idempotency-key': 'cancelled-1' };
      const body = emailBody({ subject: 'keyed then cancelled', scheduledAt: inOneDay() });
      const first = await test.post('/v1/emails', body, { headers });
      expect(first.body.status).toBe('scheduled');
      expect((await test.post(`/v1/emails/${first.body.id}/cancel`)).status).toBe(200);
      // As Stripe and Resend do: the answer the key was given, not the email's state now, and no second email.
      const again = await test.post('/v1/emails', body, { headers });
      expect([again.status, JSON.stringify(again.body)]).toEqual([202, JSON.stringify(first.body)]);
      expect(await queryDatabase(stack.databaseUrl, `SELECT id, status FROM emails.emails WHERE subject = 'keyed then cancelled'`)).toEqual([{ id: first.body.id, status: 'cancelled' }]);
    });

    it('takes a key of 1 to 256 printable ASCII characters, and refuses a longer or empty one before storing anything', async () => {
      const longest = '~'.repeat(255) + '!';
      const accepted = await test.post('/v1/emails', emailBody({ subject: 'longest key' }), { headers: { 'idempotency-key': longest } });
      expect(accepted.status).toBe(202);
      expect((await test.post('/v1/emails', emailBody({ subject: 'longest key' }), { headers: { 'idempotency-key': longest } })).body.id).toBe(accepted.body.id);
      for (const key of [`${longest}x`, '']) {
        const refused = await test.post('/v1/emails', emailBody({ subject: 'bad key' }), { headers: { 'idempotency-key': key } });
        expect(refused.status).toBe(422);
        expect(refused.body.error.message).toBe('Idempotency-Key: must be 1 to 256 printable ASCII characters without spaces');
      }
      expect(await queryDatabase(stack.databaseUrl, `SELECT id FROM emails.emails WHERE subject = 'bad key'`)).toEqual([]);
    });

    it('creates exactly one email for concurrent requests with one key split across two gateway replicas, single and batch', async () => {
      const replica = await startExtraGateway(stack);
      try {
        const clients = [test, replica.api.withKey(test.defaultKey)];
        const send = (path: string, body: unknown, key: string) => Promise.all(Array.from({ length: 10 }, (_, i) => clients[i % 2].post(path, body, { headers: { 'idempotency-key': key } })));
        const singles = await send('/v1/emails', emailBody({ subject: 'two replicas' }), 'replicas-1');
        expect(singles.map((r) => r.status)).toEqual(Array(10).fill(202));
        expect(new Set(singles.map((r) => r.body.id)).size).toBe(1);
        const batches = await send('/v1/emails/batch', [emailBody({ subject: 'two replicas, batch' }), emailBody({ subject: 'two replicas, batch' })], 'replicas-2');
        expect(batches.map((r) => r.status)).toEqual(Array(10).fill(202));
        expect(new Set(batches.map((r) => JSON.stringify(r.body)))).toEqual(new Set([JSON.stringify(batches[0].body)]));
        const rows = await queryDatabase<{ subject: string; n: number }>(
          stack.databaseUrl,
          `SELECT subject, count(*)::int AS n FROM emails.emails WHERE subject LIKE 'two replicas%' GROUP BY subject ORDER BY subject`,
        );
        expect(rows).toEqual([{ subject: 'two replicas', n: 1 }, { subject: 'two replicas, batch', n: 2 }]);
      } finally {
        await replica.close();
      }
    });
  });
});
