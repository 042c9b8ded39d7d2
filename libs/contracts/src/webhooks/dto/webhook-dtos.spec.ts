import { DomainError } from '@mailroom/errors';
import { validateDto } from '../../validation/validate-dto';
import { WebhookCreateDto } from './webhook-create.dto';
import { WebhookUpdateDto } from './webhook-update.dto';
import { webhookEventsProblem } from '../event-kinds';

function problemOf(cls: new () => object, body: unknown): string | null {
  try {
    validateDto(cls, body);
    return null;
  } catch (error) {
    return (error as DomainError).message;
  }
}

describe('webhook DTOs', () => {
  it.each([WebhookCreateDto, WebhookUpdateDto])('%p refuses an event kind longer than any kind could be, naming the item, before it is echoed', (cls) => {
    const body = { url: 'https://example.com/hook', events: ['email.sent', 'x'.repeat(100_000)] };
    expect(problemOf(cls, body)).toBe('events[1]: must be at most 64 characters');
    expect(problemOf(cls, { url: body.url, events: ['email.sent', 'x'.repeat(64)] })).toBeNull();
  });

  it.each([WebhookCreateDto, WebhookUpdateDto])('%p refuses a description that shows nothing (empty, spaces, zero-width), which GET answered as if it said something', (cls) => {
    const body = { url: 'https://example.com/hook', events: ['*'] };
    for (const description of ['', '   ', '\u200b\u200b']) {
      expect(problemOf(cls, { ...body, description })).toMatch(/^description: must not be (empty|blank)/);
    }
    expect(problemOf(cls, { ...body, description: ' CRM sync ' })).toBeNull();
    expect(problemOf(cls, { ...body, description: null })).toBeNull();
    expect(problemOf(cls, { ...body, description: 'x'.repeat(501) })).toBe('description: must be at most 500 characters');
    expect(problemOf(cls, { ...body, description: 5 })).toMatch(/^description: must be a string/);
  });
});

describe(webhookEventsProblem.name, () => {
  it('quotes an unknown kind holding CR/LF JSON-escaped, never raw', () => {
    expect(webhookEventsProblem(['email.sent', 'a\r\nb'])?.problem).toMatch(/^"a\\r\\nb" is not an event kind;/);
    expect(webhookEventsProblem(['nope'])?.problem).toMatch(/^'nope' is not an event kind;/);
  });
});
