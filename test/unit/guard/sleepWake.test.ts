import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GuardSession, defaultGuardSettings } from '../../../src/guard/guardSession';
import type { Upstream, UpstreamEvents } from '../../../src/guard/upstream';
import { collectingLogger } from '../../helpers/collectingLogger';
import { FakeClock, flushPromises } from '../../helpers/fakeClock';

const MINUTE = 60_000;

class FakeUpstream implements Upstream {
  readonly written: string[] = [];
  events!: UpstreamEvents;
  closed = false;
  constructor(readonly pid: number) {}
  async start(events: UpstreamEvents): Promise<void> {
    this.events = events;
  }
  write(raw: Buffer): boolean {
    this.written.push(raw.toString('utf8'));
    return true;
  }
  pauseReading(): void {}
  resumeReading(): void {}
  async close(): Promise<void> {
    this.closed = true;
  }
  say(message: unknown): void {
    this.events.line(Buffer.from(`${JSON.stringify(message)}\n`));
  }
  probes(): Array<{ id: string; method: string }> {
    return this.written
      .map((text) => JSON.parse(text) as { id: string; method: string })
      .filter((message) => String(message.id).startsWith('mcp-health-guard:probe-'));
  }
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};
const INIT_RESULT = { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } };

async function readySession() {
  const clock = new FakeClock();
  const upstreams: FakeUpstream[] = [];
  const logger = collectingLogger();
  const session = new GuardSession(defaultGuardSettings, {
    clock,
    random: () => 0.5,
    logger,
    upstreams: () => {
      const upstream = new FakeUpstream(1000 + upstreams.length);
      upstreams.push(upstream);
      return upstream;
    },
    client: { write: () => true, pause: () => undefined, resume: () => undefined, end: () => undefined },
    onClosed: () => undefined,
  });
  session.start();
  await flushPromises();
  session.fromClient(Buffer.from(`${JSON.stringify(INIT)}\n`));
  upstreams[0]!.say({ jsonrpc: '2.0', id: 1, result: INIT_RESULT });
  session.fromClient(Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'));
  await flushPromises();
  return { clock, upstreams, session, lines: logger.lines };
}

void describe('guard across a sleep', () => {
  void it('probes its upstream once, at once, on wake, and says so', async () => {
    const t = await readySession();
    await t.clock.advance(defaultGuardSettings.intervalMs / 2);
    assert.equal(t.upstreams[0]!.probes().length, 0);
    t.clock.sleep(12 * MINUTE);
    await t.clock.advance(0);
    assert.ok(t.lines.includes('info resumed after 12 min asleep: probing the upstream'), t.lines.join('\n'));
    assert.equal(t.upstreams[0]!.probes().length, 1, 'one probe, not the late idle timer and the wake each');
  });

  void it('does not declare the upstream dead for a probe whose timeout ran out while asleep: it asks again', async () => {
    const t = await readySession();
    await t.clock.advance(defaultGuardSettings.intervalMs);
    const upstream = t.upstreams[0]!;
    assert.equal(upstream.probes().length, 1, 'the keepalive probe is out');
    t.clock.sleep(5 * MINUTE);
    await t.clock.advance(0);
    assert.equal(t.upstreams.length, 1, 'not restarted on a timeout the process was not awake for');
    const [, again] = upstream.probes();
    assert.ok(again, 'a fresh probe went out');
    upstream.say({ jsonrpc: '2.0', id: again.id, result: {} });
    await t.clock.advance(defaultGuardSettings.timeoutMs * 2);
    assert.equal(t.upstreams.length, 1);
    assert.equal(t.session.status().state, 'ready');
  });

  void it('restarts through the normal path when the wake probe finds the HTTP session expired', async () => {
    const t = await readySession();
    await t.clock.advance(1_000);
    t.clock.sleep(20 * MINUTE);
    await t.clock.advance(0);
    // What the HTTP upstream reports when the server answers 404 on the session id.
    t.upstreams[0]!.events.ended({ message: 'upstream session expired (HTTP 404)', exitCode: null, signal: null, stderrTail: '' });
    await t.clock.advance(defaultGuardSettings.backoff.initialMs);
    assert.equal(t.upstreams.length, 2, 'a new upstream, so a new session');
    assert.equal(
      t.upstreams[1]!.written.map((text) => (JSON.parse(text) as { method?: string }).method)[0],
      'initialize',
      'the handshake is replayed',
    );
  });
});
