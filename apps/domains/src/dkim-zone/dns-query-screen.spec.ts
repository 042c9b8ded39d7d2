import DNS from 'dns2';
import { emptyAnswer, headerOnlyAnswer, screenQuery, truncatedAnswer } from './dns-query-screen';

/** A header: id 0x1234, the given flags byte, then QD/AN/NS/AR counts; a question for "a" TXT IN after it. */
const message = (flags: number, counts: [number, number, number, number]) => {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(0x1234, 0);
  header[2] = flags;
  counts.forEach((count, index) => header.writeUInt16BE(count, 4 + 2 * index));
  return Buffer.concat([header, Buffer.from([0x01, 0x61, 0x00, 0x00, 0x10, 0x00, 0x01])]);
};

/** An OPT record's fixed part (RFC 6891 §6.1.2): root name, the type (41 unless given), UDP size 1232, TTL 0, RDLENGTH. */
const opt = (rdlength: number, type = 41) => {
  const fixed = Buffer.alloc(11);
  fixed.writeUInt16BE(type, 1);
  fixed.writeUInt16BE(1232, 3);
  fixed.writeUInt16BE(rdlength, 9);
  return fixed;
};
const option = (code: number, length: number) => Buffer.from([code >> 8, code & 0xff, length >> 8, length & 0xff]);

describe(screenQuery.name, () => {
  it('answers FORMERR to a question name longer than 255 octets (RFC 1035 §2.3.4), which a parser would give up on mid-question', () => {
    const header = message(0x01, [1, 0, 0, 0]).subarray(0, 12);
    const label = (length: number) => Buffer.concat([Buffer.from([length]), Buffer.alloc(length, 0x61)]);
    const question = (lastLabel: number) => Buffer.concat([header, label(63), label(63), label(63), label(lastLabel), Buffer.from([0, 0, 16, 0, 1])]);
    const longest = question(61); // 3 × 64 + 62 + the root's octet: 255
    expect(screenQuery(longest)).toEqual({ verdict: 'parse', query: longest });
    expect(DNS.Packet.parse(longest).questions).toHaveLength(1);
    expect(screenQuery(question(62))).toEqual({ verdict: 'refuse', rcode: 1 });
  });

  it('lets a plain query through, with or without an EDNS OPT record', () => {
    expect(screenQuery(message(0x01, [1, 0, 0, 0]))).toEqual({ verdict: 'parse', query: message(0x01, [1, 0, 0, 0]) });
    const edns = Buffer.concat([message(0x01, [1, 0, 0, 1]), opt(0)]);
    expect(screenQuery(edns)).toEqual({ verdict: 'parse', query: edns });
  });

  it("hands the parser the OPT record without its options, which no answer depends on, and nothing after the query", () => {
    const cookie = Buffer.concat([option(10, 8), Buffer.alloc(8, 0x5a)]);
    const padding = Buffer.concat([option(12, 3), Buffer.alloc(3)]);
    const query = Buffer.concat([message(0x01, [1, 0, 0, 1]), opt(cookie.length + padding.length), cookie, padding]);
    expect(screenQuery(query)).toEqual({ verdict: 'parse', query: Buffer.concat([message(0x01, [1, 0, 0, 1]), opt(0)]) });
    expect(screenQuery(Buffer.concat([message(0x01, [1, 0, 0, 0]), Buffer.alloc(100)]))).toEqual({ verdict: 'parse', query: message(0x01, [1, 0, 0, 0]) });
  });

  it.each([
    ['options that claim more bytes than the message holds', Buffer.concat([message(0x01, [1, 0, 0, 1]), opt(0xffff), option(65001, 0xffff), Buffer.alloc(1000)])],
    ['an option longer than the OPT record', Buffer.concat([message(0x01, [1, 0, 0, 1]), opt(6), option(10, 8), Buffer.alloc(8)])],
    ['bytes in the OPT record that are no whole option', Buffer.concat([message(0x01, [1, 0, 0, 1]), opt(2), Buffer.alloc(2)])],
    ['an additional record that is no OPT record', Buffer.concat([message(0x01, [1, 0, 0, 1]), opt(0, 16)])],
    ['an OPT record cut short', Buffer.concat([message(0x01, [1, 0, 0, 1]), opt(0).subarray(0, 5)])],
    ['a question cut short', message(0x01, [1, 0, 0, 0]).subarray(0, 16)],
    ['a compression pointer in the question, which can only point into the header', Buffer.concat([message(0x01, [1, 0, 0, 0]).subarray(0, 12), Buffer.from([0xc0, 0x0c, 0x00, 0x10, 0x00, 0x01])])],
  ])('answers FORMERR, before anything parses it, to %s', (_what, query) => {
    expect(screenQuery(query)).toEqual({ verdict: 'refuse', rcode: 1 });
  });

  it.each([
    ['counts a parser would spend seconds on', [1, 0xffff, 0xffff, 0xffff]],
    ['no question', [0, 0, 0, 0]],
    ['two questions', [2, 0, 0, 0]],
    ['answer records in a query', [1, 1, 0, 0]],
    ['two additional records', [1, 0, 0, 2]],
  ] as const)('answers FORMERR from the header alone for %s', (_what, counts) => {
    expect(screenQuery(message(0x01, [...counts]))).toEqual({ verdict: 'refuse', rcode: 1 });
  });

  it('answers NOTIMP to another opcode (NOTIFY, UPDATE)', () => {
    expect(screenQuery(message(4 << 3, [1, 0, 0, 0]))).toEqual({ verdict: 'refuse', rcode: 4 });
  });

  it('never answers a response or less than a header, so no two servers can loop', () => {
    expect(screenQuery(message(0x80, [1, 0, 0, 0]))).toEqual({ verdict: 'drop' });
    expect(screenQuery(Buffer.alloc(11))).toEqual({ verdict: 'drop' });
  });
});

