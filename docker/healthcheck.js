// Container health check without curl in the image: `node docker/healthcheck.js URL`
// exits 0 when URL answers 2xx within 3 s, 1 otherwise.
const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: node docker/healthcheck.js URL\n');
  process.exit(64);
}
fetch(url, { signal: AbortSignal.timeout(3000) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
