import 'reflect-metadata';
import { DomainError } from '@mailroom/errors';
import { validateDto } from '../../validation/validate-dto';
import { EmailSendDto } from './email-send.dto';

function tagsProblem(tags: unknown): string | null {
  try {
    validateDto(EmailSendDto, { from: 'a@b.test', to: 'c@d.test', subject: 's', text: 't', tags });
    return null;
  } catch (error) {
    return (error as DomainError).message;
  }
}

describe('EmailSendDto tags', () => {
  it('names the tag it refuses, by its place in the list', () => {
    expect(tagsProblem(['ok', 'not ok'])).toBe('tags[1]: must contain only A-Z, a-z, 0-9, _ and -');
    expect(tagsProblem(['ok', 'fine', 'x'.repeat(257)])).toBe('tags[2]: must be at most 256 characters');
    expect(tagsProblem(['ok', 7])).toBe('tags[1]: must be a string');
  });

  it('still names the list for what is wrong with the list itself', () => {
    expect(tagsProblem(Array.from({ length: 21 }, (_, index) => `t${index}`))).toMatch(/^tags: /);
    expect(tagsProblem('welcome')).toMatch(/^tags: /);
    expect(tagsProblem(['welcome', 'x'.repeat(256)])).toBeNull();
  });
});
