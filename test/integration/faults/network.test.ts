// Fault matrix, network rows: a listener that never answers, a proxy that stops forwarding without a reset, and an
// HTTP server that crashes and comes back on the same port. Each shows the outage, then the recovery.
import { describe, it } from 'node:test';
import { startFaultHttp, startSilentTcp, startStallProxy, type RunningServer } from '../../helpers/servers';
import { assertNoProbeRetry, assertNoStorm, assertRow, describeObservation, okProbes, settle, wentTo } from './expect';
import { FAST_SETTINGS, observe, ROW_CONCURRENCY, serverConfig, type Observed } from './harness';

type Remote = 'http' | 'sse';
const PATHS: Record<Remote, string> = { http: '/mcp', sse: '/sse' };

async function withObserved(
  t: { diagnostic(message: string): void },
  make: () => Observed,
  body: (observed: Observed) => Promise<void>,
  cleanup: Array<() => Promise<void>>,
): Promise<void> {
  const observed = make();
  try {
    await body(observed);
  } catch (error) {
    t.diagnostic(describeObservation(observed));
    throw error;
  } finally {
    await observed.dispose();
    for (const step of cleanup) await step();
  }
}

void describe('fault matrix: network', { concurrency: ROW_CONCURRENCY }, () => {
  for (const transport of ['http', 'sse'] as const) {
    void it(`silent TCP over ${transport}: connect timeout -> down, backoff`, async (t) => {
      const silent = await startSilentTcp();
      const settings = { ...FAST_SETTINGS, connectTimeoutMs: 1_500 };
      await withObserved(
        t,
        () => observe(serverConfig(`silent-${transport}`, transport, `${silent.url}${PATHS[transport]}`), settings),
        async (observed) => {
          await settle(observed, 'two connect timeouts', () => observed.connector.failures.length >= 2);
          const status = observed.status();
          assertRow(
            status.lastError?.kind === 'timeout' && wentTo(observed.transitions, 'down', 'timeout'),
            'down with a timeout',
            observed,
          );
          assertRow(observed.connector.connections.length === 0, 'never connected', observed);
          assertNoStorm(t, observed);
        },
        [() => silent.stop()],
      );
    });

    void it(`silent proxy over ${transport}: stalled -> probe timeout, down; resumed -> up again`, async (t) => {
      const target = await startFaultHttp(transport, 'none', ['--max-lifetime-ms', '120000']);
      const proxy = await startStallProxy(target.port, PATHS[transport]);
      const settings = { ...FAST_SETTINGS, connectTimeoutMs: 2_000 };
      await withObserved(
        t,
        () => observe(serverConfig(`stall-${transport}`, transport, proxy.url), settings),
        async (observed) => {
          await settle(observed, 'up with an answered ping', (s) => s.state === 'up' && okProbes(observed) >= 1);
          await proxy.stall();
          const stalledAt = performance.now();
          await settle(observed, 'a timeout on the stalled connection', () => wentTo(observed.transitions, 'down', 'timeout'));
          t.diagnostic(
            `down ${Math.round(performance.now() - stalledAt)} ms after the stall (interval ${settings.intervalMs[transport]} + timeout ${settings.timeoutMs})`,
          );
          assertNoProbeRetry(observed);
          await settle(observed, 'a reconnect attempt through the stalled proxy', () => observed.connector.attempts.length >= 2);
          await proxy.resume();
          const resumedAt = performance.now();
          const downSeen = observed.transitions.length;
          await settle(
            observed,
            'up again after the resume',
            (s) => s.state === 'up' && observed.transitions.slice(downSeen).some((x) => x.to === 'up') && okProbes(observed) >= 2,
          );
          t.diagnostic(`recovered ${Math.round(performance.now() - resumedAt)} ms after the resume`);
          assertNoStorm(t, observed, settings);
        },
        [() => proxy.stop(), () => target.stop()],
      );
    });
  }

  void it('HTTP server crashes with a code, then restarts on the same port -> down (unreachable), then up again', async (t) => {
    const first = await startFaultHttp('http', 'exit:3:3000', ['--max-lifetime-ms', '120000']);
    let second: RunningServer | undefined;
    await withObserved(
      t,
      () => observe(serverConfig('restart-http', 'http', first.url)),
      async (observed) => {
        await settle(observed, 'up', (s) => s.state === 'up');
        const exit = await first.exited;
        assertRow(exit.code === 3, `the server crashed with code 3 (got ${exit.code})`, observed);
        await settle(observed, 'down once the server is gone', (s) => s.state === 'down' && s.lastError?.kind === 'unreachable');
        await settle(observed, 'a refused reconnect', () => observed.connector.failures.length >= 1);
        second = await startFaultHttp('http', 'none', ['--port', String(first.port), '--max-lifetime-ms', '120000']);
        const restartedAt = performance.now();
        await settle(observed, 'up again on the restarted server', (s) => s.state === 'up' && observed.connector.connections.length >= 2);
        t.diagnostic(
          `recovered ${Math.round(performance.now() - restartedAt)} ms after the restart; ${observed.status().restarts} restart(s) counted`,
        );
        assertNoStorm(t, observed);
      },
      [async () => second?.stop()],
    );
  });
});
