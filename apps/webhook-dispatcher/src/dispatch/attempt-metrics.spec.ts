import { attemptOutcomeLabel } from './attempt-metrics';
import { classifyAttempt, HttpResult } from './attempt-outcome';

describe(attemptOutcomeLabel.name, () => {
  const now = new Date('2025-01-01T00:00:00Z');
  const label = (result: Partial<HttpResult>) => {
    const full: HttpResult = { statusCode: null, durationMs: 5, error: null, ...result };
    return attemptOutcomeLabel(full, classifyAttempt(full, now));
  };

  it.each([
    [200, 'success'],
    [204, 'success'],
    [410, 'gone'],
    [429, 'throttled'],
    [503, 'throttled'],
    [301, 'redirect'],
    [500, 'http_error'],
    [404, 'http_error'],
  ])('names status %i %s', (statusCode, expected) => {
    expect(label({ statusCode })).toBe(expected);
  });

  it('names failures without a status by their cause', () => {
    expect(label({ failure: 'timeout', error: 'no complete answer' })).toBe('timeout');
    expect(label({ failure: 'refused', error: 'refused to connect' })).toBe('refused');
    expect(label({ failure: 'aborted', error: 'dispatcher shutting down' })).toBe('aborted');
    expect(label({ failure: 'network', error: 'ECONNREFUSED' })).toBe('network_error');
    expect(label({ error: 'ECONNRESET' })).toBe('network_error');
    expect(label({ failure: 'dispatcher', error: 'signing secret could not be decrypted' })).toBe('dispatcher_error');
  });
});
