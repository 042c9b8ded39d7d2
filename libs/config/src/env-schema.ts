import { asBoolean, asInteger, asIpOrCidr, asList, asNonBlank, asOneOf, asUrl, Parser } from './parsers';
import { asBindAddressOrOff, asDnsName, asEncryptionKey, asHeloName, asOptionalMailto } from './mail-parsers';
import { asDuration, asDurationList, asRetentionOrOff } from './durations';
import { asDnsServer, asListenHost, asOptionalServerUrl, asServerUrl } from './network-parsers';
import { asOptionalReadableFile } from './file-parsers';
import { asDeliveryRetention, asRetrySchedule } from './webhook-parsers';

export type AppName = 'gateway' | 'keys' | 'domains' | 'emails' | 'webhook-dispatcher' | 'launcher';

export interface VariableSpec<T> {
  /** The default as written in the environment; undefined means required where used. */
  default?: string;
  /** Apps that read it; the README's configuration table lists the same. */
  apps: readonly AppName[] | 'all';
  description: string;
  parse: Parser<T>;
}

function variable<T>(spec: VariableSpec<T>): VariableSpec<T> {
  return spec;
}

const SERVICES: AppName[] = ['keys', 'domains', 'emails', 'webhook-dispatcher'];

/**
 * Every environment variable Mailroom reads. A unit test checks that each
 * name appears in the README's configuration table.
 */
