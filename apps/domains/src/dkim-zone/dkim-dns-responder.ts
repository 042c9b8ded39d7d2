import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import DNS from 'dns2';
import type { MailroomConfig } from '@mailroom/config';
import { MAILROOM_CONFIG } from '@mailroom/runtime';
import { DomainSettings } from '../domains/domain-settings';
import { answerDkimQuestion } from './dkim-answer';
import { DkimKeyCache } from './dkim-key-cache';
import { zoneSerial } from './zone-file';

const { Packet } = DNS;
type Request = InstanceType<typeof Packet>;
type Send = (response: Request) => Promise<unknown>;
const SERVFAIL = 2;
const FORMERR = 1;

/**
 * The authoritative DNS server of DKIM_ZONE, on UDP and TCP at DKIM_DNS_BIND.
 * Operators delegate the zone here with one NS record; each customer's
 * `<selector>._domainkey` CNAME then resolves to the key this service holds.
 */
@Injectable()
export class DkimDnsResponder implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DkimDnsResponder.name);
  private udp?: dgram.Socket;
  private tcp?: net.Server;
  private readonly connections = new Set<net.Socket>();
  private bound?: { host: string; port: number };

  constructor(
    @Inject(MAILROOM_CONFIG) private readonly config: MailroomConfig,
    private readonly settings: DomainSettings,
    private readonly keys: DkimKeyCache,
  ) {}

  /** Where it listens, once started (port 0 in DKIM_DNS_BIND picks a free one). */
  get address(): { host: string; port: number } | undefined {
    return this.bound;
  }

  async onApplicationBootstrap(): Promise<void> {
    const bind = this.config.DKIM_DNS_BIND;
    if (!bind) return;
    try {
      this.bound = await this.listen(bind.host, bind.port);
      this.logger.log({ zone: this.settings.dkimZone, address: `${this.bound.host}:${this.bound.port}` }, 'DKIM zone DNS server listening (UDP and TCP)');
    } catch (error) {
      await this.onApplicationShutdown();
      const message = `cannot serve DNS for ${this.settings.dkimZone} at ${bind.host}:${bind.port}: ${(error as Error).message}`;
      // Parallel e2e suites boot several domains apps on one machine; only tests may run without the responder.
      if (this.config.NODE_ENV === 'test') return void this.logger.warn(message);
      throw new Error(`${message} (set DKIM_DNS_BIND to another host:port, or off)`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const udp = this.udp;
    const tcp = this.tcp;
    this.udp = undefined;
    this.tcp = undefined;
    if (udp) await new Promise<void>((resolve) => udp.close(() => resolve())).catch(() => undefined);
    if (tcp) {
      for (const socket of this.connections) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    }
  }

  private async handle(request: Request, send: Send): Promise<void> {
    const response = Packet.createResponseFromRequest(request);
    const question = request.questions[0];
    if (!question || request.questions.length !== 1) {
      response.header.rcode = FORMERR;
      await send(response);
      return;
    }
    try {
      const zone = { zone: this.settings.dkimZone, nameServers: this.settings.zoneNameServers, serial: zoneSerial(new Date()) };
      const answer = await answerDkimQuestion(question, zone, async (label) => (await this.keys.byLabel(label))?.dkimPublicKey ?? null);
      response.header.rcode = answer.rcode;
      response.header.aa = answer.authoritative ? 1 : 0;
      response.answers = answer.answers as unknown as typeof response.answers;
      response.authorities = answer.authorities as unknown as typeof response.authorities;
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'DKIM zone lookup failed; answered SERVFAIL');
      response.header.rcode = SERVFAIL;
    }
    await send(response);
  }

  private async listen(host: string, port: number): Promise<{ host: string; port: number }> {
    const onRequest = (request: Request, send: Send) => void this.handle(request, send).catch(() => undefined);
    const udp = DNS.createUDPServer({ type: net.isIPv6(host) ? 'udp6' : 'udp4' }) as unknown as dgram.Socket;
    udp.on('request', onRequest);
    udp.on('requestError', () => undefined);
    this.udp = udp;
    const udpPort = await new Promise<number>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(port, host, () => {
        udp.off('error', reject);
        udp.on('error', (error) => this.logger.warn({ err: error.message }, 'DKIM DNS UDP socket error'));
        resolve(udp.address().port);
      });
    });
    const tcp = DNS.createTCPServer(onRequest as never) as unknown as net.Server;
    tcp.on('requestError', () => undefined);
    tcp.on('connection', (socket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
    this.tcp = tcp;
    // TCP on the UDP port, so port 0 gives one port for both (RFC 7766: DNS over TCP is not optional).
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(udpPort, host, () => {
        tcp.off('error', reject);
        resolve();
      });
    });
    return { host, port: udpPort };
  }
}
