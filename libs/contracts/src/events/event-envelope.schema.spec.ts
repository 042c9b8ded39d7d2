import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { EVENT_ENVELOPE_SCHEMA } from './event-envelope.schema';

const ajv = new Ajv2020({ allErrors: true });
addFormats(ajv);
const validate = ajv.compile(EVENT_ENVELOPE_SCHEMA);
const problems = (event: object) => (validate(event) ? null : ajv.errorsText(validate.errors));

const envelope = (type: string, data: object) => ({ id: 'evt_01JD7X3Q9Y5T4V2W8K6M0N1P2R', type, createdAt: '2026-11-22T08:15:00.000Z', mode: 'live', data });
const summary = { emailId: 'email_01JD7X2Q9Y5T4V2W8K6M0N1P2R', from: 'Acme <hello@acme.com>', to: ['someone@example.com'], subject: 'Welcome', tags: [] };

describe('EVENT_ENVELOPE_SCHEMA', () => {
  it("admits a delivery outcome with no SMTP reply code: the connection failed before any server answered", () => {
    const smtp = { code: null, reply: 'ECONNREFUSED: connect ECONNREFUSED 192.0.2.1:25' };
    expect(problems(envelope('email.delivery_delayed', Object.assign({ recipient: 'someone@example.com', smtp, attempts: 1 }, summary)))).toBeNull();
    expect(problems(envelope('email.failed', Object.assign({ recipient: 'someone@example.com', smtp, attempts: 9 }, summary)))).toBeNull();
  });

  it('admits the bounce an internal service reports as the README shows it, without emailId', () => {
    expect(problems(envelope('email.bounced', { recipient: 'reader@example.com', smtp: { code: 550, reply: '550 5.1.1 user unknown' } }))).toBeNull();
  });

  it('still refuses what no publisher may send', () => {
    expect(problems(envelope('email.bounced', { emailId: summary.emailId }))).toMatch(/recipient/);
    expect(problems(envelope('email.delivered', { recipient: 'someone@example.com' }))).toMatch(/emailId/);
    expect(problems(envelope('email.delivered', Object.assign({ smtp: { code: '250' } }, summary)))).toMatch(/code/);
  });

  // The README: an event's id is 1 to 200 printable ASCII characters without spaces, and a webhook for `*` also
  // receives kinds an internal service publishes that Mailroom does not define; both reach webhooks as published.
  it("admits an internal service's own event id, as webhooks receive it", () => {
    for (const id of ['dsn-2026-11-27-0001', 'evt_01jd7x3q9y5t4v2w8k6m0n1p2r', `fbl:${'x'.repeat(196)}`]) {
      expect(problems(Object.assign(envelope('email.bounced', { recipient: 'reader@example.com' }), { id }))).toBeNull();
    }
  });

  it('admits a kind Mailroom does not define, whose data is the publisher’s own, as a webhook for * receives it', () => {
    expect(problems(envelope('email.archived', { emailId: 42, folder: 'old' }))).toBeNull();
    expect(problems(envelope('inbound.received', { messageId: '<a@b>' }))).toBeNull();
  });

  it('refuses an id or a type no event read off the stream may have', () => {
    for (const id of ['', 'has space', 'tab\there', 'é', 'x'.repeat(201)]) {
      expect(problems(Object.assign(envelope('email.bounced', { recipient: 'reader@example.com' }), { id }))).toMatch(/id/);
    }
    for (const type of ['', 't'.repeat(101), 42]) expect(problems(envelope(type as string, {}))).toMatch(/type/);
  });
});
