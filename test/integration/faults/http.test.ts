// Fault matrix, Streamable HTTP and legacy SSE rows: real fault-server processes on 127.0.0.1 monitored by the real
// registry and connector.
import { describe, it, type TestContext } from 'node:test';
import type { MonitorSettings } from '../../../src/core/monitorTypes';
import { startFaultHttp, startModernHttp, type RunningServer } from '../../helpers/servers';
import {
  assertAuthRetryPace,
  assertNoStorm,
  assertRow,
  describeObservation,
  hangAfterConnectRow,
  ignoresPingRow,
  modernOnlyRow,
  okProbes,
  settle,
  slowPongOverTimeoutRow,
  violationRow,
} from './expect';
import { FAST_SETTINGS, observe, ROW_CONCURRENCY, serverConfig, sleep, type Observed } from './harness';
import { QuirkyHttpServer, type Reply } from '../mcp/quirkyHttp';

type Remote = 'http' | 'sse';

interface HttpRow {
  readonly name: string;
  readonly fault: string;
  readonly transports: readonly Remote[];
  readonly settings?: Partial<MonitorSettings>;
  /** Parsing 50 MB blocks this process's event loop for everyone: such rows run alone, after the others. */
  readonly heavy?: boolean;
  readonly check: (observed: Observed, t: TestContext, server: RunningServer, transport: Remote) => Promise<void>;
}

const BOTH: readonly Remote[] = ['http', 'sse'];

async function statusRow(observed: Observed, t: TestContext, code: number): Promise<void> {
  const auth = code === 401 || code === 403;
  await settle(observed, `HTTP ${code} reported`, (s) => s.lastError?.httpStatus === code && s.state !== 'connecting');
  const status = observed.status();
  assertRow(status.state === (auth ? 'auth-required' : 'down'), `state ${auth ? 'auth-required' : 'down'}`, observed);
  assertRow(status.lastError?.kind === (auth ? 'auth' : 'unreachable'), `error kind ${auth ? 'auth' : 'unreachable'}`, observed);
  // Watch the retry pace for a while: auth waits for the backoff ceiling, a 500 backs off exponentially.
  await sleep(auth ? 4_500 : 6_000);
  if (auth) assertAuthRetryPace(t, observed);
  else assertNoStorm(t, observed);
}

const rows: HttpRow[] = [
  {
    name: 'hang after connect -> timeout, down, one probe per connection, reconnect',
    fault: 'hang-all',
    transports: BOTH,
    check: hangAfterConnectRow,
  },
  {
    name: 'hang from the start -> connect timeout, down, backoff',
    fault: 'hang-start',
    transports: BOTH,
    settings: { connectTimeoutMs: 1_500 },
    check: async (observed, t) => {
      await settle(observed, 'a connect timeout', (s) => s.lastError?.kind === 'timeout' && s.state === 'down');
      assertRow(observed.connector.connections.length === 0, 'never connected', observed);
      assertNoStorm(t, observed);
    },
  },
  {
    name: 'slow pong under the timeout -> up, no reconnect',
    fault: 'slow-pong:150',
    transports: BOTH,
    settings: { timeoutMs: 2_000 },
    check: async (observed, t) => {
      await settle(observed, 'two answered pings', () => okProbes(observed, 'ping') >= 2);
      assertRow(observed.status().state === 'up' && (observed.status().lastRttMs ?? 0) >= 140, 'up, RTT shows the delay', observed);
      assertRow(observed.connector.attempts.length === 1, 'one connect', observed);
      assertNoStorm(t, observed);
    },
  },
  {
    name: 'slow pong over the timeout -> timeout, down, never retried',
    fault: 'slow-pong:3000',
    transports: BOTH,
    check: slowPongOverTimeoutRow,
  },
  {
    name: 'non-empty pong -> one reconnect, then non-conformant on tools/list',
    fault: 'nonempty-pong',
    transports: BOTH,
    check: (o, t) => violationRow(o, t, 'non-empty'),
  },
  {
    name: 'error pong -> one reconnect, then non-conformant on tools/list',
    fault: 'error-pong',
    transports: BOTH,
    check: (o, t) => violationRow(o, t, 'error-reply'),
  },
  {
    name: 'ignores ping -> one reconnect, then non-conformant probed with tools/list',
    fault: 'ignore-ping',
    transports: BOTH,
    check: ignoresPingRow,
  },
  {
    name: '50 MB message (tools/list fallback) -> carried, alive',
    fault: 'nonempty-pong,big-message:52428800',
    transports: BOTH,
    heavy: true,
    settings: { timeoutMs: 15_000 },
    check: async (observed) => {
      await settle(observed, 'a 50 MB tools/list answered', (s) => s.nonConformant && okProbes(observed, 'tools/list') >= 1, 40_000);
      assertRow(observed.status().state === 'suspect' && observed.connector.attempts.length === 2, 'alive, no further reconnect', observed);
    },
  },
  {
    name: 'SSE stream dropped on Streamable HTTP (standby GET) -> still up, no reconnect',
    fault: 'drop-sse:300',
    transports: ['http'],
    check: async (observed, t) => {
      await settle(observed, 'three answered pings', () => okProbes(observed, 'ping') >= 3);
      assertRow(observed.status().state === 'up' && observed.connector.attempts.length === 1, 'up on one connection', observed);
      assertNoStorm(t, observed);
    },
  },
  {
    name: 'SSE stream dropped on legacy SSE -> down at once (no probe needed), reconnect, up again',
    fault: 'drop-sse:1500',
    transports: ['sse'],
    settings: { intervalMs: { stdio: 60_000, http: 60_000, sse: 60_000 } },
    check: async (observed, t) => {
      await settle(observed, 'a lost stream and a fresh connection', (_s, tr) =>
        tr.some((x, i) => x.to === 'down' && x.error?.kind === 'unreachable' && tr.slice(i).some((y) => y.to === 'up')),
      );
      // The dropped connection was never probed; the fresh one is (it is verifying until its first probe answers).
      assertRow(observed.connector.connections[0]?.probes.length === 0, 'the drop was seen without a probe', observed);
      assertNoStorm(t, observed);
    },
  },
  {
    name: 'expired session (404) on Streamable HTTP -> renewed inside the probe, no reconnect',
    fault: 'expire-session:3',
    transports: ['http'],
    check: async (observed, t) => {
      await settle(observed, 'four answered pings', () => okProbes(observed, 'ping') >= 4);
      assertRow(observed.status().state === 'up' && observed.connector.attempts.length === 1, 'up on one connection', observed);
      assertRow(
        observed.logger.lines.some((line) => /no longer knows the session/.test(line)),
        'renewal logged',
        observed,
      );
      assertNoStorm(t, observed);
    },
  },
  {
    name: 'expired session (404 and stream end) on legacy SSE -> a new session by reconnect, up again',
    fault: 'expire-session:3',
    transports: ['sse'],
    check: async (observed, t) => {
      await settle(
        observed,
        'up again on a second session',
        (s) => observed.connector.connections.length >= 2 && s.state === 'up' && okProbes(observed, 'ping') >= 2,
      );
      assertNoStorm(t, observed);
    },
  },
  {
    name: '401 -> auth-required, retried only at the backoff ceiling',
    fault: 'status:401',
    transports: BOTH,
    check: (o, t) => statusRow(o, t, 401),
  },
  {
    name: '403 -> auth-required, retried only at the backoff ceiling',
    fault: 'status:403',
    transports: BOTH,
    check: (o, t) => statusRow(o, t, 403),
  },
  { name: '500 -> down (unreachable), exponential backoff', fault: 'status:500', transports: BOTH, check: (o, t) => statusRow(o, t, 500) },
  {
    name: 'modern-only server -> up on server/discover, never pinged',
    fault: 'modern',
    transports: ['http'],
    check: modernOnlyRow,
  },
];

