import '../../../scripts/register-paths';
import 'reflect-metadata';
import { describeListeners, runMain } from '@mailroom/runtime';
import { bootstrapGateway } from './bootstrap';

runMain('gateway', async (config) => {
  const app = await bootstrapGateway(config);
  // Every address it bound (HOST=localhost binds two), as bound: 0.0.0.0 is every interface, not 127.0.0.1.
  process.stdout.write(`Mailroom gateway listening on ${describeListeners(app.getHttpAdapter().getInstance().addresses(), 'http')}\n`);
  return app;
});
