import { failedAttemptAtStoredUrl } from './support/stored-url-attempt';
import { webhookSuite } from './support/webhook-suite';

/**
 * WEBHOOK_ALLOW_HTTP off, private networks allowed (so that the loopback receiver could be reached, were the
 * scheme not checked): only https URLs are sent to.
 */
describe('webhook URL scheme when http is not allowed', () => {
  const suite = webhookSuite({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '0s', WEBHOOK_POLL_MS: '50' });

  /**
   * An http URL can still be stored: the webhook was made while WEBHOOK_ALLOW_HTTP was true (a development setup
   * taken to production). Sending to it would carry the signed event, with its recipients' addresses, in clear;
   * the attempt is refused and recorded as a failure, as a stored refused literal address is.
   */
  it('refuses to send to a stored http URL, recording a failed attempt: nothing reaches the receiver', async () => {
    const { webhook, delivery } = await failedAttemptAtStoredUrl(suite, suite.receiver.url('/plain'), 'email.delivered');
    expect(delivery.error).toBe('not sent: the URL must be an https URL');
    expect(delivery.responseCode).toBeNull();
    expect((await suite.stack.api.get(`/v1/webhooks/${webhook.id}`)).body).toMatchObject({ status: 'failing', failureCount: 1 });
    expect(suite.receiver.requests).toHaveLength(0);
  });
});
