import { RCODE } from './dkim-answer';
import { EDNS_UDP_LIMIT } from './edns';

const HEADER_BYTES = 12;
/** RFC 6891 §6.1.2: the OPT record's type, and its root name, TYPE, CLASS, TTL and RDLENGTH before the options. */
const OPT_TYPE = 41;
const OPT_FIXED_BYTES = 11;
const OPTION_HEADER_BYTES = 4;
/** RFC 1035 §2.3.4: a name's labels, their length octets and the root's zero octet. */
const MAX_NAME_OCTETS = 255;

/** parse: `query` is what to hand the parser, the message without anything it need not read. */
export type QueryScreen = { verdict: 'parse'; query: Buffer } | { verdict: 'drop' } | { verdict: 'refuse'; rcode: number };

const formerr: QueryScreen = { verdict: 'refuse', rcode: RCODE.FORMERR };

/**
 * Looks at a message before anything parses it. A parser reads as many
 * records as the header's counts claim: a 30-byte packet that claims 65,535 of
 * each kept the domains app busy for seconds (found by fuzzing the responder),
 * so one packet a second would have held its event loop, and the domains API
 * with it. An authoritative server answers plain queries only: one question,
 * no answer or authority records, at most an EDNS OPT record. Anything else
 * gets FORMERR (NOTIMP for another opcode); a response, or less than a header,
 * gets nothing, so two servers can never answer each other in a loop.
 * The question and the OPT record are walked here too, and the parser gets
 * them without the OPT record's options: dns2 reads an option it does not know
 * bit by bit, and one 60 kB datagram whose option claimed 65,535 bytes held
 * the event loop for 15 s. No option changes an answer of this server.
 */
export function screenQuery(message: Buffer): QueryScreen {
  if (message.length < HEADER_BYTES || (message[2] & 0x80) !== 0) return { verdict: 'drop' };
  const opcode = (message[2] >> 3) & 0x0f;
  if (opcode !== 0) return { verdict: 'refuse', rcode: RCODE.NOTIMP };
  const [questions, answers, authorities, additionals] = [4, 6, 8, 10].map((offset) => message.readUInt16BE(offset));
  if (questions !== 1 || answers !== 0 || authorities !== 0 || additionals > 1) return formerr;
  const end = questionEnd(message);
  if (end === null) return formerr;
  if (additionals === 0) return { verdict: 'parse', query: message.subarray(0, end) };
  return withoutOptions(message, end);
}

/**
 * Where the one question ends, or null when it cannot be read: cut short, or
 * its name holds a compression pointer, which in a query's first name could
 * only point into the header (RFC 1035 §4.1.4: a pointer names a prior
 * occurrence), or its name is longer than 255 octets (RFC 1035 §2.3.4). A
 * parser gives up on such a name mid-way and reads the records after it from
 * inside the name, where a client can hide an OPT record with the options the
 * screen strips (found by crafting one: 20 s of event loop for one 60 kB message).
 */
function questionEnd(message: Buffer): number | null {
  let offset = HEADER_BYTES;
  for (;;) {
    if (offset >= message.length || offset - HEADER_BYTES >= MAX_NAME_OCTETS) return null;
    const length = message[offset];
    if (length === 0) break;
    if (length & 0xc0) return null;
    offset += 1 + length;
  }
  const end = offset + 1 + 4;
  return end <= message.length ? end : null;
}

/** The query with its OPT record emptied of options, or FORMERR when the additional record is no well-formed OPT (RFC 6891 §7). */
function withoutOptions(message: Buffer, optStart: number): QueryScreen {
  const rdataStart = optStart + OPT_FIXED_BYTES;
  if (rdataStart > message.length || message[optStart] !== 0 || message.readUInt16BE(optStart + 1) !== OPT_TYPE) return formerr;
  const rdataEnd = rdataStart + message.readUInt16BE(optStart + 9);
  if (rdataEnd > message.length || !optionsFill(message, rdataStart, rdataEnd)) return formerr;
  const query = Buffer.from(message.subarray(0, rdataStart));
  query.writeUInt16BE(0, optStart + 9);
  return { verdict: 'parse', query };
}

/** Whether the options between `start` and `end`, each a code, a length and that many bytes, fill it exactly. */
function optionsFill(message: Buffer, start: number, end: number): boolean {
  let offset = start;
  while (offset + OPTION_HEADER_BYTES <= end) offset += OPTION_HEADER_BYTES + message.readUInt16BE(offset + 2);
  return offset === end;
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
 * For a query screenQuery let through (the `query` it handed on): an answer
 * with this rcode, the query's question and no records, and an OPT record
 * when the query had one (RFC 6891 §6.1.1: an answer without one tells a
 * resolver the server does not speak EDNS, and it stops asking with EDNS for
 * a while); null when the question cannot be read without a parser.
 */
export function emptyAnswer(query: Buffer, rcode: number): Buffer | null {
  const end = questionEnd(query);
  if (end === null) return null;
  const hasOpt = query.readUInt16BE(10) === 1 && query.length >= end + OPT_FIXED_BYTES;
  const answer = Buffer.concat([headerOnlyAnswer(query, rcode), query.subarray(HEADER_BYTES, end), hasOpt ? answerOpt(query, end) : Buffer.alloc(0)]);
  answer.writeUInt16BE(1, 4);
  answer.writeUInt16BE(hasOpt ? 1 : 0, 10);
  return answer;
}

/**
 * An empty answer with TC set, which tells a resolver to ask again over TCP
 * (RFC 7766 §5); see emptyAnswer.
 */
export function truncatedAnswer(query: Buffer): Buffer | null {
  const answer = emptyAnswer(query, RCODE.NOERROR);
  if (answer) answer[2] |= 0x02;
  return answer;
}

/**
 * This server's OPT record for a query whose OPT record starts at `optStart`: root name, EDNS_UDP_LIMIT, version 0,
 * no options, and the query's DO bit copied (RFC 3225 §3), as optRecord writes it for a parsed query.
 */
function answerOpt(query: Buffer, optStart: number): Buffer {
  const opt = Buffer.alloc(OPT_FIXED_BYTES);
  opt.writeUInt16BE(OPT_TYPE, 1);
  opt.writeUInt16BE(EDNS_UDP_LIMIT, 3);
  opt[7] = query[optStart + 7] & 0x80;
  return opt;
}
