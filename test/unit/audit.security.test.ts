// A code audit kept honest by a test: the places a process could be started through a shell, a host contacted,
// a name resolved or telemetry sent. Everything network-facing goes through the MCP SDK transports in src/mcp, which
// only ever receive the configured URL; keepalive probes ride those same transports.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SRC = path.join(ROOT, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : /\.ts$/.test(name) ? [full] : [];
  });
}

/** Code without comments, so a sentence in a comment does not count as a call. */
function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1');
}

function hits(pattern: RegExp, files = sources(SRC)): string[] {
  return files.flatMap((file) => (pattern.test(code(file)) ? [path.relative(ROOT, file)] : []));
}

void describe('code audit', () => {
  void it('no process is started through a shell', () => {
    assert.deepEqual(hits(/shell\s*:\s*true/), []);
    assert.deepEqual(hits(/\b(execSync|execFileSync|spawnSync)\s*\(|child_process['"][^;]*\bexec\b|\.exec\s*\(\s*['"`]/), []);
    // Servers are spawned in one place, with an explicit shell: false; the other spawn is Windows' taskkill, fixed argv.
    assert.deepEqual(hits(/\bspawn\s*\(/), ['src/mcp/processGroup.ts', 'src/mcp/serverProcess.ts']);
    assert.match(code(path.join(SRC, 'mcp', 'serverProcess.ts')), /shell:\s*false/);
    assert.match(code(path.join(SRC, 'mcp', 'processGroup.ts')), /spawn\('taskkill', \['\/pid', String\(pid\)/);
  });

  void it('no name resolution or raw sockets; HTTP only to the configured URL, by the SDK transports', () => {
    assert.deepEqual(hits(/from ['"](node:)?(dns|dgram|http2)['"]|require\(['"](node:)?(dns|net|tls|http|https|dgram|http2)['"]\)/), []);
    // node:tls once: the certificate read of an HTTPS server that is up, a handshake to the host and port of its
    // configured URL, nothing sent after it, the socket destroyed at once.
    assert.deepEqual(hits(/from ['"](node:)?tls['"]/), ['src/mcp/peerCertificate.ts']);
    const certificate = code(path.join(SRC, 'mcp', 'peerCertificate.ts'));
    assert.deepEqual(certificate.match(/\btls\.\w+\(/g), ['tls.connect(']);
    assert.match(certificate, /const host = url\.hostname\b/);
    assert.match(certificate, /const port = url\.port \?/);
    assert.doesNotMatch(certificate, /\.(write|end)\(/);
    // node:net only for the local channel, and only on a filesystem path (Unix socket or named pipe): no host, no port.
    // And in the /probe allow-list, for address parsing and BlockList only: no socket, no name resolved.
    assert.deepEqual(hits(/from ['"](node:)?net['"]/), [
      'src/mcp/channelBind.ts',
      'src/mcp/localChannel.ts',
      'src/metrics/probe/allowList.ts',
    ]);
    assert.deepEqual([...new Set(code(path.join(SRC, 'metrics', 'probe', 'allowList.ts')).match(/\bnet\.\w+/g))].sort(), [
      'net.BlockList',
      'net.isIP',
      'net.isIPv4',
    ]);
    // The channel's bind (and its stale-socket probe) lives in channelBind.ts, its connections in localChannel.ts.
    const channel = code(path.join(SRC, 'mcp', 'channelBind.ts')) + code(path.join(SRC, 'mcp', 'localChannel.ts'));
    assert.doesNotMatch(channel, /\b(port|host)\b/i);
    assert.deepEqual(channel.match(/\b(listen|createConnection)\([^)]*\)/g), [
      'listen(path)',
      'createConnection(path)',
      'createConnection(this.path)',
    ]);
    // No second HTTP client: a probe's verdict is the one the SDK transport (what real clients use) gets.
    // The metrics endpoints (watch's /metrics, serve's /probe) are the listening sockets: servers on the address the
    // user gave, never clients; a /probe reaches its target through the same SDK transports as check.
    assert.deepEqual(hits(/from ['"](node:)?(http|https)['"]/), ['src/metrics/httpServer.ts', 'src/metrics/probe/serveHttp.ts']);
    for (const file of [
      ['metrics', 'httpServer.ts'],
      ['metrics', 'probe', 'serveHttp.ts'],
    ]) {
      assert.deepEqual(code(path.join(SRC, ...file)).match(/\bhttp\.\w+\(/g), ['http.createServer('], file.join('/'));
    }
    // Two fetch wrappers, both handed to the SDK transports and forwarding their request unchanged: the CLI's
    // proxy-aware fetch, and the one that notes a 401's WWW-Authenticate for the cause table and whether each POST's
    // reply is an event stream.
    assert.deepEqual(hits(/\bfetch\s*\(|XMLHttpRequest|new WebSocket|EventSource\s*\(/), [
      'src/mcp/httpProxy.ts',
      'src/mcp/observedFetch.ts',
    ]);
    assert.deepEqual(code(path.join(SRC, 'mcp', 'observedFetch.ts')).match(/\bfetch\s*\([^)]*\)/g), ['fetch(url, init)']);
    const proxy = code(path.join(SRC, 'mcp', 'httpProxy.ts'));
    assert.deepEqual(proxy.match(/\b(fetch|send)\(\w+/g), ['fetch(url', 'send(target']);
    const transports = hits(/new (StreamableHTTPClientTransport|SSEClientTransport)\s*\(/);
    assert.deepEqual(transports, ['src/mcp/httpConnect.ts']);
    // The URL handed to the transports is the server's own, parsed once.
    assert.match(code(path.join(SRC, 'mcp', 'httpConnect.ts')), /new URL\(server\.url\)/);
  });

  void it('no telemetry: no telemetry package, no hard-coded endpoint', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    // OpenTelemetry is the user's own OTLP export of server health (issue 14): off unless OTEL_EXPORTER_OTLP_* names
    // a collector, and built in one file only.
    const otlpPackages = [
      '@opentelemetry/api',
      '@opentelemetry/exporter-metrics-otlp-http',
      '@opentelemetry/resources',
      '@opentelemetry/sdk-metrics',
    ];
    assert.deepEqual(
      Object.keys(manifest.dependencies ?? {}).filter(
        (name) => /telemetry|insights|analytics|sentry|segment|posthog|mixpanel/i.test(name) && !otlpPackages.includes(name),
      ),
      [],
    );
    assert.deepEqual(hits(/telemetry|applicationinsights|analytics/i), ['src/metrics/otlpSink.ts']);
    assert.deepEqual(hits(/new OtlpSink\(/), ['src/metrics/index.ts']);
    assert.match(code(path.join(SRC, 'metrics', 'index.ts')), /if \(otlpConfigured\(options\.env\)\) \{[^}]*new OtlpSink\(/);
    assert.deepEqual(hits(/['"`]https?:\/\/(?!127\.0\.0\.1|localhost|example\.invalid)[a-z0-9.-]+/i), []);
  });
});
