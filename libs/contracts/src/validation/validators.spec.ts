import { IsOptional, ValidationOptions } from 'class-validator';
import { validateDto } from './validate-dto';
import { IsFutureTimestamp, IsIpOrCidr, IsIsoTimestamp, isHostname, stringRule } from './validators';
import { ApiKeyCreateDto } from '../keys/dto/api-key-create.dto';
import { ApiKeyUpdateDto } from '../keys/dto/api-key-update.dto';

/** A plain host-name rule, to probe stringRule itself (the DTOs judge domain names with IsEachHostname). */
const IsHostname = (options?: ValidationOptions) => stringRule('isHostname', isHostname, 'must be a hostname such as example.com', options);

class ProbeDto {
  @IsOptional()
  @IsFutureTimestamp()
  expiresAt?: string;

  @IsOptional()
  @IsIsoTimestamp()
  at?: string;

  @IsOptional()
  @IsHostname()
  host?: string;

  @IsOptional()
  @IsHostname({ each: true })
  hosts?: string[];

  @IsOptional()
  @IsIpOrCidr({ each: true })
  ranges?: string[];

  @IsOptional()
  @(stringRule('isShout', (value) => typeof value === 'string' && value === value.toUpperCase(), (value) => `must be upper-case, not ${value}`))
  shout?: string;
}

