// Scrapes a /metrics URL as Prometheus would (same Accept header, a kept-alive connection), one scrape per line read
// on stdin (`metrics`, or `healthz` for the same request to /healthz, the bench's control), and answers each with one
// JSON line on stdout: wall time in ms, body size in bytes, status. Driven line by
// line so the bench can change the metrics between scrapes (a probe round) and time the exporter's CPU per scrape;
// a separate process, so the client's cost is not counted in the exporter's CPU. Exits when stdin ends.
// Usage: node metrics-scraper.mjs URL
import http from 'node:http';
import { createInterface } from 'node:readline';

const [url] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const accept =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

function scrape(target) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get(target, { agent, headers: { Accept: accept }, timeout: 30_000 }, (response) => {
      let bytes = 0;
      response.on('data', (chunk) => (bytes += chunk.length));
      response.on('end', () => resolve({ ms: performance.now() - started, bytes, status: response.statusCode }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('scrape timed out')));
    request.on('error', reject);
  });
}

for await (const line of createInterface({ input: process.stdin })) {
  const what = line.trim();
  if (what === '') continue;
  process.stdout.write(`${JSON.stringify(await scrape(what === 'healthz' ? new URL('/healthz', url) : url))}\n`);
}
agent.destroy();
