import { hostname } from 'node:os';
import type { MailroomConfig } from '@mailroom/config';
import { createStsPolicies } from '../mta-sts/create-sts-policies';
import { StsPolicyStore } from '../mta-sts/mta-sts.repository';
import { MxResolver } from '../mx/mx-resolver';
import { MxRouteCache } from '../mx/mx-route-cache';
import { DeliveryTransport } from './delivery-transport';
import { TlsSessionRecorder } from '../tls-rpt/tls-session';
import { trustedCertificateAuthorities } from '../trusted-cas';
import { MxTransport } from './mx-transport';
import { RelayTransport } from './relay-transport';

/**
 * The transport DELIVERY_MODE selects; loadConfig has made sure relay mode has its SMTP_RELAY_URL. tlsReports (mx
 * mode with TLSRPT=on) hears of every SMTP session to an MX host.
 */
export function createDeliveryTransport(config: MailroomConfig, policyStore: StsPolicyStore, tlsReports?: TlsSessionRecorder): DeliveryTransport {
  const heloName = config.SMTP_HELO_NAME || hostname();
  const common = { heloName, timeoutMs: config.SMTP_TIMEOUT_MS, messageTimeoutMs: config.SMTP_MESSAGE_TIMEOUT_MS, maxConnections: config.SMTP_MAX_CONNECTIONS };
  if (config.DELIVERY_MODE === 'relay') {
    return new RelayTransport(
      Object.assign({}, common, {
        url: config.SMTP_RELAY_URL,
        secure: config.SMTP_RELAY_SECURE,
        requireTls: config.SMTP_RELAY_REQUIRE_TLS,
        verifyTls: config.SMTP_RELAY_TLS_VERIFY,
      }),
    );
  }
  const trustedCas = trustedCertificateAuthorities(config);
  const router = new MxRouteCache(new MxResolver(config.DNS_SERVERS, config.DNS_TIMEOUT_MS, config.DELIVERY_ALLOW_PRIVATE_MX));
  return new MxTransport(router, Object.assign({}, common, { port: config.SMTP_MX_PORT, trustedCas }), createStsPolicies(config, policyStore, trustedCas, tlsReports), tlsReports);
}
