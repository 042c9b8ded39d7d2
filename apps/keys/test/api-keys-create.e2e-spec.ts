import { parseApiKey } from '@mailroom/auth';
import { startStack, Stack } from '@mailroom/testing';

const future = (ms: number) => new Date(Date.now() + ms).toISOString();
const DAY = 86_400_000;

describe('POST /v1/api-keys', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ apps: ['keys', 'gateway'] });
  });
  afterAll(() => stack?.stop());

  describe('creation', () => {
    it('answers 201 with the key object and the secret, once', async () => {
      const created = await stack.api.post('/v1/api-keys', { name: 'ci', permissions: ['emails:send', 'api-keys:*'] });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^key_[0-9A-HJKMNP-TV-Z]{26}$/),
        object: 'api_key',
        name: 'ci',
        mode: 'live',
        key: expect.stringMatching(/^mr_[0-9A-Za-z]{49}$/),
        keyHint: expect.any(String),
        permissions: ['emails:send', 'api-keys:*'],
        domainRestrictions: [],
        ipRestrictions: [],
        expiresAt: null,
        lastUsedAt: null,
        createdAt: expect.any(String),
      });
      const { key, keyHint, createdAt, id } = created.body;
      expect(parseApiKey(key)).toBe('live');
      expect(keyHint).toBe(`mr_…${key.slice(-4)}`);
      expect(Math.abs(Date.parse(createdAt) - Date.now())).toBeLessThan(60_000);
      expect(new Date(createdAt).toISOString()).toBe(createdAt); // ISO 8601, as every timestamp of the interface

      const fetched = await stack.api.get(`/v1/api-keys/${id}`);
      expect(fetched.status).toBe(200);
      expect(fetched.body).not.toHaveProperty('key');
      expect(fetched.body).toEqual({ ...created.body, key: undefined });
      const listed = await stack.api.get('/v1/api-keys?limit=100');
      expect(listed.body.data.find((item: { id: string }) => item.id === id)).toEqual(fetched.body);
      const patched = await stack.api.patch(`/v1/api-keys/${id}`, { name: 'ci-renamed' });
      expect(patched.body.name).toBe('ci-renamed');
      for (const answer of [fetched, listed, patched]) {
        expect(JSON.stringify(answer.body)).not.toContain(key);
        expect(JSON.stringify(answer.body)).not.toContain('"key"');
      }
    });

    it('issues a key that authenticates', async () => {
      const created = await stack.api.post('/v1/api-keys', { name: 'works' });
      const self = await stack.api.get(`/v1/api-keys/${created.body.id}`, { key: created.body.key });
      expect(self.status).toBe(200);
      expect(self.body.id).toBe(created.body.id);
    });

    it('stores the restrictions and expiry it is given', async () => {
      const expiresAt = future(DAY);
      const created = await stack.api.post('/v1/api-keys', {
        name: 'restricted',
        permissions: ['domains:*'],
        domainRestrictions: ['example.com', 'mail.example.org'],
        ipRestrictions: ['10.0.0.0/8', '192.0.2.1', '2001:db8::/32', '::1'],
        expiresAt,
      });
      expect(created.status).toBe(201);
      expect(created.body.domainRestrictions).toEqual(['example.com', 'mail.example.org']);
      expect(created.body.ipRestrictions).toEqual(['10.0.0.0/8', '192.0.2.1', '2001:db8::/32', '::1']);
      expect(created.body.expiresAt).toBe(expiresAt);
    });

    it('stores restricted domains written in any case and in Unicode as domains are stored: lower-case punycode, once each', async () => {
      const created = await stack.api.post('/v1/api-keys', { name: 'spelled', domainRestrictions: ['Example.COM', 'example.com', 'Bücher.Test'] });
      expect(created.status).toBe(201);
      expect(created.body.domainRestrictions).toEqual(['example.com', 'xn--bcher-kva.test']);
    });

    // Converted to punycode as a URL host is, ab⁺cd.example was stored as ab+cd.example, a name no domain can have.
    it.each([
      ['a superscript plus that punycode turns into +', 'ab\u207acd.example', "must hold only letters, digits, hyphens and dots; '\u207a' (read as '+') has no place in a domain name"],
      ['a percent escape', 'exa%41mple.com', "must hold only letters, digits, hyphens and dots; '%' has no place in a domain name"],
      ['a trailing dot', 'example.com.', 'must not end with a dot'],
    ])('refuses a restricted domain with %s, saying what is wrong with it, on create and on PATCH', async (_label, name, problem) => {
      const created = await stack.api.post('/v1/api-keys', { name: 'k', domainRestrictions: ['a.example.com', name] });
      expect(created.status).toBe(422);
      expect(created.body.error).toEqual({ code: 'validation_error', message: `domainRestrictions: each value ${problem}` });
      const key = (await stack.api.post('/v1/api-keys', { name: 'k' })).body;
      const patched = await stack.api.patch(`/v1/api-keys/${key.id}`, { domainRestrictions: [name] });
      expect(patched.status).toBe(422);
      expect(patched.body.error.message).toBe(created.body.error.message);
    });

    it('accepts an IPv4-mapped range with its IPv6 prefix, which admits the IPv4 clients it names', async () => {
      const created = await stack.api.post('/v1/api-keys', { name: 'mapped', ipRestrictions: ['::ffff:127.0.0.0/104'] });
      expect(created.status).toBe(201);
      expect((await stack.api.get('/v1/api-keys', { key: created.body.key })).status).toBe(200);
    });
  });

  describe('validation (422 validation_error naming the field)', () => {
    it.each([
      ['name is missing', {}, 'name'],
      ['name is empty', { name: '' }, 'name'],
      ['name is longer than 100 characters', { name: 'x'.repeat(101) }, 'name'],
      ['name is not a string', { name: 42 }, 'name'],
      ['name is zero-width spaces only (it lists as a blank line)', { name: '\u200b\u200b' }, 'name'],
      ['a permission is not in the list', { name: 'k', permissions: ['emails:send', 'emails:delete'] }, 'permissions'],
      ['permissions is not an array', { name: 'k', permissions: 'emails:send' }, 'permissions'],
      ['an IPv4 address is invalid', { name: 'k', ipRestrictions: ['300.1.1.1'] }, 'ipRestrictions'],
      ['a CIDR prefix is too long', { name: 'k', ipRestrictions: ['10.0.0.0/33'] }, 'ipRestrictions'],
      ['an IPv6 CIDR prefix is too long', { name: 'k', ipRestrictions: ['::1/129'] }, 'ipRestrictions'],
      ['an IP restriction is a hostname', { name: 'k', ipRestrictions: ['localhost'] }, 'ipRestrictions'],
      ['an IPv4-mapped range has an IPv4-sized prefix (::ffff:10.0.0.0/8 is ::/8: every IPv4 client)', { name: 'k', ipRestrictions: ['::ffff:10.0.0.0/8'] }, 'ipRestrictions'],
      ['an IPv4-mapped range in hex has an IPv4-sized prefix (::ffff:a00:0/8 is ::/8 too)', { name: 'k', ipRestrictions: ['::ffff:a00:0/8'] }, 'ipRestrictions'],
      ['an IPv6 range written with an IPv4 tail has an IPv4-sized prefix (::10.0.0.0/8 is ::/8 too)', { name: 'k', ipRestrictions: ['::10.0.0.0/8'] }, 'ipRestrictions'],
      ['an IP restriction carries a zone id (it names an interface of one host)', { name: 'k', ipRestrictions: ['fe80::1%eth0'] }, 'ipRestrictions'],
      ['an IPv6 range carries a zone id', { name: 'k', ipRestrictions: ['fe80::%eth0/64'] }, 'ipRestrictions'],
      ['a domain is not a hostname', { name: 'k', domainRestrictions: ['not a host'] }, 'domainRestrictions'],
      ['a domain has no TLD', { name: 'k', domainRestrictions: ['localhost'] }, 'domainRestrictions'],
      ['a domain is an IP address', { name: 'k', domainRestrictions: ['192.0.2.1'] }, 'domainRestrictions'],
      ['a domain is not valid punycode (no domain can have it)', { name: 'k', domainRestrictions: ['xn--zz.com'] }, 'domainRestrictions'],
      ['expiresAt is in the past', { name: 'k', expiresAt: new Date(Date.now() - 60_000).toISOString() }, 'expiresAt'],
      ['expiresAt is not ISO 8601', { name: 'k', expiresAt: 'next tuesday' }, 'expiresAt'],
      ['expiresAt is a number', { name: 'k', expiresAt: Date.now() + DAY }, 'expiresAt'],
      ['mode is unknown', { name: 'k', mode: 'staging' }, 'mode'],
      ['a field is unknown', { name: 'k', scopes: ['x'] }, 'scopes'],
    ])('when %s', async (_label, body, field) => {
      const response = await stack.api.post('/v1/api-keys', body);
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe('validation_error');
      expect(response.body.error.message).toMatch(new RegExp(`^${field}\\b`));
    });

    it('takes a name of 100 characters and 100 of each restriction, and refuses one more of each with 422 naming the field', async () => {
      const domains = (count: number) => Array.from({ length: count }, (_, i) => `d${i}.example.com`);
      const addresses = (count: number) => Array.from({ length: count }, (_, i) => `10.0.${Math.floor(i / 250)}.${i % 250}`);
      const largest = await stack.api.post('/v1/api-keys', { name: 'n'.repeat(100), domainRestrictions: domains(100), ipRestrictions: addresses(100) });
      expect(largest.status).toBe(201);
      expect([largest.body.name.length, largest.body.domainRestrictions.length, largest.body.ipRestrictions.length]).toEqual([100, 100, 100]);
      for (const [body, message] of [
        [{ name: 'n'.repeat(101) }, 'name: must be at most 100 characters'],
        [{ name: 'k', domainRestrictions: domains(101) }, 'domainRestrictions: must hold at most 100 domains'],
        [{ name: 'k', ipRestrictions: addresses(101) }, 'ipRestrictions: must hold at most 100 addresses or ranges'],
      ] as const) {
        const response = await stack.api.post('/v1/api-keys', body);
        expect({ status: response.status, error: response.body.error }).toEqual({ status: 422, error: { code: 'validation_error', message } });
      }
    });

    it.each([12345, true, [], {}])('says expiresAt %j has the wrong type, rather than quoting the timestamp rule', async (expiresAt) => {
      const response = await stack.api.post('/v1/api-keys', { name: 'k', expiresAt });
      expect(response.status).toBe(422);
      expect(response.body.error).toEqual({ code: 'validation_error', message: 'expiresAt: must be a string' });
    });

    it('says which restriction is not a string', async () => {
      const domains = await stack.api.post('/v1/api-keys', { name: 'k', domainRestrictions: ['a.example.com', 7] });
      expect(domains.body.error.message).toBe('domainRestrictions: each value must be a string');
      const ips = await stack.api.post('/v1/api-keys', { name: 'k', ipRestrictions: [{}] });
      expect(ips.body.error.message).toBe('ipRestrictions: each value must be a string');
    });

    it('refuses a body that is not a JSON object', async () => {
      const response = await stack.api.post('/v1/api-keys', ['name']);
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe('validation_error');
    });
  });

  describe('a key cannot grant what it does not hold (403 forbidden)', () => {
    it('refuses a permission the caller lacks, naming it', async () => {
      const caller = await stack.issueKey({ permissions: ['api-keys:*'] });
      const response = await stack.api.post('/v1/api-keys', { name: 'k', permissions: ['emails:send'] }, { key: caller.key });
      expect(response.status).toBe(403);
      expect(response.body.error).toEqual({ code: 'forbidden', message: expect.stringContaining('emails:send') });
      const allowed = await stack.api.post('/v1/api-keys', { name: 'k', permissions: ['api-keys:*'] }, { key: caller.key });
      expect(allowed.status).toBe(201);
    });

    it('grants * only from a * key', async () => {
      const everythingButStar = await stack.issueKey({
        permissions: ['emails:send', 'emails:read', 'emails:list', 'domains:*', 'api-keys:*', 'webhooks:*', 'analytics:read'],
      });
      const refused = await stack.api.post('/v1/api-keys', { name: 'k', permissions: ['*'] }, { key: everythingButStar.key });
      expect(refused.status).toBe(403);
      const fromRoot = await stack.api.post('/v1/api-keys', { name: 'k', permissions: ['*'] });
      expect(fromRoot.status).toBe(201);
      expect(fromRoot.body.permissions).toEqual(['*']);
    });

    describe('a restricted caller', () => {
      const expiresAt = future(7 * DAY);
      let caller: string;

      beforeAll(async () => {
        caller = (
          await stack.issueKey({ permissions: ['api-keys:*', 'emails:send'], ipRestrictions: ['127.0.0.0/8', '::1'], domainRestrictions: ['a.example.com'], expiresAt })
        ).key;
      });

      it.each([
        ['lifts the IP restrictions', { ipRestrictions: [] }],
        ['widens the IP range', { ipRestrictions: ['0.0.0.0/0'] }],
        ['adds an address outside its ranges', { ipRestrictions: ['127.0.0.1', '10.0.0.1'] }],
        ['lifts the domain restrictions', { domainRestrictions: [] }],
        ['adds another domain', { domainRestrictions: ['a.example.com', 'b.example.com'] }],
        ['expires later', { expiresAt: future(8 * DAY) }],
      ])('cannot create a key that %s', async (_label, body) => {
        const response = await stack.api.post('/v1/api-keys', { name: 'k', ...body }, { key: caller });
        expect(response.status).toBe(403);
        expect(response.body.error.code).toBe('forbidden');
      });

      it('can create a key with equal or tighter restrictions', async () => {
        const response = await stack.api.post(
          '/v1/api-keys',
          { name: 'k', permissions: ['emails:send'], ipRestrictions: ['127.0.0.1'], domainRestrictions: ['a.example.com'], expiresAt: future(DAY) },
          { key: caller },
        );
        expect(response.status).toBe(201);
      });

      it('can grant its IPv4 range written as IPv4-mapped IPv6 (::ffff:127.0.0.0/104 is 127.0.0.0/8), and the key admits its clients', async () => {
        for (const ipRestrictions of [['::ffff:127.0.0.0/104'], ['::ffff:127.0.0.1'], ['::ffff:7f00:1/128']]) {
          const response = await stack.api.post('/v1/api-keys', { name: 'mapped', permissions: ['api-keys:*'], ipRestrictions }, { key: caller });
          expect({ ipRestrictions, status: response.status }).toEqual({ ipRestrictions, status: 201 });
          expect((await stack.api.get('/v1/api-keys', { key: response.body.key })).status).toBe(200);
        }
        const wider = await stack.api.post('/v1/api-keys', { name: 'mapped', ipRestrictions: ['::ffff:126.0.0.0/103'] }, { key: caller });
        expect(wider.status).toBe(403);
      });

      it('hands its own permissions, restrictions and expiry to a key that leaves them out', async () => {
        const response = await stack.api.post('/v1/api-keys', { name: 'inherits' }, { key: caller });
        expect(response.status).toBe(201);
        expect(response.body).toMatchObject({
          permissions: ['api-keys:*', 'emails:send'],
          ipRestrictions: ['127.0.0.0/8', '::1'],
          domainRestrictions: ['a.example.com'],
          expiresAt: new Date(expiresAt).toISOString(),
        });
      });

      it('reads null fields of the creation as left out, so the new key inherits them (expiresAt included)', async () => {
        const nulls = { mode: null, permissions: null, ipRestrictions: null, domainRestrictions: null, expiresAt: null };
        const response = await stack.api.post('/v1/api-keys', { name: 'inherits', ...nulls }, { key: caller });
        expect(response.status).toBe(201);
        expect(response.body).toMatchObject({
          mode: 'live',
          permissions: ['api-keys:*', 'emails:send'],
          ipRestrictions: ['127.0.0.0/8', '::1'],
          domainRestrictions: ['a.example.com'],
          expiresAt: new Date(expiresAt).toISOString(),
        });
      });

      it('cannot loosen another key through PATCH either', async () => {
        const target = await stack.api.post('/v1/api-keys', { name: 'target' }, { key: caller });
        for (const body of [{ ipRestrictions: ['0.0.0.0/0'] }, { domainRestrictions: ['b.example.com'] }, { permissions: ['*'] }, { expiresAt: null }]) {
          const response = await stack.api.patch(`/v1/api-keys/${target.body.id}`, body, { key: caller });
          expect(response.status).toBe(403);
        }
      });
    });
  });

  describe('modes', () => {
    it('lets a live key create a test key with "mode": "test"', async () => {
      const response = await stack.api.post('/v1/api-keys', { name: 'test one', mode: 'test' });
      expect(response.status).toBe(201);
      expect(response.body.mode).toBe('test');
      expect(response.body.key).toMatch(/^mr_test_[0-9A-Za-z]{49}$/);
      expect(parseApiKey(response.body.key)).toBe('test');
    });

    it('makes a key created by a test key a test key, and refuses mode live', async () => {
      const testKey = await stack.issueKey({ mode: 'test', permissions: ['api-keys:*'] });
      const child = await stack.api.post('/v1/api-keys', { name: 'child' }, { key: testKey.key });
      expect(child.status).toBe(201);
      expect(child.body.mode).toBe('test');
      expect(child.body.key.startsWith('mr_test_')).toBe(true);
      const explicit = await stack.api.post('/v1/api-keys', { name: 'child', mode: 'test' }, { key: testKey.key });
      expect(explicit.status).toBe(201);
      const live = await stack.api.post('/v1/api-keys', { name: 'escape', mode: 'live' }, { key: testKey.key });
      expect(live.status).toBe(403);
      expect(live.body.error.code).toBe('forbidden');
    });
  });
});
