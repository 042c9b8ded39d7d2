import './register-paths';
import { parseArgs } from 'node:util';
import { ConfigError, loadProcessConfig } from '@mailroom/config';
import { ApiKeyCreateDto, validateDto } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import { issueKeyDirectly } from './issue-key';
import { resolveDatabase } from './local/local-database';
import { configurationTable } from './config-table';
import { DkimZoneExportReply, DomainsSubjects } from '@mailroom/contracts';
import { connect, ErrorCode, NatsError } from 'nats';
import { natsServerAccess, natsUrlWithoutCredentials } from '@mailroom/runtime';

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

/** Node's parseArgs refused the command line (an unknown flag, a stray argument): the usage says what it takes. */
const isUsageMistake = (error: Error) => ((error as NodeJS.ErrnoException).code ?? '').startsWith('ERR_PARSE_ARGS_');

/** A command that takes no flags or arguments refuses them, rather than run as if they meant nothing. */
const takesNothing = (args: string[]) => void parseArgs({ args, options: {}, strict: true });

const asksForHelp = (argv: string[]) => argv.some((arg) => arg === '--help' || arg === '-h') || argv[0] === 'help';

/** Prints only the created object on stdout, so automation can parse it. */
async function keysCreate(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { name: { type: 'string' }, permissions: { type: 'string' }, test: { type: 'boolean', default: false } },
    strict: true,
  });
  const permissions = values.permissions?.split(',').map((p) => p.trim()).filter(Boolean);
  // Given but empty, it is an unset shell variable far more often than a wish for a key that can do nothing.
  if (permissions?.length === 0) throw new Error('--permissions names no permission: list some (emails:send,emails:read), or leave it out for a full-access key');
  const input = validateDto(ApiKeyCreateDto, { name: values.name, ...(permissions ? { permissions } : {}) });
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

/** What nats.js says when the stack is not there ("CONNECTION_REFUSED", "503"), said in words that name NATS_URL. */
function explainNatsFailure(natsUrl: string, step: 'connect' | 'request') {
  const at = `NATS_URL=${natsUrlWithoutCredentials(natsUrl)}`;
  return (error: NatsError): never => {
    if (step === 'connect') throw new Error(`cannot reach NATS at ${at} (${error.message}): start the stack first (npm start), or point NATS_URL at its NATS`);
    if (error.code === ErrorCode.NoResponders) throw new Error(`no domains service answers on the NATS at ${at}: start the stack first (npm start), with this NATS_URL`);
    if (error.code === ErrorCode.Timeout) throw new Error(`the domains service on the NATS at ${at} did not answer within 10 s`);
    throw error;
  };
}

/** Prints the DKIM zone as a standard zone file, for operators who host the zone on their own DNS. */
async function domainsZoneExport(args: string[]): Promise<void> {
  takesNothing(args);
  const config = loadProcessConfig('launcher');
  const connection = await connect({ timeout: 3000, ...natsServerAccess(config) }).catch(explainNatsFailure(config.NATS_URL, 'connect'));
  try {
    // Nest's wire format: {pattern, data, id} in, {response, err} out.
    const reply = await connection
      .request(DomainsSubjects.zoneExport, JSON.stringify({ pattern: DomainsSubjects.zoneExport, data: {}, id: 'cli' }), { timeout: 10000 })
      .catch(explainNatsFailure(config.NATS_URL, 'request'));
    const packet = JSON.parse(reply.string()) as { response?: DkimZoneExportReply; err?: unknown };
    if (!packet.response) throw new Error(`the domains service answered with an error: ${JSON.stringify(packet.err)}`);
    process.stdout.write(`${packet.response.zoneFile}\n`);
  } finally {
    await connection.close();
  }
}

function printConfigTable(args: string[]): void {
  takesNothing(args);
  process.stdout.write(`${configurationTable()}\n`);
}

async function main(argv: string[]): Promise<void> {
  // Asking for help is no mistake: the usage goes to stdout, exit 0 (an unknown command below gets it on stderr, exit 2).
  if (asksForHelp(argv)) return void process.stdout.write(`${USAGE}\n`);
  const [resource, verb, ...rest] = argv;
  if (resource === 'keys' && verb === 'create') return keysCreate(rest);
  if (resource === 'domains' && verb === 'zone-export') return domainsZoneExport(rest);
  if (resource === 'config' && verb === 'table') return printConfigTable(rest);
  throw new Error(USAGE);
}

main(process.argv.slice(2)).catch((error: Error) => {
  const message = error instanceof DomainError ? `${error.code}: ${error.message}` : error.message;
  process.stderr.write(`${message}\n${isUsageMistake(error) ? `${USAGE}\n` : ''}`);
  process.exit(error instanceof ConfigError ? 78 : 2);
});
