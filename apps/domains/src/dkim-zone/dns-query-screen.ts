import { RCODE } from './dkim-answer';

const HEADER_BYTES = 12;

export type QueryScreen = { verdict: 'parse' } | { verdict: 'drop' } | { verdict: 'refuse'; rcode: number };

/**
 * Looks at a message's 12-byte header before anything parses it. A parser
 * reads as many records as the header's counts claim: a 30-byte packet that
 * claims 65,535 of each kept the domains app busy for seconds (found by
 * fuzzing the responder), so one packet a second would have held its event
 * loop, and the domains API with it. An authoritative server answers plain
 * queries only: one question, no answer or authority records, at most one
 * additional record (the EDNS OPT). Anything else gets FORMERR (NOTIMP for
 * another opcode) from the header alone; a response, or less than a header,
 * gets nothing, so two servers can never answer each other in a loop.
 */
export function screenQuery(message: Buffer): QueryScreen {
  if (message.length < HEADER_BYTES || (message[2] & 0x80) !== 0) return { verdict: 'drop' };
  const opcode = (message[2] >> 3) & 0x0f;
  if (opcode !== 0) return { verdict: 'refuse', rcode: RCODE.NOTIMP };
  const [questions, answers, authorities, additionals] = [4, 6, 8, 10].map((offset) => message.readUInt16BE(offset));
  if (questions !== 1 || answers !== 0 || authorities !== 0 || additionals > 1) return { verdict: 'refuse', rcode: RCODE.FORMERR };
  return { verdict: 'parse' };
}

/** A header-only answer to a query: its id, opcode and RD flag, QR set, this rcode, no records. */
export function headerOnlyAnswer(query: Buffer, rcode: number): Buffer {
  const answer = Buffer.alloc(HEADER_BYTES);
  query.copy(answer, 0, 0, 2);
  answer[2] = 0x80 | (query[2] & 0x79);
  answer[3] = rcode & 0x0f;
  return answer;
}


/**
 * For a query screenQuery let through: an empty answer with TC set and the
 * query's question, which tells a resolver to ask again over TCP (RFC 7766
 * §5); null when the question's name cannot be read without a parser.
 */
export function truncatedAnswer(query: Buffer): Buffer | null {
  let offset = HEADER_BYTES;
  for (;;) {
    if (offset >= query.length) return null;
    const length = query[offset];
    if (length === 0) break;
    // A compression pointer has nothing earlier to point to in a query's first name.
    if (length & 0xc0) return null;
    offset += 1 + length;
  }
  const questionEnd = offset + 1 + 4;
  if (questionEnd > query.length) return null;
  const answer = Buffer.concat([headerOnlyAnswer(query, RCODE.NOERROR), query.subarray(HEADER_BYTES, questionEnd)]);
  answer[2] |= 0x02;
  answer.writeUInt16BE(1, 4);
  return answer;
}
