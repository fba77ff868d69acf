// Scrapes a /metrics URL COUNT times one after the other, as Prometheus would (same Accept header, a kept-alive
// connection), and prints one JSON line: per-scrape wall time in ms and body size in bytes. A separate process, so
// the client's cost is not counted in the exporter's CPU.
// Usage: node metrics-scraper.mjs URL COUNT
import http from 'node:http';

const [url, countArg] = process.argv.slice(2);
const count = Number(countArg);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const accept = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

function scrape() {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get(url, { agent, headers: { Accept: accept }, timeout: 30_000 }, (response) => {
      let bytes = 0;
      response.on('data', (chunk) => (bytes += chunk.length));
      response.on('end', () => resolve({ ms: performance.now() - started, bytes, status: response.statusCode }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('scrape timed out')));
    request.on('error', reject);
  });
}

const samples = [];
for (let i = 0; i < count; i++) samples.push(await scrape());
agent.destroy();
process.stdout.write(`${JSON.stringify(samples)}\n`);
