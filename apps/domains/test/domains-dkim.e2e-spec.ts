import { createPublicKey, sign, verify } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { ClientProxy, ClientProxyFactory, Transport } from '@nestjs/microservices';
import DNS from 'dns2';
import { secretBoxFromConfig } from '@mailroom/auth';
import { eventually } from '@mailroom/testing';
import { firstValueFrom } from 'rxjs';
import { dkimSign } from 'mailauth/lib/dkim/sign';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { DkimZoneExportReply, DomainsSubjects, SenderIdentityReply } from '@mailroom/contracts';
import { DKIM_ZONE, DomainsHarness, publish, startDomainsHarness, stopDomainsHarness, uniqueDomain } from './domains-fixtures';
import { DnsMessage, optionHeader, queryFor, udpExchange, udpRaw, withOptRecord } from './udp-exchange';

describe('domains: the DKIM zone the service answers itself', () => {
  let harness: DomainsHarness;
  let nats: ClientProxy;
  beforeAll(async () => {
    // Every query here comes from one network (loopback); the limit on UDP answers has its own suite.
    harness = await startDomainsHarness({ DKIM_DNS_RATE_LIMIT: '0' });
    // Like a recursive resolver after the operator delegated DKIM_ZONE: the customer's CNAME leads into the service's own server.
    harness.dns.forward(DKIM_ZONE, harness.dkimDns);
    nats = ClientProxyFactory.create({ transport: Transport.NATS, options: { servers: [harness.stack.nats.url] } });
    await nats.connect();
  }, 60000);
  afterAll(async () => {
    await nats?.close();
    await stopDomainsHarness(harness);
  });

  const resolverFor = (address: string) => {
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([address]);
    return resolver;
  };
  const ask = <T>(subject: string, payload: object) => firstValueFrom(nats.send<T>(subject, payload));
  /** Sends `hostile` over UDP; the zone answers another query meanwhile (its event loop is not held), and `hostile` with FORMERR. */
  const expectFormerrWhileAnswering = async (hostile: Buffer) => {
    const [host, port] = harness.dkimDns.split(':');
    const socket = createSocket('udp4');
    try {
      const replies: Buffer[] = [];
      socket.on('message', (reply) => replies.push(reply));
      socket.send(hostile, Number(port), host);
      const soa = await resolverFor(harness.dkimDns).resolveSoa(DKIM_ZONE);
      expect(soa.nsname).toBe(`ns.${DKIM_ZONE}`);
      await eventually(() => replies.length === 1, 5000);
      expect(replies[0].readUInt16BE(0)).toBe(hostile.readUInt16BE(0));
      expect(replies[0][3] & 0x0f).toBe(1); // FORMERR
    } finally {
      socket.close();
    }
  };

  it('resolves the DKIM CNAME chain to the published key, which verifies what the stored private key signs', async () => {
    const domain = (await harness.stack.api.post('/v1/domains', { name: uniqueDomain('dkim') })).body;
    publish(harness.dns, domain.name, domain.dnsRecords);
    const selector = domain.dnsRecords[1].host.split('.')[0];

    // The chain: <selector>._domainkey.<domain> CNAME <label>.<zone>, whose TXT comes from the service's responder.
    const chained = await resolverFor(harness.dns.address).resolveTxt(`${selector}._domainkey.${domain.name}`);
    expect(chained).toHaveLength(1);
    const record = chained[0].join('');
    expect(record).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/);

    // Straight from the responder: a 2048-bit key needs several ≤255-octet strings.
    const direct = await resolverFor(harness.dkimDns).resolveTxt(domain.dnsRecords[1].value);
    expect(direct[0].length).toBeGreaterThan(1);
    expect(direct[0].every((part) => Buffer.byteLength(part) <= 255)).toBe(true);
    expect(direct[0].join('')).toBe(record);

    const { identity } = await ask<SenderIdentityReply>(DomainsSubjects.senderIdentity, { name: domain.name });
    expect(identity).toMatchObject({ domainId: domain.id, name: domain.name, status: 'pending', dkim: { selector }, trackingBaseUrl: 'https://track.mailroom.test' });
    // Anyone on the bus can read this reply: the key comes sealed, and only ENCRYPTION_KEY (with the domain id) opens it.
    expect(JSON.stringify(identity)).not.toContain('-----BEGIN');
    expect(identity!.dkim.privateKeyPem).toBeUndefined();
    const privateKeyPem = secretBoxFromConfig(harness.stack.configFor('domains')).decrypt(identity!.dkim.privateKeySealed!, domain.id);
    expect(privateKeyPem).toContain('BEGIN PRIVATE KEY');

    const publicKey = createPublicKey({ key: Buffer.from(record.split('p=')[1], 'base64'), format: 'der', type: 'spki' });
    expect(publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const data = Buffer.from('signed by the stored key');
    expect(verify('sha256', data, publicKey, sign('sha256', data, privateKeyPem))).toBe(true);

    // And a real DKIM signature (rsa-sha256, relaxed/relaxed) verified through DNS, as a receiving MTA would.
    const message = Buffer.from(
      [`From: sender@${domain.name}`, 'To: someone@example.org', 'Subject: DKIM through the delegated zone', `Date: ${new Date().toUTCString()}`, `Message-ID: <1@${domain.name}>`, '', 'Hello.', ''].join('\r\n'),
    );
    // mailauth takes its signers in signatureData; its type declarations describe an older, flat shape.
    // signTime pins t=: without it mailauth computes Math.round(Date.now() / 1000) once for the signed
    // header and again for the header it returns, so a signature whose RSA step straddles a half second
    // carries a t= other than the one it signed and fails verification (about 1 run in 1,500, more under load).
    const signOptions = {
      canonicalization: 'relaxed/relaxed',
      signTime: new Date(),
      signatureData: [{ signingDomain: domain.name, selector, privateKey: privateKeyPem, algorithm: 'rsa-sha256' }],
    };
    const signed = await dkimSign(message, signOptions as unknown as Parameters<typeof dkimSign>[1]);
    expect(signed.signatures).toContain('DKIM-Signature:');
    expect(signed.errors).toEqual([]);
    const result = await dkimVerify(Buffer.concat([Buffer.from(signed.signatures), message]), {
      resolver: (name: string, type: string) => resolverFor(harness.dns.address).resolve(name, type) as Promise<string[][]>,
    });
    // The key mailauth fetched is the one published (else the DNS path is at fault), and on a failure jest
    // prints the whole result: status comment, signed headers, signature.
    // (mailauth's type declarations leave out rr, the record text it used.)
    expect((result.results[0] as unknown as { rr?: string }).rr).toBe(record.replace(/\s+/g, ''));
    expect(result.results[0]).toMatchObject({ status: { result: 'pass' }, signingDomain: domain.name });
  });

  it('answers SOA and NS at the apex, NXDOMAIN with the SOA for unknown names, REFUSED outside the zone, over UDP and TCP', async () => {
    const resolver = resolverFor(harness.dkimDns);
    const soa = await resolver.resolveSoa(DKIM_ZONE);
    expect(soa).toMatchObject({ nsname: `ns.${DKIM_ZONE}`, hostmaster: `hostmaster.${DKIM_ZONE}` });
    expect(await resolver.resolveNs(DKIM_ZONE)).toEqual([`ns.${DKIM_ZONE}`]);
    await expect(resolver.resolveTxt(`mr202401-01j00000000000000000000000.${DKIM_ZONE}`)).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolveTxt(`nonsense.${DKIM_ZONE}`)).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolveTxt('example.com')).rejects.toMatchObject({ code: 'EREFUSED' });

    const [host, port] = harness.dkimDns.split(':');
    const tcp = DNS.TCPClient({ dns: host, port: Number(port) });
    const missing = await tcp(`nonsense.${DKIM_ZONE}`, 'TXT');
    expect(missing.header.rcode).toBe(3);
    expect(missing.header.aa).toBe(1);
    expect(missing.authorities[0].type).toBe(DNS.Packet.TYPE.SOA);
    const domain = (await harness.stack.api.post('/v1/domains', { name: uniqueDomain('tcp') })).body;
    const answer = await tcp(domain.dnsRecords[1].value, 'TXT');
    expect(answer.header.rcode).toBe(0);
    expect((answer.answers[0].data as string[]).join('')).toMatch(/^v=DKIM1; k=rsa; p=/);
  });

  it('answers class IN, and ANY, which matches it (RFC 1035 §3.2.5); a key or the apex asked in class CH or HS is REFUSED with no records, over UDP and TCP', async () => {
    const domain = (await harness.stack.api.post('/v1/domains', { name: uniqueDomain('qclass') })).body;
    const keyName = domain.dnsRecords[1].value;
    const [host, port] = harness.dkimDns.split(':');
    const tcp = DNS.TCPClient({ dns: host, port: Number(port) });
    const inClass = (query: DnsMessage, qclass: number) => Object.assign(query.questions[0], { class: qclass }) && query;
    const CH = 3;
    const HS = 4;
    const ANY = 255;
    const summary = (answer: DnsMessage) => ({ rcode: answer.header.rcode, aa: answer.header.aa, answers: answer.answers.length, authorities: answer.authorities.length });
    const refused = { rcode: 5, aa: 0, answers: 0, authorities: 0 };
    for (const qclass of [CH, HS]) {
      // The zone holds IN data only: in another class this server is authoritative for nothing (RFC 1034 §4.3.2 step 1).
      expect(summary(await udpExchange(harness.dkimDns, inClass(queryFor(keyName, DNS.Packet.TYPE.TXT), qclass)))).toEqual(refused);
      expect(summary(await udpExchange(harness.dkimDns, inClass(queryFor(DKIM_ZONE, DNS.Packet.TYPE.SOA), qclass)))).toEqual(refused);
      expect(summary(await tcp(keyName, 'TXT', qclass))).toEqual(refused);
    }
    const any = await udpExchange(harness.dkimDns, inClass(queryFor(keyName, DNS.Packet.TYPE.TXT), ANY));
    expect(any.header.rcode).toBe(0);
    expect((any.answers[0] as unknown as { data: string[] }).data.join('')).toMatch(/^v=DKIM1; k=rsa; p=/);
    const viaTcp = await tcp(keyName, 'TXT', DNS.Packet.CLASS.IN);
    expect(summary(viaTcp)).toMatchObject({ rcode: 0, aa: 1, answers: 1 });
  });

  it('answers a packet whose header claims 65,535 records of each kind with FORMERR at once, and keeps answering', async () => {
    const [host, port] = harness.dkimDns.split(':');
    // 12 bytes of header and a few of a question: a parser would try to read 196,605 records from them.
    const hostile = Buffer.from([0x12, 0x34, 0x01, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x61, 0x00, 0x00, 0x10, 0x00, 0x01]);
    const socket = createSocket('udp4');
    try {
      const replies: Buffer[] = [];
      socket.on('message', (reply) => replies.push(reply));
      for (let i = 0; i < 20; i++) socket.send(hostile, Number(port), host);
      await eventually(() => replies.length === 20, 5000);
      for (const reply of replies) {
        expect(reply.readUInt16BE(0)).toBe(0x1234);
        expect(reply[2] & 0x80).toBe(0x80); // a response
        expect(reply[3] & 0x0f).toBe(1); // FORMERR
      }
    } finally {
      socket.close();
    }
    // Parsing those would have held the domains app for about two seconds each; the zone answers at once.
    const soa = await resolverFor(harness.dkimDns).resolveSoa(DKIM_ZONE);
    expect(soa.nsname).toBe(`ns.${DKIM_ZONE}`);
  });

  it('answers FORMERR at once to an OPT record whose options claim more bytes than the message holds, and keeps answering', async () => {
    // A plain header (one question, one additional record), then an OPT record claiming 65,535 bytes of options
    // and an unknown option of as many: dns2 reads such an option bit by bit, about 15 s of the domains app's event loop
    // for this one 60 kB datagram.
    const hostile = withOptRecord(queryFor(`x.${DKIM_ZONE}`, DNS.Packet.TYPE.TXT).toBuffer(), 0xffff, Buffer.concat([optionHeader(65001, 0xffff), Buffer.alloc(60_000, 0x41)]));
    await expectFormerrWhileAnswering(hostile);
  });

  it('answers FORMERR at once to a question name longer than 255 octets, whose overflowing label hides a forged OPT record, and keeps answering', async () => {
    const label = (content: Buffer) => Buffer.concat([Buffer.from([content.length]), content]);
    // A parser gives up on a name at its 256th octet (RFC 1035 §2.3.4), in the middle of the question, and reads the
    // additional record from there: the fourth label's bytes, an OPT record with an unknown option that claims 65,535
    // bytes. dns2 reads such an option bit by bit, and a 60 kB message of such labels held the domains app for 20 s.
    const forgedOpt = Buffer.from([0x00, 0x00, 0x29, 0x04, 0xd0, 0, 0, 0, 0, 0xff, 0xff, 0xfd, 0xe9, 0xff, 0xff]);
    const labels = [...Array.from({ length: 3 }, () => label(Buffer.alloc(63, 0x61))), label(Buffer.concat([forgedOpt, Buffer.alloc(63 - forgedOpt.length, 0x62)]))];
    while (labels.length < 900) labels.push(label(Buffer.alloc(63, 0xff)));
    const header = Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
    const query = Buffer.concat([header, ...labels, Buffer.from([0x00, 0x00, 0x10, 0x00, 0x01])]);
    const hostile = withOptRecord(query, 0, Buffer.alloc(0));
    await expectFormerrWhileAnswering(hostile);
  });

  it('answers a query whose OPT record carries options (a DNS cookie), and FORMERR when its one additional record is no OPT record', async () => {
    const domain = (await harness.stack.api.post('/v1/domains', { name: uniqueDomain('cookie') })).body;
    const query = queryFor(domain.dnsRecords[1].value, DNS.Packet.TYPE.TXT).toBuffer();
    // RFC 7873 §4.1: a client cookie is option 10 with 8 bytes; a server that does not speak cookies ignores it.
    const cookie = Buffer.concat([optionHeader(10, 8), Buffer.alloc(8, 0x5a)]);
    const answer = DNS.Packet.parse(await udpRaw(harness.dkimDns, withOptRecord(query, cookie.length, cookie)));
    expect(answer.header.rcode).toBe(0);
    expect((answer.answers[0].data as string[]).join('')).toMatch(/^v=DKIM1; k=rsa; p=/);
    expect(answer.additionals.filter((record) => record.type === DNS.Packet.TYPE.EDNS)).toHaveLength(1);

    // The same bytes with the type of a TXT record where OPT's (41) belongs.
    const notOpt = withOptRecord(query, cookie.length, cookie);
    notOpt.writeUInt16BE(DNS.Packet.TYPE.TXT, query.length + 1);
    const refused = await udpRaw(harness.dkimDns, notOpt);
    expect(refused[3] & 0x0f).toBe(1); // FORMERR
  });

  it('answers a name in randomised case (0x20) with the key under the same case, NODATA with the SOA for AAAA and CAA, and the TXT for ANY', async () => {
    const domain = (await harness.stack.api.post('/v1/domains', { name: uniqueDomain('case') })).body;
    const target: string = domain.dnsRecords[1].value;
    // Resolvers randomise the case of the names they ask (draft-vixie-dnsext-dns0x20) and take only an answer that keeps it.
    const mixed = [...target].map((char, index) => (index % 2 ? char.toUpperCase() : char)).join('');
    const answer = await udpExchange(harness.dkimDns, queryFor(mixed, DNS.Packet.TYPE.TXT));
    expect(answer.header).toMatchObject({ rcode: 0, aa: 1 });
    expect(answer.questions[0].name).toBe(mixed);
    expect(answer.answers[0].name).toBe(mixed);
    const record = (answer.answers[0].data as string[]).join('');
    expect(record).toMatch(/^v=DKIM1; k=rsa; p=/);

    for (const type of [DNS.Packet.TYPE.AAAA, 257]) {
      const nodata = await udpExchange(harness.dkimDns, queryFor(target, type));
      expect(nodata.header).toMatchObject({ rcode: 0, aa: 1 });
      expect(nodata.answers).toEqual([]);
      expect(nodata.authorities[0]).toMatchObject({ type: DNS.Packet.TYPE.SOA });
    }
    const any = await udpExchange(harness.dkimDns, queryFor(target, 255));
    expect(any.answers.map((entry) => (entry.data as string[]).join(''))).toEqual([record]);
  });

  it('refuses zone transfers (AXFR, IXFR): the zone is answered name by name, and the zone file is the way to copy it', async () => {
    const [host, port] = harness.dkimDns.split(':');
    const tcp = DNS.TCPClient({ dns: host, port: Number(port) });
    expect((await tcp(DKIM_ZONE, 'AXFR')).header.rcode).toBe(5);
    const ixfr = await udpExchange(harness.dkimDns, queryFor(DKIM_ZONE, 251));
    expect(ixfr.header.rcode).toBe(5);
    expect(ixfr.answers).toEqual([]);
  });

  it('answers a query that carries EDNS with an OPT record of its own (RFC 6891 §6.1.1), and BADVERS to an EDNS version it does not speak', async () => {
    const domain = (await harness.stack.api.post('/v1/domains', { name: uniqueDomain('edns') })).body;
    const answer = await udpExchange(harness.dkimDns, queryFor(domain.dnsRecords[1].value, DNS.Packet.TYPE.TXT, { udpPayloadSize: 1232 }));
    expect(answer.header).toMatchObject({ rcode: 0, tc: 0 });
    expect((answer.answers[0].data as string[]).join('')).toMatch(/^v=DKIM1; k=rsa; p=/);
    const opts = answer.additionals.filter((record) => record.type === DNS.Packet.TYPE.EDNS);
    expect(opts).toHaveLength(1);
    expect(opts[0].class).toBeGreaterThanOrEqual(512);

    const unversioned = await udpExchange(harness.dkimDns, queryFor(DKIM_ZONE, DNS.Packet.TYPE.SOA, { udpPayloadSize: 1232, version: 1 }));
    expect(unversioned.header.rcode).toBe(16);
    expect(unversioned.answers).toEqual([]);
    expect(unversioned.additionals.filter((record) => record.type === DNS.Packet.TYPE.EDNS)).toHaveLength(1);

    // RFC 3225 §3: the DO bit of the query MUST be copied in the response, whether or not the zone is signed.
    const optOf = (message: DnsMessage) => message.additionals.find((record) => record.type === DNS.Packet.TYPE.EDNS) as unknown as { doFlag: boolean; version: number };
    for (const doFlag of [true, false]) {
      const reply = await udpExchange(harness.dkimDns, queryFor(domain.dnsRecords[1].value, DNS.Packet.TYPE.TXT, { udpPayloadSize: 1232, doFlag }));
      expect(reply.header.rcode).toBe(0);
      expect(optOf(reply)).toMatchObject({ doFlag, version: 0 });
    }

    // Without EDNS nothing is added.
    const plain = await udpExchange(harness.dkimDns, queryFor(DKIM_ZONE, DNS.Packet.TYPE.SOA));
    expect(plain.additionals).toEqual([]);
  });

  it('answers null for a name that is not a domain of ours', async () => {
    const reply = await ask<SenderIdentityReply>(DomainsSubjects.senderIdentity, { name: 'unknown.example' });
    expect(reply).toEqual({ identity: null });
  });

  it('exports the zone as a zone file holding every key', async () => {
    const domain = (await harness.stack.api.post('/v1/domains', { name: uniqueDomain('zone') })).body;
    const { zoneFile } = await ask<DkimZoneExportReply>(DomainsSubjects.zoneExport, {});
    expect(zoneFile).toContain(`$ORIGIN ${DKIM_ZONE}.`);
    expect(zoneFile).toMatch(/@\tIN\tSOA\t/);
    const label = domain.dnsRecords[1].value.replace(`.${DKIM_ZONE}`, '');
    const line = zoneFile.split('\n').find((entry) => entry.startsWith(`${label}\tIN\tTXT`));
    expect(line).toBeDefined();
    const strings = [...line!.matchAll(/"([^"]*)"/g)].map((match) => match[1]);
    expect(strings.length).toBeGreaterThan(1);
    expect(strings.every((part) => part.length <= 255)).toBe(true);
    const direct = await resolverFor(harness.dkimDns).resolveTxt(domain.dnsRecords[1].value);
    expect(strings.join('')).toBe(direct[0].join(''));
  });
});
