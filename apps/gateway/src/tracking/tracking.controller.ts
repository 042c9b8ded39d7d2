import { Controller, Get, Header, Inject, Logger, Param, Req, Res } from '@nestjs/common';
import { canonicalTrackingHost, Public, TrackingClaim, TrackingKind, TrackingTokens } from '@mailroom/auth';
import type { MailroomConfig } from '@mailroom/config';
import { DomainError, excerptForMessage } from '@mailroom/errors';
import { MAILROOM_CONFIG } from '@mailroom/runtime';
import { TrackingClient } from '../clients/tracking.client';
import { TakesAnyQuery } from '../http/route-inputs';
import { redirectTarget } from './redirect-target';
import { RepeatHitMemo } from './repeat-hit-memo';
import { trackingHit } from './tracking-hit';
import { trackingHostMismatches } from './tracking-metrics';

export const TRACKING_TOKENS = Symbol('TrackingTokens');

const TRANSPARENT_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const NO_CACHE = 'no-store, no-cache, must-revalidate, private, max-age=0';

interface RequestLike {
  method: string;
  ip: string;
  /** Fastify's: the Host header, or X-Forwarded-Host when the peer is in TRUSTED_PROXIES. */
  host: string;
  headers: Record<string, string | string[] | undefined>;
}
interface ReplyLike {
  status(code: number): ReplyLike;
  header(name: string, value: string): ReplyLike;
  send(body?: unknown): unknown;
  redirect(url: string, code: number): unknown;
}

/**
 * Only a GET is a reader: Fastify answers HEAD through the GET route too, and
 * link scanners and proxies send HEAD to look at a link without following it.
 * A HEAD gets the same answer and counts nothing.
 */
const isRead = (request: RequestLike) => request.method === 'GET';

/**
 * The public tracking routes (no API key): the open pixel and the click
 * redirector. A token that does not verify, or that was sent under another
 * tracking host than the one asked, never redirects anywhere, so this is not
 * an open redirect, under our name or under a customer's tracking domain.
 */
@Controller('t')
@Public()
@TakesAnyQuery()
export class TrackingController {
  private readonly logger = new Logger(TrackingController.name);
  private readonly repeats = new RepeatHitMemo();

  /** TRACKING_UNBOUND_TOKENS: whether a token minted before tokens named their host is honoured (on any host). */
  private readonly acceptsUnbound: boolean;

  constructor(
    private readonly tracking: TrackingClient,
    @Inject(TRACKING_TOKENS) private readonly tokens: TrackingTokens,
    @Inject(MAILROOM_CONFIG) config: MailroomConfig,
  ) {
    this.acceptsUnbound = config.TRACKING_UNBOUND_TOKENS === 'accept';
  }

  @Get('o/:token')
  @Header('cache-control', NO_CACHE)
  async open(@Param('token') token: string, @Req() request: RequestLike, @Res() reply: ReplyLike): Promise<void> {
    const claim = this.verifiedClaim(token.replace(/\.gif$/, ''), request, 'open');
    // A bad token still gets the pixel (mail clients show broken images otherwise) but counts nothing.
    reply.status(200).header('content-type', 'image/gif').header('cache-control', NO_CACHE).header('pragma', 'no-cache').send(TRANSPARENT_GIF);
    if (claim?.kind === 'open' && this.counts(request, `o ${claim.emailId}`)) this.record(() => this.tracking.open(trackingHit(claim.emailId, request)));
  }

  @Get('c/:token')
  async click(@Param('token') token: string, @Req() request: RequestLike, @Res() reply: ReplyLike): Promise<void> {
    const claim = this.verifiedClaim(token, request, 'click');
    const target = claim?.kind === 'click' && claim.url ? redirectTarget(claim.url) : null;
    if (!claim || !target) throw DomainError.notFound('tracked link', excerptForMessage(token, 16));
    reply.header('cache-control', NO_CACHE).redirect(target, 302);
    if (this.counts(request, `c ${claim.emailId} ${claim.url}`)) this.record(() => this.tracking.click(Object.assign({}, trackingHit(claim.emailId, request), { url: claim.url })));
  }

  /**
   * The token's claim when it verifies and the request came to the host it
   * was sent under; else null, as for a forged token. A token minted before
   * tokens named their host is honoured on any host (or mail already
   * delivered would stop working) until TRACKING_UNBOUND_TOKENS=refuse.
   */
  private verifiedClaim(token: string, request: RequestLike, route: TrackingKind): TrackingClaim | null {
    const claim = this.tokens.verify(token);
    if (!claim) return null;
    if (claim.host === undefined) return this.acceptsUnbound ? claim : null;
    const requestHost = canonicalTrackingHost(request.host ?? '');
    if (requestHost === claim.host) return claim;
    trackingHostMismatches.inc({ route });
    // Hosts only: the token and its link stay out of the logs.
    this.logger.debug({ route, tokenHost: claim.host, requestHost }, 'tracking token sent under another host');
    return null;
  }

  /** A GET that is not a repeat of the same pixel or link from the same client within the window. */
  private counts(request: RequestLike, target: string): boolean {
    return isRead(request) && this.repeats.counts(target, request.ip ?? '');
  }

  /**
   * The reader comes first: the answer is sent before the hit is recorded, so
   * an emails service that is away or slow (up to RPC_TIMEOUT_MS) never
   * holds a redirect or a pixel; a hit not recorded is logged.
   */
  private record(call: () => Promise<unknown>): void {
    call().catch((error: Error) => this.logger.warn({ err: error.message }, 'tracking hit not recorded'));
  }
}
