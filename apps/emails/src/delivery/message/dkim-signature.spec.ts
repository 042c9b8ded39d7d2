import { generateKeyPairSync } from 'node:crypto';
import type { Readable } from 'node:stream';
import { authenticate } from 'mailauth';
import DKIM from 'nodemailer/lib/dkim';
import { dkimSign, relaxedBody, relaxedHeader } from './dkim-signature';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const FIELDS = 'From:To:Subject:Date:Message-ID:MIME-Version:Content-Type:Reply-To:Cc';

/** Folded and padded fields, a field twice, trailing blank lines: the cases canonicalization exists for. */
const MESSAGE = Buffer.from(
  [
    'From: Acme <hi@acme.test>',
    'To: Bob <bob@example.test>,',
    '\t carol@example.test',
    'Subject:   Your   receipt  ',
    'Subject: Your receipt, again',
    'Date: Wed, 02 Jan 2030 03:04:05 +0000',
    'Message-ID: <email_01TEST@acme.test>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'X-Unsigned: yes',
    '',
    'Hello  \t there ',
    '',
    'Bye',
    '',
    '',
    '',
  ].join('\r\n'),
);

function nodemailerSigned(message: Buffer): Promise<Buffer> {
  const stream: Readable = new DKIM({ domainName: 'acme.test', keySelector: 'mr1', privateKey, headerFieldNames: FIELDS, hashAlgo: 'sha256' }).sign(message);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** The tag=value pairs of the DKIM-Signature field, whitespace removed (as a verifier reads them). */
function tags(signed: Buffer): Record<string, string> {
  const field = /^DKIM-Signature:([^]*?)\r\n(?![ \t])/i.exec(signed.toString('latin1'))![1];
  return Object.fromEntries(field.split(';').map((tag) => tag.replace(/\s+/g, '').split(/=(.*)/s).slice(0, 2)).filter(([name]) => name));
}

describe(dkimSign.name, () => {
  it('canonicalizes as the relaxed example of RFC 6376 §3.4.5', () => {
    expect(relaxedHeader('A: X')).toBe('a:X');
    expect(relaxedHeader('B : Y\t\r\n\tZ  ')).toBe('b:Y Z');
    expect(relaxedBody(Buffer.from(' C \r\nD \t E\r\n\r\n\r\n')).toString()).toBe(' C\r\nD E\r\n');
  });

  it('produces the body hash, signed fields and signature nodemailer produces for the same key', async () => {
    const ours = tags(await dkimSign(MESSAGE, { domainName: 'acme.test', keySelector: 'mr1', privateKey, headerFieldNames: FIELDS }));
    const theirs = tags(await nodemailerSigned(MESSAGE));
    expect(ours).toEqual(theirs);
    expect(ours.h.split(':')).not.toContain('reply-to');
  });

  it('verifies with mailauth against the public key', async () => {
    const signed = await dkimSign(MESSAGE, { domainName: 'acme.test', keySelector: 'mr1', privateKey, headerFieldNames: FIELDS });
    expect(await dkimResult(signed)).toBe('pass');
    expect(signed.toString('latin1').split('\r\n').every((line) => line.length <= 998)).toBe(true);
  });

  describe('oversigned', () => {
    const oversigned = () => dkimSign(MESSAGE, { domainName: 'acme.test', keySelector: 'mr1', privateKey, headerFieldNames: FIELDS, oversign: true });

    it('lists every name once more than the message holds the field, absent ones once, and verifies', async () => {
      const signed = await oversigned();
      expect(tags(signed).h.split(':')).toEqual([
        ...['from', 'from', 'to', 'to', 'subject', 'subject', 'subject', 'date', 'date', 'message-id', 'message-id'],
        ...['mime-version', 'mime-version', 'content-type', 'content-type', 'reply-to', 'cc'],
      ]);
      expect(await dkimResult(signed)).toBe('pass');
      // The long h= list is folded between names: no line of the field passes 78 characters.
      const field = /^DKIM-Signature:[^]*?\r\n(?![ \t])/.exec(signed.toString('latin1'))![0];
      expect(Math.max(...field.split('\r\n').map((line) => line.length))).toBeLessThanOrEqual(78);
    });

    it.each(['From: Bank <security@acme.test>', 'Subject: Verify your account', 'Reply-To: thief@evil.test', 'Cc: someone@evil.test'])(
      'fails once %s is added above the signed fields',
      async (added) => {
        const signed = await oversigned();
        const split = signed.indexOf('\r\nFrom: ') + 2;
        const tampered = Buffer.concat([signed.subarray(0, split), Buffer.from(`${added}\r\n`), signed.subarray(split)]);
        expect(await dkimResult(tampered)).toBe('fail');
      },
    );
  });
});

async function dkimResult(signed: Buffer): Promise<string> {
  const p = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const resolver = async (name: string, type: string) => {
    if (type === 'TXT' && name === 'mr1._domainkey.acme.test') return [[`v=DKIM1; k=rsa; p=${p}`]];
    throw Object.assign(new Error(`no ${type} at ${name}`), { code: 'ENOTFOUND' });
  };
  const result = await authenticate(signed, { ip: '127.0.0.1', helo: 'mx.test', sender: 'bounces@acme.test', mta: 'mx.test', resolver, disableArc: true });
  return result.dkim.results[0].status.result;
}
