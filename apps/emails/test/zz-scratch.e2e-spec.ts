import { startStack } from '@mailroom/testing';
import { emailBody } from './emails-api-fixtures';
it('debug', async () => {
  const stack = await startStack({ env: { RATE_LIMIT_PER_SECOND: '0', LOG_LEVEL: 'error' } });
  try {
    const r = await stack.api.post('/v1/emails', emailBody({ from: 'hi@unknown-sender.test' }));
    console.log(r.status, JSON.stringify(r.body));
  } finally { await stack.stop(); }
});
