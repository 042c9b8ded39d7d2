import '../../../scripts/register-paths';
import 'reflect-metadata';
import { runMain } from '@mailroom/runtime';
import { bootstrapGateway } from './bootstrap';

runMain('gateway', async (config) => {
  const app = await bootstrapGateway(config);
  process.stdout.write(`Mailroom gateway listening on ${await app.getUrl()}\n`);
  return app;
});
