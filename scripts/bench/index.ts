import '../register-paths';
import { analyticsBench } from './analytics.bench';
import { authBench } from './auth.bench';
import { listBench } from './list.bench';
import { floorBench } from './floor.bench';
import { calibrateMachine } from './machine-calibration';
import { sendBench } from './send.bench';
import { smtpBench } from './smtp.bench';
import { webhooksBench } from './webhooks.bench';

/** `npm run bench -- <name>`: benchmarks are not tests; their figures go in the README. */
const BENCHES: Record<string, () => Promise<void>> = {
  analytics: analyticsBench,
  auth: authBench,
  floor: floorBench,
  list: listBench,
  send: sendBench,
  smtp: smtpBench,
  webhooks: webhooksBench,
};

async function main(name: string | undefined): Promise<void> {
  const bench = name && BENCHES[name];
  if (!bench) throw new Error(`usage: npm run bench -- <${Object.keys(BENCHES).join('|')}>`);
  process.stdout.write(`mailroom bench ${name} — ${new Date().toISOString()}, ${require('node:os').cpus().length} cores\n`);
  process.stdout.write(`${await calibrateMachine()}\n`);
  await bench();
}

main(process.argv[2]).then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  },
);