function defineRow(row: HttpRow, transport: Remote): void {
  void it(`${row.fault} over ${transport}: ${row.name}`, async (t) => {
    const server =
      row.fault === 'modern' ? await startModernHttp() : await startFaultHttp(transport, row.fault, ['--max-lifetime-ms', '120000']);
    const observed = observe(serverConfig(`${transport}-${row.fault}`, transport, server.url), { ...FAST_SETTINGS, ...row.settings });
    try {
      await row.check(observed, t, server, transport);
    } catch (error) {
      t.diagnostic(describeObservation(observed));
      t.diagnostic(`server stderr:\n${server.stderrTail().slice(-2_000)}`);
      throw error;
    } finally {
      await observed.dispose();
      await server.stop();
    }
  });
}

void describe('fault matrix: Streamable HTTP and legacy SSE', { concurrency: ROW_CONCURRENCY }, () => {
  for (const row of rows.filter((r) => !r.heavy)) for (const transport of row.transports) defineRow(row, transport);
});

void describe('fault matrix: Streamable HTTP and legacy SSE, heavy rows one at a time', { concurrency: 1 }, () => {
  for (const row of rows.filter((r) => r.heavy)) for (const transport of row.transports) defineRow(row, transport);
});

// Issue 9 decision: an HTTP error or a page that is not MCP in answer to ping, while initialize works, is a protocol
// violation under the same storm guard as an error pong: one reconnect, then non-conformant, watched with tools/list.
const httpErrorPings: Array<[string, Reply]> = [
  ['HTTP 500', (_, response) => response.writeHead(500, { 'content-type': 'text/plain' }).end('internal error')],
  ['a 200 with HTML', (_, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome</body></html>')],
];

void describe('fault matrix: HTTP errors in answer to ping', { concurrency: ROW_CONCURRENCY }, () => {
  for (const [label, reply] of httpErrorPings) {
    void it(`ping answered with ${label} -> violation, one reconnect, suspect, no storm`, async (t) => {
      const server = new QuirkyHttpServer();
      server.on('ping', reply);
      await server.listen();
      const observed = observe(serverConfig(`http-ping-${label}`, 'http', server.url()), FAST_SETTINGS);
      try {
        await violationRow(observed, t, 'error-reply');
      } catch (error) {
        t.diagnostic(describeObservation(observed));
        throw error;
      } finally {
        await observed.dispose();
        await server.close();
      }
    });
  }
});
