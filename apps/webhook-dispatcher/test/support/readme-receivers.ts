import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import * as ts from 'typescript';
import { eventually, freePort } from '@mailroom/testing';
import * as verifySignature from '../../../../libs/contracts/src/webhooks/verify-signature';

const ROOT = join(__dirname, '..', '..', '..', '..');
const README = join(ROOT, 'README.md');

/**
 * A code sample of a README section, by the comment on its first line (`// NestJS: …`, `# Python …`,
 * `// receiver.js…`): what a receiver copies, so the tests run them as written.
 */
function readmeSample(heading: string, firstLineStart: string): string {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no section ${heading}`);
  const section = readme.slice(start + heading.length + 2);
  const end = section.search(/\n#{2,3} /);
  const samples = [...section.slice(0, end < 0 ? undefined : end).matchAll(/```\w*\n([\s\S]*?)```/g)].map((match) => match[1]);
  const sample = samples.find((code) => code.startsWith(firstLineStart));
  if (!sample) throw new Error(`README's "${heading}" has no sample starting with ${firstLineStart}`);
  return sample;
}

function readmeSignatureSample(firstLineStart: string): string {
  return readmeSample('### Verifying a signature', firstLineStart);
}

/** body-parser's default `limit`: what express.raw() and Nest on Express (its default platform) read unless told. */
const BODY_PARSER_DEFAULT_LIMIT = '100kb';
const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2 };

/** The most bytes of body a README sample (`// Express`, `// NestJS`) has its Express body parser read: the `limit` it gives, or the default. */
export function readmeBodyLimitBytes(sample: '// Express' | '// NestJS'): number {
  const [, amount, unit] = /limit:\s*'(\d+)(b|kb|mb)'/i.exec(readmeSignatureSample(sample)) ?? /^(\d+)(kb)$/.exec(BODY_PARSER_DEFAULT_LIMIT)!;
  return Number(amount) * SIZE_UNITS[unit.toLowerCase()];
}

export interface SampleReceiver {
  url: string;
  close(): Promise<void>;
}

/**
 * The README's NestJS handler as the body of a controller, in an app created with `{ rawBody: true }` as the README
 * says (on Fastify, the platform installed here), its `./verify-signature` import the helper the README says to copy.
 */
export async function startReadmeNestReceiver(): Promise<SampleReceiver> {
  const source = [
    "import { BadRequestException, Controller, Headers, HttpCode, Post, RawBodyRequest, Req } from '@nestjs/common';",
    "import { verifyWebhookSignature } from './verify-signature';",
    '@Controller()',
    'export class ReadmeReceiver {',
    readmeSignatureSample('// NestJS'),
    '}',
  ].join('\n');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, experimentalDecorators: true, emitDecoratorMetadata: true },
  });
  const compiled: { ReadmeReceiver?: new () => unknown } = {};
  const load = (name: string) => (name === './verify-signature' ? verifySignature : require(name));
  new Function('require', 'exports', outputText)(load, compiled);

  @Module({ controllers: [compiled.ReadmeReceiver!] })
  class ReadmeReceiverModule {}

  const app = await NestFactory.create<NestFastifyApplication>(ReadmeReceiverModule, new FastifyAdapter(), { rawBody: true, logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mailroom`, close: () => app.close() };
}

export interface VerifyCase {
  body: string;
  header: string | null;
  secret: string;
}

/** What the README's Python function answers for each case, run by python3 with the raw body as bytes. */
export function runReadmePythonVerifier(cases: VerifyCase[]): Promise<boolean[]> {
  const driver = [
    readmeSignatureSample('# Python'),
    'import base64, json, sys',
    'for case in json.load(sys.stdin):',
    "    print(json.dumps(verify_webhook_signature(base64.b64decode(case['body']), case['header'], case['secret'])))",
  ].join('\n');
  const input = JSON.stringify(cases.map((item) => Object.assign({}, item, { body: Buffer.from(item.body).toString('base64') })));
  return new Promise((resolve, reject) => {
    const child = execFile('python3', ['-c', driver], { timeout: 10_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`python3 failed: ${error.message}\n${stderr}`));
      resolve(stdout.trim().split('\n').map((line) => JSON.parse(line) as boolean));
    });
    child.stdin!.end(input);
  });
}

export interface LocalReceiverProcess extends SampleReceiver {
  /** What the process printed so far, stdout and stderr. */
  output(): string;
}

/** A temporary directory laid out as the recipe's repository root: the README's `receiver.js`, and `dist` this checkout's build. */
export function readmeReceiverDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'readme-receiver-'));
  writeFileSync(join(directory, 'receiver.js'), readmeSample('### Try it locally', '// receiver.js'));
  symlinkSync(join(ROOT, 'dist'), join(directory, 'dist'));
  return directory;
}

/**
 * The README's "Try it locally" `receiver.js`, as written, run by node as the recipe runs it: from a directory
 * whose `dist` is this checkout's build (the recipe's repository root), with the secret and a port of its own.
 */
export async function startReadmeLocalReceiver(secret: string): Promise<LocalReceiverProcess> {
  const directory = readmeReceiverDirectory();
  const port = await freePort();
  const env = { PATH: process.env.PATH ?? '', MAILROOM_WEBHOOK_SECRET: secret, RECEIVER_PORT: String(port) };
  const child = spawn(process.execPath, ['receiver.js'], { cwd: directory, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(directory, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}/mailroom`;
  try {
    // The recipe sends once the receiver says it listens: so does the test.
    await eventually(() => {
      if (child.exitCode !== null) throw new Error(`receiver.js exited ${child.exitCode}: ${output}`);
      return output.includes(`listening on ${url}\n`);
    });
  } catch (error) {
    await close();
    throw error;
  }
  return { url, close, output: () => output };
}
