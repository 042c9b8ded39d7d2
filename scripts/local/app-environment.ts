/**
 * The environment `npm start` gives each app: its own, with the database and
 * NATS it resolved, and TRACKING_BASE_URL pointing at this gateway unless it
 * is set: the variable's default names port 3000, whatever PORT is, so open
 * and click links in local mail would lead nowhere.
 */
export function appEnvironment(own: NodeJS.ProcessEnv, resolved: { gatewayUrl: string; databaseUrl: string; natsUrl: string }): NodeJS.ProcessEnv {
  const tracking = own.TRACKING_BASE_URL === undefined ? { TRACKING_BASE_URL: resolved.gatewayUrl } : {};
  return Object.assign({}, own, tracking, { DATABASE_URL: resolved.databaseUrl, NATS_URL: resolved.natsUrl });
}
