import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import DNS from 'dns2';
import type { MailroomConfig } from '@mailroom/config';
import { describeListeners, hostAndPort, MAILROOM_CONFIG } from '@mailroom/runtime';
import { DomainSettings } from '../domains/domain-settings';
import { answerDkimQuestion, RCODE } from './dkim-answer';
import { dkimDnsRateLimited } from './dkim-dns-metrics';
import { DkimKeyCache, DkimLookupsBusyError } from './dkim-key-cache';
import { emptyAnswer, headerOnlyAnswer, screenQuery, truncatedAnswer } from './dns-query-screen';
import { DnsListeners, listenDns } from './dns-transport';
import { EdnsQuery, ednsOf, isUnsupportedVersion, optRecord, udpLimitFor } from './edns';
import { ResponseRateLimit, tcpClient } from './response-rate-limit';
import { zoneSerial } from './zone-file';

const { Packet } = DNS;
type Request = InstanceType<typeof Packet>;

/**
 * The authoritative DNS server of DKIM_ZONE, on UDP and TCP at DKIM_DNS_BIND.
 * Operators delegate the zone here with one NS record; each customer's
 * `<selector>._domainkey` CNAME then resolves to the key this service holds.
 */
@Injectable()
export class DkimDnsResponder implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DkimDnsResponder.name);
  private listeners?: DnsListeners;
  private bound?: { host: string; port: number };
  private readonly udpLimit: ResponseRateLimit;
  private readonly tcpLimit: ResponseRateLimit;

  constructor(
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
    private readonly settings: DomainSettings,
    private readonly keys: DkimKeyCache,
  ) {
    this.udpLimit = new ResponseRateLimit(config.DKIM_DNS_RATE_LIMIT);
    this.tcpLimit = new ResponseRateLimit(config.DKIM_DNS_RATE_LIMIT, Date.now, tcpClient);
  }

  /** Where it listens, once started (port 0 in DKIM_DNS_BIND picks a free one). */
  get address(): { host: string; port: number } | undefined {
    return this.bound;
  }

  async onApplicationBootstrap(): Promise<void> {
    const bind = this.config.DKIM_DNS_BIND;
    if (!bind) return;
    try {
      this.listeners = await listenDns(
        bind.host,
        bind.port,
        (message, transport, peer) => this.exchange(message, transport, peer),
        (error) => this.logger.warn({ err: error.message }, 'DKIM DNS socket error'),
        tcpClient,
      );
      this.bound = { host: bind.host, port: this.listeners.port };
      this.logger.log({ zone: this.settings.dkimZone, address: describeListeners([{ address: this.bound.host, port: this.bound.port }]) }, 'DKIM zone DNS server listening (UDP and TCP)');
    } catch (error) {
      await this.onApplicationShutdown();
      const message = `cannot serve DNS for ${this.settings.dkimZone} at ${hostAndPort(bind.host, bind.port)}: ${(error as Error).message}`;
      // Parallel e2e suites boot several domains apps on one machine; only tests may run without the responder.
      if (this.config.NODE_ENV === 'test') return void this.logger.warn(message);
      throw new Error(`${message} (set DKIM_DNS_BIND to another host:port, or off)`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const listeners = this.listeners;
    this.listeners = undefined;
    await listeners?.close();
  }

  /**
   * One message in, one answer out; nothing is parsed before screenQuery has
   * looked at its header, and nothing is looked up for a client past its rate
   * (see ResponseRateLimit): a UDP network's, or a TCP client's (an IPv4 address, an IPv6 /64).
   */
  private async exchange(message: Buffer, transport: 'udp' | 'tcp', peer: string): Promise<Buffer | null> {
    const screen = screenQuery(message);
    if (screen.verdict === 'drop') return null;
    if (transport === 'udp') {
      const verdict = this.udpLimit.verdict(peer);
      if (verdict !== 'answer') dkimDnsRateLimited.inc({ verdict });
      if (verdict === 'drop') return null;
      if (verdict === 'slip') return screen.verdict === 'parse' ? truncatedAnswer(screen.query) : null;
    }
    // Over TCP a truncated answer means nothing and silence leaves the client waiting on an open connection:
    // REFUSED, from the header alone, costs no lookup and tells a resolver to ask elsewhere (RFC 1035 §4.1.1).
    if (transport === 'tcp' && this.tcpLimit.verdict(peer) !== 'answer') {
      dkimDnsRateLimited.inc({ verdict: 'refused' });
      return (screen.verdict === 'parse' && emptyAnswer(screen.query, RCODE.REFUSED)) || headerOnlyAnswer(message, RCODE.REFUSED);
    }
    if (screen.verdict === 'refuse') return headerOnlyAnswer(message, screen.rcode);
    let request: Request;
    try {
      request = Packet.parse(screen.query);
    } catch {
      return headerOnlyAnswer(message, RCODE.FORMERR);
    }
    const edns = ednsOf(request);
    const response = await this.answer(request, edns);
    if (edns) response.additionals = [optRecord(edns)];
    return transport === 'udp' ? fitForUdp(response, udpLimitFor(edns)) : response.toBuffer();
  }

  private async answer(request: Request, edns: EdnsQuery | null): Promise<Request> {
    const response = Packet.createResponseFromRequest(request);
    if (edns && isUnsupportedVersion(edns)) {
      response.header.rcode = RCODE.BADVERS;
      return response;
    }
    const question = request.questions[0];
    if (!question || request.questions.length !== 1) {
      response.header.rcode = RCODE.FORMERR;
      return response;
    }
    try {
      const zone = { zone: this.settings.dkimZone, nameServers: this.settings.zoneNameServers, serial: zoneSerial(new Date()) };
      const answer = await answerDkimQuestion(question, zone, async (label) => (await this.keys.byLabel(label))?.dkimPublicKey ?? null);
      response.header.rcode = answer.rcode;
      response.header.aa = answer.authoritative ? 1 : 0;
      response.answers = answer.answers as unknown as typeof response.answers;
      response.authorities = answer.authorities as unknown as typeof response.authorities;
    } catch (error) {
      // Busy is a flood's doing, one query at a time: counted, not a warning line per query.
      if (error instanceof DkimLookupsBusyError) dkimDnsRateLimited.inc({ verdict: 'busy' });
      else this.logger.warn({ err: (error as Error).message }, 'DKIM zone lookup failed; answered SERVFAIL');
      response.header.rcode = RCODE.SERVFAIL;
    }
    return response;
  }
}

/**
 * RFC 1035 §4.2.1: a UDP answer fits in 512 bytes, or in the size the query's
 * EDNS OPT record offers (RFC 6891 §6.2.3); one that does not is sent with
 * TC set, its question and its OPT record only, and the resolver asks again over TCP.
 */
function fitForUdp(response: Request, limit: number): Buffer {
  const whole = response.toBuffer();
  if (whole.length <= limit) return whole;
  response.header.tc = 1;
  response.answers = [];
  response.authorities = [];
  response.additionals = response.additionals.filter((record) => record.type === Packet.TYPE.EDNS);
  return response.toBuffer();
}
