import './register-paths';
import { parseArgs } from 'node:util';
import { ConfigError, loadProcessConfig } from '@mailroom/config';
import { ApiKeyCreateDto, validateDto } from '@mailroom/contracts';
import { DomainError } from '@mailroom/errors';
import { issueKeyDirectly } from './issue-key';
import { resolveDatabase } from './local/local-database';
import { configurationTable } from './config-table';

const USAGE = `Usage:
  npm run -s cli -- keys create --name NAME [--permissions a,b] [--test]
  npm run -s cli -- config table          (the README's configuration table)`;

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
  try {
    const created = await issueKeyDirectly(database.url, {
      name: input.name,
      mode: values.test ? 'test' : 'live',
      permissions: input.permissions ?? ['*'],
      domainRestrictions: [],
      ipRestrictions: [],
      expiresAt: null,
    });
    process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
  } finally {
    await database.stop();
  }
}

async function main(argv: string[]): Promise<void> {
  const [resource, verb, ...rest] = argv;
  if (resource === 'keys' && verb === 'create') return keysCreate(rest);
  if (resource === 'config' && verb === 'table') return void process.stdout.write(`${configurationTable()}\n`);
  throw new Error(USAGE);
}

main(process.argv.slice(2)).catch((error: Error) => {
  const message = error instanceof DomainError ? `${error.code}: ${error.message}` : error.message;
  process.stderr.write(`${message}\n`);
  process.exit(error instanceof ConfigError ? 78 : 2);
});
