// A code audit kept honest by a test: the places a process could be started through a shell, a host contacted,
// a name resolved or telemetry sent. Everything network-facing goes through the MCP SDK transports in src/mcp and
// the keepalive probe sender beside them, which only ever receive the configured URL.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SRC = path.join(ROOT, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : /\.ts$/.test(name) ? [full] : [];
  });
}

/** Code without comments, so a sentence in a comment does not count as a call. */
function code(file: string): string {
  return readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

function hits(pattern: RegExp, files = sources(SRC)): string[] {
  return files.flatMap((file) => (pattern.test(code(file)) ? [path.relative(ROOT, file)] : []));
}

void describe('code audit', () => {
  void it('no process is started through a shell', () => {
    assert.deepEqual(hits(/shell\s*:\s*true/), []);
    assert.deepEqual(hits(/\b(execSync|execFileSync|spawnSync)\s*\(|child_process['"][^;]*\bexec\b|\.exec\s*\(\s*['"`]/), []);
    // Servers are spawned in one place, with an explicit shell: false; the other spawn is Windows' taskkill, fixed argv.
    assert.deepEqual(hits(/\bspawn\s*\(/), ['src/mcp/childProcessTransport.ts', 'src/mcp/processGroup.ts']);
    assert.match(code(path.join(SRC, 'mcp', 'childProcessTransport.ts')), /shell:\s*false/);
    assert.match(code(path.join(SRC, 'mcp', 'processGroup.ts')), /spawn\('taskkill', \['\/pid', String\(pid\)/);
  });

  void it('no name resolution or raw sockets; HTTP only to the configured URL, by the SDK transports and the probe sender', () => {
    assert.deepEqual(hits(/from ['"](node:)?(dns|net|tls|dgram|http2)['"]|require\(['"](node:)?(dns|net|tls|http|https|dgram|http2)['"]\)/), []);
    // Keepalive probes go out on node:http directly (the cost per probe), to the URL the connection was opened with.
    assert.deepEqual(hits(/from ['"](node:)?(http|https)['"]/), ['src/mcp/httpProbe.ts']);
    const sender = code(path.join(SRC, 'mcp', 'httpProbe.ts'));
    assert.deepEqual(sender.match(/\b(httpRequest|httpsRequest)\([^)]*\)/g), ['httpsRequest(options)', 'httpRequest(options)']);
    assert.match(sender, /const options = \{ \.\.\.this\.target, method: 'POST'/);
    assert.deepEqual(sender.match(/this\.target = .*;/g), ['this.target = urlToHttpOptions(url);']);
    assert.match(code(path.join(SRC, 'mcp', 'httpConnect.ts')), /new HttpProbeSender\(settings\.probeAgents, url, server\.headers\)/);
    // One fetch: the wrapper the SDK transports call to keep a 401's WWW-Authenticate; it forwards their url unchanged.
    assert.deepEqual(hits(/\bfetch\s*\(|XMLHttpRequest|new WebSocket|EventSource\s*\(/), ['src/mcp/failureFacts.ts']);
    assert.deepEqual(code(path.join(SRC, 'mcp', 'failureFacts.ts')).match(/\bfetch\s*\([^)]*\)/g), ['fetch(url, init)']);
    const transports = hits(/new (StreamableHTTPClientTransport|SSEClientTransport)\s*\(/);
    assert.deepEqual(transports, ['src/mcp/httpConnect.ts']);
    // The URL handed to the transports is the server's own, parsed once.
    assert.match(code(path.join(SRC, 'mcp', 'httpConnect.ts')), /new URL\(server\.url\)/);
  });

  void it('no telemetry: no telemetry package, no hard-coded endpoint', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    assert.deepEqual(Object.keys(manifest.dependencies ?? {}).filter((name) => /telemetry|insights|analytics|sentry|segment|posthog|mixpanel/i.test(name)), []);
    assert.deepEqual(hits(/telemetry|applicationinsights|analytics/i), []);
    assert.deepEqual(hits(/['"`]https?:\/\/(?!127\.0\.0\.1|localhost|example\.invalid)[a-z0-9.-]+/i), []);
  });
});