export const ENV_SCHEMA = {
  NODE_ENV: variable({ default: 'development', apps: 'all', description: 'development, test or production', parse: asOneOf('development', 'test', 'production') }),
  LOG_LEVEL: variable({ default: 'info', apps: 'all', description: 'pino log level', parse: asOneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent') }),
  NATS_URL: variable({ default: 'nats://127.0.0.1:4222', apps: 'all', description: 'NATS server (JetStream enabled)', parse: asServerUrl('nats', 'tls') }),
  NATS_CREDS_FILE: variable({ default: '', apps: 'all', description: 'a NATS .creds file (the user JWT and NKey seed `nsc` writes) every connection authenticates with, on a server in operator (JWT) mode; empty = none. Not together with credentials in NATS_URL (nats://user:pass@host:4222 or nats://token@host:4222), which also work', parse: asOptionalReadableFile }),
  NATS_TLS_CA_FILE: variable({ default: '', apps: 'all', description: 'PEM bundle of the certificate authorities that signed the NATS server\'s certificate; setting it (or a tls:// NATS_URL) makes every connection require TLS. Empty = the system\'s CAs', parse: asOptionalReadableFile }),
  NATS_TLS_CERT_FILE: variable({ default: '', apps: 'all', description: 'PEM client certificate for mutual TLS with the NATS server, with NATS_TLS_KEY_FILE; empty = none', parse: asOptionalReadableFile }),
  NATS_TLS_KEY_FILE: variable({ default: '', apps: 'all', description: 'PEM private key of NATS_TLS_CERT_FILE', parse: asOptionalReadableFile }),
  DATABASE_PREPARED_STATEMENTS: variable({ default: 'true', apps: SERVICES, description: 'run the hot statements as named prepared statements (parsed and planned once per connection); false behind a pooler that cannot keep them, such as PgBouncer in transaction mode before 1.21', parse: asBoolean }),
  DATABASE_URL: variable({ apps: SERVICES, description: 'PostgreSQL connection string; `npm start`, `npm run cli` use an embedded Postgres under DATA_DIR when unset', parse: asUrl('postgres', 'postgresql') }),
  PORT: variable({ default: '3000', apps: ['gateway', 'launcher'], description: 'HTTP port of the gateway', parse: asInteger(0, 65535) }),
  HOST: variable({ default: '0.0.0.0', apps: ['gateway', 'launcher'], description: 'HTTP bind address of the gateway', parse: asListenHost }),
  RPC_TIMEOUT_MS: variable({ default: '5000', apps: ['gateway', 'emails'], description: 'how long the gateway waits for a service before answering 503 service_unavailable (and the emails service for a sending domain\'s DKIM key before it retries the delivery)', parse: asInteger(50, 120000) }),
  HEALTH_TIMEOUT_MS: variable({ default: '1000', apps: ['gateway'], description: 'how long GET /health waits for each service', parse: asInteger(50, 30000) }),
  BODY_LIMIT_BYTES: variable({ default: '10485760', apps: ['gateway'], description: 'largest accepted request body; larger answers 413 payload_too_large', parse: asInteger(1024, 104857600) }),
  TEST_MODE_ENABLED: variable({ default: 'true', apps: ['gateway'], description: 'when false, test keys (mr_test_…) answer 401', parse: asBoolean }),
  TRUSTED_PROXIES: variable({ default: '', apps: ['gateway'], description: 'comma-separated IPs/CIDRs whose X-Forwarded-For (the client address) and X-Forwarded-Host (the host a tracking link was asked under) are honoured', parse: asList(asIpOrCidr) }),
  TRACKING_UNBOUND_TOKENS: variable({ default: 'accept', apps: ['gateway'], description: 'accept: a tracking link or pixel minted before tracking tokens named their host (before 2026-11-26) still counts and redirects under any host, so mail already delivered keeps working; refuse: it is answered as a forged token. Set refuse once such mail is old enough that its links no longer matter: until then a sender who minted one could serve it under another customer\'s tracking domain', parse: asOneOf('accept', 'refuse') }),
  KEY_CACHE_TTL_MS: variable({ default: '30000', apps: ['gateway'], description: 'how long a verified key is cached, and an unknown one remembered as unknown; changes and deletions also evict a cached key at once over NATS', parse: asInteger(0, 3600000) }),
  KEY_READ_CACHE_TTL_MS: variable({ default: '1000', apps: ['keys'], description: 'how long the keys service answers GET /v1/api-keys/{id} from memory; changes evict at once on every replica, so only lastUsedAt can lag by this much (0 = always read Postgres)', parse: asInteger(0, 60000) }),
  LAST_USED_FLUSH_MS: variable({ default: '5000', apps: ['gateway'], description: 'how often the gateway reports which keys were used (lastUsedAt)', parse: asInteger(100, 600000) }),
  OUTBOX_POLL_MS: variable({ default: '100', apps: ['domains', 'emails'], description: 'how often the outbox relay looks for events to publish to JetStream', parse: asInteger(10, 60000) }),
  OUTBOX_RETENTION: variable({ default: '24h', apps: ['domains', 'emails'], description: 'how long a published event stays in the service\'s outbox table (for inspection) before the relay deletes it; JetStream keeps its own copy for 7 days. Durations: 30m, 24h, 7d', parse: asDuration }),
  EVENT_STREAM_REPLICAS: variable({ default: '1', apps: ['domains', 'emails', 'webhook-dispatcher'], description: 'copies the NATS cluster keeps of the MAILROOM_EVENTS stream (at most its number of JetStream servers; 3 on a three-node cluster survives losing one). Raising it scales an existing stream up at boot; lowering it leaves the stream as it is', parse: asInteger(1, 5) }),
  EMAIL_RETENTION: variable({ default: 'off', apps: ['emails'], description: 'how long an email in a final state (sent, delivered, bounced, failed, cancelled, suppressed) and its recipients are kept, counted from when it was accepted; off keeps them for ever. Analytics counters and suppressions are kept either way. Durations of 1d or more: 30d, 90d, 365d', parse: asRetentionOrOff }),
  HEALTH_PORT: variable({ default: '8081', apps: 'all', description: 'operations port of each app: GET /health/live, /health/ready and /metrics (0 = any free port)', parse: asInteger(0, 65535) }),
  SHUTDOWN_TIMEOUT_MS: variable({ default: '25000', apps: 'all', description: 'on SIGTERM an app stops taking new work and finishes what is in flight; past this it exits anyway (status 1) and leases hand the rest to another replica. Keep it below the pod\'s terminationGracePeriodSeconds', parse: asInteger(1000, 600000) }),
  PROCESS_NICE: variable({ default: '0', apps: ['gateway', ...SERVICES], description: 'lowers the process\'s CPU priority at boot (the Unix nice value, 0 = unchanged, 19 = lowest); on a host whose cores the apps share, give a process that does only background work (EMAILS_ROLE=worker) 10 so the kernel runs the request path first when the cores are busy. Raising the priority is left to the operating system', parse: asInteger(0, 19) }),
  HEALTH_HOST: variable({ default: '0.0.0.0', apps: 'all', description: 'bind address of the operations port', parse: asListenHost }),
  DKIM_ZONE: variable({ default: 'dkim.mailroom.localhost', apps: ['domains'], description: 'the DNS zone the domains service answers DKIM keys in; every domain\'s DKIM CNAME points into it', parse: asDnsName }),
  DKIM_ZONE_NS: variable({ default: '', apps: ['domains'], description: 'comma-separated host names of the name servers DKIM_ZONE is delegated to (the NS and SOA answers); empty = ns.<DKIM_ZONE>', parse: asList(asDnsName) }),
  DKIM_DNS_BIND: variable({ default: '127.0.0.1:5353', apps: ['domains'], description: 'host:port of the DKIM zone\'s authoritative DNS server (UDP and TCP); `off` disables it (use the zone export instead)', parse: asBindAddressOrOff }),
  DKIM_DNS_RATE_LIMIT: variable({ default: '20', apps: ['domains'], description: 'answers a second the DKIM DNS server gives one client, with a burst of as many: over UDP a client network (a /24 of IPv4, a /56 of IPv6), past which every second query gets an empty truncated answer (a real resolver asks again over TCP) and the rest none, so the server cannot be used to reflect traffic at a spoofed victim; over TCP, separately, a client (an IPv4 address, an IPv6 /64), past which queries are REFUSED (0 = no limit)', parse: asInteger(0, 1000000) }),
  SPF_INCLUDE: variable({ default: 'spf.mailroom.localhost', apps: ['domains'], description: 'the include: every domain\'s SPF record must carry (`v=spf1 include:<SPF_INCLUDE> ~all`)', parse: asDnsName }),
  DMARC_RUA: variable({ default: '', apps: ['domains'], description: 'address for DMARC aggregate reports, added as rua= to the suggested DMARC record; empty = none', parse: asOptionalMailto }),
  ENCRYPTION_KEY: variable({ default: '', apps: ['domains', 'emails', 'gateway', 'webhook-dispatcher'], description: 'base64 of 32 random bytes (`openssl rand -base64 32`): AES-256-GCM key for DKIM private keys and webhook secrets at rest and for the DKIM keys the domains service sends the emails service over NATS (so domains and emails must have the same one: a key that does not open fails delivery, never sends unsigned), and (through HKDF) the key that signs tracking tokens. Required in production; elsewhere a fixed, public development key is used when unset, and each app that uses it logs a warning at boot', parse: asEncryptionKey }),
  TRACKING_BASE_URL: variable({ default: 'http://localhost:3000', apps: ['domains'], description: 'public base URL of the open/click tracking routes; mail uses its host unless the sending domain has a verified custom trackingDomain (a CNAME to this host)', parse: asUrl('http', 'https') }),
  DOMAIN_RECHECK_SCHEDULE: variable({ default: '1m,5m,15m,30m,1h,2h,4h,8h', apps: ['domains'], description: 'backoff between background checks of a pending domain; the last step repeats', parse: asDurationList }),
  DOMAIN_PENDING_TIMEOUT: variable({ default: '72h', apps: ['domains'], description: 'a domain still pending this long after it was added (or last re-verified) becomes failed', parse: asDuration }),
  DOMAIN_VERIFIED_RECHECK_INTERVAL: variable({ default: '6h', apps: ['domains'], description: 'how often a verified domain\'s records are re-checked; missing records make it failed', parse: asDuration }),
  DOMAIN_USAGE_TIMEOUT_MS: variable({ default: '2000', apps: ['domains'], description: 'how long a domain deletion waits for the emails service to say whether mail is in flight (no answer: 503, nothing deleted); keep it below RPC_TIMEOUT_MS', parse: asInteger(50, 60000) }),
  RATE_LIMIT_PER_SECOND: variable({ default: '50', apps: ['gateway'], description: 'requests per second each API key may make, across all gateway replicas (0 = no limit)', parse: asInteger(0, 1000000) }),
  RATE_LIMIT_BURST: variable({ default: '100', apps: ['gateway'], description: 'requests an API key may make at once before the per-second rate applies', parse: asInteger(1, 10000000) }),
  RATE_LIMIT_SYNC_MS: variable({ default: '100', apps: ['gateway'], description: 'how often gateway replicas share what each let through (the limit is exceeded by at most this window)', parse: asInteger(10, 10000) }),
  AUTH_FAILURE_LIMIT: variable({ default: '20', apps: ['gateway'], description: 'failed authentications (401 to a key sent; a request with no Authorization header does not count) one client address (an IPv6 client: its /64) may make within a minute, counted across all gateway replicas (shared over NATS; a replica cut off from NATS counts only its own); past it every request from there that needs an API key, a valid one too, answers 429 rate_limited until that minute is over (0 = no limit)', parse: asInteger(0, 1000000) }),
  DATA_DIR: variable({ default: '.data', apps: ['launcher'], description: 'where `npm start` keeps the embedded Postgres and NATS data', parse: asNonBlank }),
  EMBEDDED_PG_PORT: variable({ default: '54329', apps: ['launcher'], description: 'port of the embedded Postgres that `npm start` runs when DATABASE_URL is unset', parse: asInteger(1, 65535) }),
  DNS_SERVERS: variable({ default: '', apps: ['domains', 'emails', 'webhook-dispatcher'], description: 'comma-separated DNS servers (ip or ip:port) for MX lookups, record verification and webhook hosts; empty uses the nameservers of /etc/resolv.conf', parse: asList(asDnsServer) }),
  DNS_TIMEOUT_MS: variable({ default: '2000', apps: ['domains', 'emails', 'webhook-dispatcher'], description: 'how long one DNS query may take before it counts as failed (a DNS failure, never a missing record); a domain check\'s lookups, chained ones such as SPF includes included, share one such budget; keep it below RPC_TIMEOUT_MS so a domain verify can answer in time; a webhook host\'s lookup (A and AAAA together) fails its attempt after this long (keep it below WEBHOOK_TIMEOUT_MS)', parse: asInteger(100, 60000) }),
  EMAILS_ROLE: variable({ default: 'all', apps: ['emails'], description: 'all: the process answers requests and does the background work (delivery, the outbox relay, the analytics and complaint consumers, compaction and retention); api: it only answers requests from the gateway and the domains service; worker: it only does the background work and subscribes to no request subject. Split them to scale each on its own or to run the worker at a lower priority (PROCESS_NICE); with api processes, run at least one all or worker process, or nothing is delivered', parse: asOneOf('all', 'api', 'worker') }),
  DELIVERY_MODE: variable({ default: 'mx', apps: ['emails'], description: 'mx: deliver straight to each recipient domain\'s MX hosts; relay: hand every message to SMTP_RELAY_URL', parse: asOneOf('mx', 'relay') }),
  SMTP_RELAY_URL: variable({ default: '', apps: ['emails'], description: 'relay mode: smtp://user:pass@host:587 (STARTTLS when offered) or smtps://…:465 (implicit TLS); required when DELIVERY_MODE=relay', parse: asOptionalServerUrl('smtp', 'smtps') }),
  SMTP_RELAY_SECURE: variable({ default: 'false', apps: ['emails'], description: 'relay mode: implicit TLS from the first byte (port 465); smtps:// implies it', parse: asBoolean }),
  SMTP_RELAY_REQUIRE_TLS: variable({ default: 'false', apps: ['emails'], description: 'relay mode: refuse to send unless the relay upgrades with STARTTLS', parse: asBoolean }),
  SMTP_RELAY_TLS_VERIFY: variable({ default: 'true', apps: ['emails'], description: 'relay mode: check the relay\'s TLS certificate (mx mode never does: STARTTLS there is opportunistic)', parse: asBoolean }),
  SMTP_MX_PORT: variable({ default: '25', apps: ['emails'], description: 'mx mode: the port of the recipients\' mail servers', parse: asInteger(1, 65535) }),
  DELIVERY_ALLOW_PRIVATE_MX: variable({ default: 'false', apps: ['emails'], description: 'mx mode: let MX hosts resolve to loopback, private, link-local and other non-public addresses (tests, or a private mail network); otherwise such a recipient bounces (550 5.4.4), so a stranger\'s DNS cannot point mail at internal hosts', parse: asBoolean }),
  SMTP_HELO_NAME: variable({ default: '', apps: ['emails'], description: 'the name given in EHLO: a fully qualified host name or an address literal ([192.0.2.1]); empty uses the machine\'s hostname (set it to a name whose A record points at this host)', parse: asHeloName }),
  SMTP_TIMEOUT_MS: variable({ default: '30000', apps: ['emails'], description: 'SMTP connection, greeting and socket inactivity timeout; a timeout is retried', parse: asInteger(100, 600000) }),
  SMTP_MESSAGE_TIMEOUT_MS: variable({ default: '300000', apps: ['emails'], description: 'the longest one message\'s SMTP exchange may take, from waiting for a pooled connection to the reply to its final dot, however busy the server keeps the socket; past it the connection is closed and the attempt retried', parse: asInteger(1000, 3600000) }),
  SMTP_MAX_CONNECTIONS: variable({ default: '5', apps: ['emails'], description: 'pooled SMTP connections per destination host (the relay, or one MX host)', parse: asInteger(1, 100) }),
  DELIVERY_RETRY_SCHEDULE: variable({ default: '1m,5m,15m,1h,3h,6h,12h,24h,24h', apps: ['emails'], description: 'waits before each retry after a temporary failure (4xx, connection failure); when used up the recipient is failed. Durations: 500ms, 5s, 1m, 2h, 1d', parse: asDurationList }),
  DELIVERY_CONCURRENCY: variable({ default: '32', apps: ['emails'], description: 'emails one emails process delivers at the same time', parse: asInteger(1, 1000) }),
  DELIVERY_BUILD_THREADS: variable({ default: '1', apps: ['emails'], description: 'worker threads of one emails process that compose and DKIM-sign messages, so its event loop keeps to SMTP and the database; 0 builds them on the event loop', parse: asInteger(0, 16) }),
  DELIVERY_LEASE_MS: variable({ default: '60000', apps: ['emails'], description: 'how long a claim on an email lasts; renewed while the delivery runs, so a crashed worker\'s emails are taken over this long after the crash', parse: asInteger(1000, 3600000) }),
  DELIVERY_POLL_MS: variable({ default: '200', apps: ['emails'], description: 'how often idle workers look for due emails (scheduled emails go out at most this late)', parse: asInteger(10, 250) }),
  SENDER_IDENTITY_CACHE_TTL: variable({ default: '30s', apps: ['emails'], description: 'how long the worker caches a domain\'s DKIM key, selector and tracking settings from the domains service; a PATCH /v1/domains/{id} reaches outgoing mail within this time', parse: asDuration }),
  WEBHOOK_ALLOW_HTTP: variable({ default: 'false', apps: ['webhook-dispatcher'], description: 'accept http:// webhook URLs (default: https only)', parse: asBoolean }),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: variable({ default: 'false', apps: ['webhook-dispatcher'], description: 'let webhooks reach loopback, private, link-local and metadata addresses (local development and tests only: it disables the SSRF guard)', parse: asBoolean }),
  WEBHOOK_RETRY_SCHEDULE: variable({ default: '0s,5s,5m,30m,2h,5h,10h,10h', apps: ['webhook-dispatcher'], description: 'delay before each webhook delivery attempt (the first is usually 0s); up to +10% jitter is added; when used up the delivery is failed', parse: asRetrySchedule }),
  WEBHOOK_TIMEOUT_MS: variable({ default: '15000', apps: ['webhook-dispatcher'], description: 'a webhook endpoint must answer (connect, headers and body) within this time, or the attempt fails', parse: asInteger(100, 120000) }),
  WEBHOOK_CONCURRENCY: variable({ default: '64', apps: ['webhook-dispatcher'], description: 'webhook requests one dispatcher process has in flight at once, across all endpoints; slow endpoints share at most half of it, and requests still open when their endpoint turned slow count only within that half, so up to 1.5 times this may be open until they time out, never more (see Webhooks, Slow endpoints)', parse: asInteger(1, 10000) }),
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: variable({ default: '10', apps: ['webhook-dispatcher'], description: 'webhook requests one dispatcher process has in flight to a single endpoint; one to an endpoint that answers slowly', parse: asInteger(1, 1000) }),
  WEBHOOK_DISABLE_AFTER: variable({ default: '5d', apps: ['webhook-dispatcher'], description: 'a webhook whose deliveries have failed without a single success for this long is disabled', parse: asDuration }),
  WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES: variable({ default: '50', apps: ['webhook-dispatcher'], description: 'a webhook is disabled after this many consecutive deliveries failed for good (every retry used up)', parse: asInteger(1, 1000000) }),
  WEBHOOK_MAX_RESPONSE_BYTES: variable({ default: '65536', apps: ['webhook-dispatcher'], description: 'how much of a webhook endpoint\'s response is read; beyond it the connection is dropped (the status code still counts)', parse: asInteger(0, 10485760) }),
  WEBHOOK_DELIVERY_RETENTION: variable({ default: '30d', apps: ['webhook-dispatcher'], description: 'how long a finished webhook delivery (succeeded or failed) and its attempt log are kept, counted from the event; at least 8d (the event stream keeps events 7 days, and the delivery row is what recognises a redelivered one). Durations: 8d, 30d, 90d', parse: asDeliveryRetention }),
  WEBHOOK_LEASE_MS: variable({ default: '60000', apps: ['webhook-dispatcher'], description: 'how long a dispatcher\'s claim on a delivery lasts; renewed while it runs, so a crashed dispatcher\'s deliveries are taken over this long after the crash', parse: asInteger(1000, 3600000) }),
  WEBHOOK_POLL_MS: variable({ default: '200', apps: ['webhook-dispatcher'], description: 'how often idle dispatchers look for due deliveries and retries (events this replica consumed are sent at once)', parse: asInteger(10, 5000) }),
} satisfies Record<string, VariableSpec<unknown>>;

export type EnvName = keyof typeof ENV_SCHEMA;
export type MailroomConfig = {
  [K in EnvName]: (typeof ENV_SCHEMA)[K] extends VariableSpec<infer T> ? T : never;
};
