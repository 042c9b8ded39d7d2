import 'reflect-metadata';
import { EmailListQueryDto } from '../emails/dto/email-list-query.dto';
import { EmailSendDto } from '../emails/dto/email-send.dto';
import { asUtcTimestamp } from './utc-timestamp';
import { validateDto } from './validate-dto';

describe(asUtcTimestamp.name, () => {
  it('reads a date-time without an offset as UTC', () => {
    expect(asUtcTimestamp('2026-12-01T09:30:00')).toBe('2026-12-01T09:30:00Z');
    expect(asUtcTimestamp('2026-12-01T09:30')).toBe('2026-12-01T09:30Z');
    expect(asUtcTimestamp('2026-12-01 09:30:00.250')).toBe('2026-12-01T09:30:00.250Z');
  });

  it('leaves an explicit offset, a bare date and anything else as it is', () => {
    for (const value of ['2026-12-01T09:30:00Z', '2026-12-01T09:30:00+05:30', '2026-12-01T09:30:00-0800', '2026-12-01', 'tomorrow', 42, null]) {
      expect(asUtcTimestamp(value)).toBe(value);
    }
  });

  it('is what the DTOs hand on, so no service reads such a time in its own zone', () => {
    const send = validateDto(EmailSendDto, { from: 'a@b.test', to: 'c@d.test', subject: 's', text: 't', scheduledAt: '2026-12-01T09:30:00' });
    expect(send.scheduledAt).toBe('2026-12-01T09:30:00Z');
    const list = validateDto(EmailListQueryDto, { from_date: '2026-12-01T00:00:00', to_date: '2026-12-02' }, 'query');
    expect([list.from_date, list.to_date]).toEqual(['2026-12-01T00:00:00Z', '2026-12-02']);
  });
});
