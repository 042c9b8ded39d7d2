import { appEnvironment } from './app-environment';

describe(appEnvironment.name, () => {
  const resolved = { gatewayUrl: 'http://localhost:3900', databaseUrl: 'postgres://127.0.0.1:54399/mailroom', natsUrl: 'nats://127.0.0.1:4222' };

  it('points tracking links at this gateway when TRACKING_BASE_URL is unset', () => {
    expect(appEnvironment({ PORT: '3900' }, resolved)).toEqual({
      PORT: '3900',
      TRACKING_BASE_URL: 'http://localhost:3900',
      DATABASE_URL: resolved.databaseUrl,
      NATS_URL: resolved.natsUrl,
    });
  });

  it('keeps a TRACKING_BASE_URL that is set, and resolves the database and NATS over what was given', () => {
    const env = appEnvironment({ TRACKING_BASE_URL: 'https://t.example.com', NATS_URL: 'nats://other:4222' }, resolved);
    expect(env).toMatchObject({ TRACKING_BASE_URL: 'https://t.example.com', NATS_URL: resolved.natsUrl });
  });
});
