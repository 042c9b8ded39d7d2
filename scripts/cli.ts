import './register-paths';
import { parseArgs } from 'node:util';
import { ConfigError, loadProcessConfig } from '@mailroom/config';
import { ApiKeyCreateDto, validateDto } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import { issueKeyDirectly } from './issue-key';
import { resolveDatabase } from './local/local-database';
import { configurationTable } from './config-table';
import { DkimZoneExportReply, DomainsSubjects } from '@mailroom/contracts';
import { connect } from 'nats';
import { natsServerAccess } from '@mailroom/runtime';

const USAGE = `Usage:
  npm run -s cli -- keys create --name NAME [--permissions a,b] [--test]
  npm run -s cli -- domains zone-export   (the DKIM zone file; needs the running stack)
  npm run -s cli -- config table          (the README's configuration table)`;

/** Postgres's undefined_table: the keys schema's migrations have not run on this database. */
const UNDEFINED_TABLE = '42P01';

/** A CLI run before the first `npm start` (or the migrations Job) meets no table; say what to do, not what Postgres said. */
function explainUnmigrated(error: unknown): never {
  if ((error as { driverError?: { code?: string } }).driverError?.code !== UNDEFINED_TABLE) throw error;
  throw new Error('the keys schema is not migrated on this database yet: start the stack once (npm start runs the migrations), or run npm run migrate with DATABASE_URL set, then try again');
}

const asksForHelp = (argv: string[]) => argv.some((arg) => arg === '--help' || arg === '-h') || argv[0] === 'help';

/** Prints only the created object on stdout, so automation can parse it. */
async function keysCreate(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { name: { type: 'string' }, permissions: { type: 'string' }, test: { type: 'boolean', default: false } },
    strict: true,
  });
  const input = validateDto(ApiKeyCreateDto, {
    name: values.name,
    ...(values.permissions !== undefined ? { permissions: values.permissions.split(',').map((p) => p.trim()).filter(Boolean) } : {}),
  });
  const config = loadProcessConfig('launcher');
  const database = await resolveDatabase(config, (line) => process.stderr.write(`${line}\n`));
  // An embedded Postgres this command started is stopped on Ctrl-C too, not left running.
  const stopOnSignal = () => void database.stop().finally(() => process.exit(130));
  process.once('SIGINT', stopOnSignal).once('SIGTERM', stopOnSignal);
  try {
    const created = await issueKeyDirectly(database.url, {
      name: input.name,
      mode: values.test ? 'test' : 'live',
      permissions: input.permissions ?? ['*'],
      domainRestrictions: [],
      ipRestrictions: [],
      expiresAt: null,
    }).catch(explainUnmigrated);
    process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
  } finally {
    await database.stop();
  }
}

/** Prints the DKIM zone as a standard zone file, for operators who host the zone on their own DNS. */
async function domainsZoneExport(): Promise<void> {
  const config = loadProcessConfig('launcher');
  const connection = await connect({ timeout: 3000, ...natsServerAccess(config) });
  try {
    // Nest's wire format: {pattern, data, id} in, {response, err} out.
    const reply = await connection.request(
      DomainsSubjects.zoneExport,
      JSON.stringify({ pattern: DomainsSubjects.zoneExport, data: {}, id: 'cli' }),
      { timeout: 10000 },
    );
    const packet = JSON.parse(reply.string()) as { response?: DkimZoneExportReply; err?: unknown };
    if (!packet.response) throw new Error(`the domains service answered with an error: ${JSON.stringify(packet.err)}`);
    process.stdout.write(`${packet.response.zoneFile}\n`);
  } finally {
    await connection.close();
  }
}

async function main(argv: string[]): Promise<void> {
  // Asking for help is no mistake: the usage goes to stdout, exit 0 (an unknown command below gets it on stderr, exit 2).
  if (asksForHelp(argv)) return void process.stdout.write(`${USAGE}\n`);
  const [resource, verb, ...rest] = argv;
  if (resource === 'keys' && verb === 'create') return keysCreate(rest);
  if (resource === 'domains' && verb === 'zone-export') return domainsZoneExport();
  if (resource === 'config' && verb === 'table') return void process.stdout.write(`${configurationTable()}\n`);
  throw new Error(USAGE);
}

main(process.argv.slice(2)).catch((error: Error) => {
  const message = error instanceof DomainError ? `${error.code}: ${error.message}` : error.message;
  process.stderr.write(`${message}\n`);
  process.exit(error instanceof ConfigError ? 78 : 2);
});