describe(headerOnlyAnswer.name, () => {
  it('keeps the id, opcode and RD flag, sets QR and the rcode, and carries no records', () => {
    const answer = headerOnlyAnswer(message((4 << 3) | 0x01, [1, 0xffff, 0, 0]), 4);
    expect(answer).toHaveLength(12);
    expect(answer.readUInt16BE(0)).toBe(0x1234);
    expect(answer[2]).toBe(0x80 | (4 << 3) | 0x01);
    expect(answer[3]).toBe(4);
    expect([4, 6, 8, 10].map((offset) => answer.readUInt16BE(offset))).toEqual([0, 0, 0, 0]);
  });
});

describe(truncatedAnswer.name, () => {
  it('answers with TC set, no records and the query\'s question, which a DNS parser reads back', () => {
    const query = new DNS.Packet();
    Object.assign(query.header, { id: 0x4321, rd: 1 });
    query.questions.push({ name: 'key.dkim.example', type: DNS.Packet.TYPE.TXT, class: DNS.Packet.CLASS.IN } as never);
    const answer = DNS.Packet.parse(truncatedAnswer(query.toBuffer())!);
    expect(answer.header).toMatchObject({ id: 0x4321, qr: 1, tc: 1, rd: 1, rcode: 0 });
    expect(answer.questions).toEqual([{ name: 'key.dkim.example', type: DNS.Packet.TYPE.TXT, class: DNS.Packet.CLASS.IN }]);
    expect([answer.answers, answer.authorities, answer.additionals]).toEqual([[], [], []]);
  });

  it('gives up on a question it cannot read without a parser: cut short, or a compression pointer', () => {
    const whole = message(0x01, [1, 0, 0, 0]);
    expect(truncatedAnswer(whole.subarray(0, whole.length - 1))).toBeNull();
    expect(truncatedAnswer(Buffer.concat([whole.subarray(0, 12), Buffer.from([0xc0, 0x0c, 0x00, 0x10, 0x00, 0x01])]))).toBeNull();
  });
});

describe(emptyAnswer.name, () => {
  it('answers a screened query that had an OPT record with one of its own: UDP size 1232, version 0, no options, the DO bit copied', () => {
    const withOpt = Buffer.concat([message(0x01, [1, 0, 0, 1]), opt(0)]);
    withOpt.writeUInt32BE(0x01018000, withOpt.length - 6); // extended RCODE 1, version 1, DO set: only DO is the query's to copy
    const screened = screenQuery(withOpt);
    expect(screened.verdict).toBe('parse');
    const answer = DNS.Packet.parse(emptyAnswer((screened as { query: Buffer }).query, 5)!);
    expect(answer.header).toMatchObject({ id: 0x1234, qr: 1, rcode: 5, arcount: 1 });
    expect(answer.questions).toEqual([{ name: 'a', type: DNS.Packet.TYPE.TXT, class: DNS.Packet.CLASS.IN }]);
    expect(answer.additionals).toMatchObject([{ type: 41, class: 1232, extendedRcode: 0, version: 0, doFlag: true, rdata: [] }]);
  });
});
