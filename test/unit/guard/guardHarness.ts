// The guard session's unit harness: a fake upstream that records what the guard writes, the handshake, and a session
// wired to a fake clock and a collecting logger. Shared by the session's suites (guardSession, sleepWake).
import { GuardSession, defaultGuardSettings } from '../../../src/guard/guardSession';
import type { Upstream, UpstreamEvents } from '../../../src/guard/upstream';
import { collectingLogger } from '../../helpers/collectingLogger';
import { FakeClock, flushPromises } from '../../helpers/fakeClock';

export class FakeUpstream implements Upstream {
  readonly written: string[] = [];
  events!: UpstreamEvents;
  closed = false;
  constructor(readonly pid: number) {}
  async start(events: UpstreamEvents): Promise<void> {
    this.events = events;
  }
  full = false;
  write(raw: Buffer): boolean {
    this.written.push(raw.toString('utf8'));
    return !this.full;
  }
  pauseReading(): void {}
  resumeReading(): void {}
  async close(): Promise<void> {
    this.closed = true;
  }
  say(message: unknown): void {
    this.events.line(Buffer.from(`${JSON.stringify(message)}\n`));
  }
  requests(): Array<{ id?: unknown; method?: string; params?: unknown }> {
    return this.written.map((text) => JSON.parse(text) as { id?: unknown; method?: string });
  }
  /** The guard's own keepalive probes among what it wrote. */
  probes(): Array<{ id: string; method: string }> {
    return this.written
      .map((text) => JSON.parse(text) as { id: string; method: string })
      .filter((message) => String(message.id).startsWith('mcp-health-guard:probe-'));
  }
}

export const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};
export const INIT_RESULT = {
  protocolVersion: '2025-06-18',
  capabilities: { tools: { listChanged: true }, logging: {} },
  serverInfo: { name: 's', version: '1' },
};

export function setup() {
  const clock = new FakeClock();
  const upstreams: FakeUpstream[] = [];
  const toClient: string[] = [];
  const closedWith: number[] = [];
  const flow: string[] = [];
  const logger = collectingLogger();
  const lines = logger.lines;
  const session = new GuardSession(defaultGuardSettings, {
    clock,
    random: () => 0.5,
    logger,
    upstreams: () => {
      const upstream = new FakeUpstream(1000 + upstreams.length);
      upstreams.push(upstream);
      return upstream;
    },
    client: {
      write: (raw) => (toClient.push(raw.toString('utf8')), true),
      pause: () => flow.push('pause'),
      resume: () => flow.push('resume'),
      end: () => undefined,
    },
    onClosed: (code) => closedWith.push(code),
  });
  const fromClient = (message: unknown) => session.fromClient(Buffer.from(`${JSON.stringify(message)}\n`));
  const clientSaw = () => toClient.map((text) => JSON.parse(text) as Record<string, unknown>);
  return { clock, upstreams, toClient, clientSaw, closedWith, session, fromClient, logLines: lines, flow };
}

export async function handshake(t: ReturnType<typeof setup>) {
  t.session.start();
  await flushPromises();
  t.fromClient(INIT);
  t.upstreams[0]!.say({ jsonrpc: '2.0', id: 1, result: INIT_RESULT });
  t.fromClient({ jsonrpc: '2.0', method: 'notifications/initialized' });
}