const problemOf = (body: object): string | null => {
  try {
    validateDto(ProbeDto, body);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
};

describe(stringRule.name, () => {
  it.each([12345, true, [], {}, ['2030-01-01T00:00:00Z']])('says %j has the wrong type, rather than quoting the rule it also fails', (value) => {
    expect(problemOf({ expiresAt: value })).toBe('expiresAt: must be a string');
    expect(problemOf({ at: value })).toBe('at: must be a string');
    expect(problemOf({ host: value })).toBe('host: must be a string');
    expect(problemOf({ shout: value })).toBe('shout: must be a string');
  });

  it('quotes the rule a string breaks, fixed or worked out from the value', () => {
    expect(problemOf({ expiresAt: '2020-01-01T00:00:00Z' })).toBe('expiresAt: must be an ISO 8601 timestamp in the future');
    expect(problemOf({ at: 'tomorrow' })).toBe('at: must be an ISO 8601 timestamp such as 2025-01-31T12:00:00Z');
    expect(problemOf({ host: 'example..com' })).toBe('host: must be a hostname such as example.com');
    expect(problemOf({ host: 'Example.COM' })).toBeNull();
    expect(problemOf({ shout: 'quiet' })).toBe('shout: must be upper-case, not quiet');
  });

  it('speaks of each value for an array, and of the type when an element is not a string', () => {
    expect(problemOf({ hosts: ['example.com', 'not a host'] })).toBe('hosts: each value must be a hostname such as example.com');
    expect(problemOf({ hosts: ['example.com', 7] })).toBe('hosts: each value must be a string');
    expect(problemOf({ ranges: ['10.0.0.0/33'] })).toBe('ranges: each value must be an IPv4/IPv6 address or CIDR range');
    expect(problemOf({ ranges: [null] })).toBe('ranges: each value must be a string');
  });

  it('refuses an IPv4-mapped range with an IPv4-sized prefix however the address is spelled (each is ::/8, every IPv4 client)', () => {
    for (const range of ['::ffff:10.0.0.0/8', '::FFFF:10.0.0.0/8', '::ffff:a00:0/8', '0:0:0:0:0:ffff:a00:0/8', '::ffff:0a00:0000/95']) {
      expect([range, problemOf({ ranges: [range] })]).toEqual([
        range,
        'ranges: each value must be an IPv4/IPv6 address or CIDR range; the prefix of an IPv4-mapped address counts IPv6 bits (::ffff:10.0.0.0/104 is 10.0.0.0/8)',
      ]);
    }
    expect(problemOf({ ranges: ['::ffff:a00:0/104', '::ffff:10.0.0.0/96', '::/8'] })).toBeNull();
  });

  it('refuses any IPv6 address written with an IPv4 tail and a prefix that ends before it: ::10.0.0.0/8 reads as 10.0.0.0/8 and is ::/8', () => {
    for (const range of ['::10.0.0.0/8', '::0.0.0.0/0', '64:ff9b::10.0.0.0/95']) {
      expect([range, problemOf({ ranges: [range] })]).toEqual([
        range,
        'ranges: each value must be an IPv4/IPv6 address or CIDR range; the prefix of an IPv4-mapped address counts IPv6 bits (::ffff:10.0.0.0/104 is 10.0.0.0/8)',
      ]);
    }
    // From /96 on the prefix reaches into the IPv4 part, so it says what it reads as.
    expect(problemOf({ ranges: ['::10.0.0.0/104', '64:ff9b::10.0.0.0/104', '64:ff9b::/96', '::10.0.0.1'] })).toBeNull();
  });

  it('refuses an IP address or range with a zone id, which no remote client address carries', () => {
    for (const range of ['fe80::1%eth0', 'fe80::%eth0/64', 'fe80::1%25eth0', 'fe80::1%']) {
      expect([range, problemOf({ ranges: [range] })]).toEqual([
        range,
        'ranges: each value must be an IPv4/IPv6 address or CIDR range; a zone id (%eth0) names an interface of one host, not a client address',
      ]);
    }
    expect(problemOf({ ranges: ['fe80::1', 'fe80::/64'] })).toBeNull();
  });

  it('passes values that keep the rule', () => {
    expect(problemOf({ expiresAt: '2999-01-01T00:00:00Z', at: '2020-01-01', host: 'example.com', hosts: ['a.example'], ranges: ['::1/128'], shout: 'LOUD' })).toBeNull();
  });
});

describe('IsNotBlank on API key names', () => {
  const nameProblem = (dto: new () => object, name: unknown): string | null => {
    try {
      validateDto(dto, { name });
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it.each([ApiKeyCreateDto, ApiKeyUpdateDto])('%p refuses a name of white space only, and says an empty one is empty', (dto) => {
    expect(nameProblem(dto, '   ')).toBe('name: must not be blank (white space or invisible characters only)');
    expect(nameProblem(dto, '\t\u00a0\n')).toBe('name: must not be blank (white space or invisible characters only)');
    expect(nameProblem(dto, '')).toBe('name: must not be empty');
    expect(nameProblem(dto, ' CI deploys ')).toBeNull();
  });

  // They list as blank as surely as spaces do: zero-width and format characters, controls, Hangul fillers, a Braille blank.
  it.each([ApiKeyCreateDto, ApiKeyUpdateDto])('%p refuses a name of invisible characters only', (dto) => {
    for (const name of ['\u200b', '\u200b\u200c\u200d\u2060', '\u00ad', '\u202e \u202c', '\u0007\u001b', '\u3164', '\u115f\u1160', '\uffa0', '\u2800']) {
      expect({ name, problem: nameProblem(dto, name) }).toEqual({ name, problem: 'name: must not be blank (white space or invisible characters only)' });
    }
    expect(nameProblem(dto, '\u200bCI')).toBeNull();
    expect(nameProblem(dto, '😀')).toBeNull();
    expect(nameProblem(dto, 'é')).toBeNull();
  });
});

describe('IsIsoTimestamp', () => {
  it.each(['0001-01-01T00:00:00Z', '0001', '0099-12', '0099-12-31', '0500-06-15T00:00:00Z', '2024-02-29', '2026', '9999-12-31T23:59:59.999Z'])('takes %s, a real date of years 1 to 9999', (at) => {
    expect(problemOf({ at })).toBeNull();
  });

  it.each(['0000-01-01T00:00:00Z', '0000-01', '0000', '2026-02-29', '2026-04-31T00:00:00Z', '2026-13-01', '2026-W48-3', '2026-329', '20261125T100000Z'])('refuses %s', (at) => {
    expect(problemOf({ at })).toBe('at: must be an ISO 8601 timestamp such as 2025-01-31T12:00:00Z');
  });
});
