import { headers } from 'nats';
import { ORIGIN_HEADER, publishedBy } from './origin-header';

describe(publishedBy.name, () => {
  it('names the service whose outbox relay published the message', () => {
    const marked = headers();
    marked.set(ORIGIN_HEADER, 'emails');
    expect(publishedBy({ headers: marked })).toBe('emails');
  });

  it('names nobody for what an internal service published, with other headers or none', () => {
    const other = headers();
    other.set('Nats-Msg-Id', 'evt_1');
    expect(publishedBy({ headers: other })).toBeUndefined();
    expect(publishedBy({ headers: undefined })).toBeUndefined();
  });
});
