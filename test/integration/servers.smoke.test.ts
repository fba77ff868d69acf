// Smoke test of the test peers themselves: each server, driven by raw JSON-RPC, shows the behaviour its flags promise.
// Run: node --import tsx --test test/integration/servers.smoke.test.ts
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it, type TestContext } from 'node:test';
import {
  everythingStdio,
  faultStdio,
  modernStdio,
  spawnStdio,
  startEverythingHttp,
  startFaultHttp,
  startModernHttp,
  startSilentTcp,
  startStallProxy,
  type RunningServer,
  type RunningStdio,
  type StdioLaunch,
} from '../helpers/servers';
import { waitUntil } from '../helpers/wait';

const SILENCE_MS = 500;
// Generous: a cold node + SDK start takes 0.5-2 s on a busy 2-CPU machine. Silence checks use SILENCE_MS instead.
const ANSWER_TIMEOUT_MS = 10_000;
// Each peer is a node process loading an SDK: more at once only thrashes the CPUs.
const PARALLEL_PEERS = 4;
const HANDSHAKE_VERSION = '2025-06-18';
const MODERN_VERSION = '2026-07-28';

type JsonRpcMessage = {
  jsonrpc: '2.0';
  id?: number | string | null;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

const initializeRequest = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: HANDSHAKE_VERSION, capabilities: {}, clientInfo: { name: 'servers-smoke', version: '0' } },
});
const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const toolsList = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'servers-smoke', version: '0' },
};
const modernRequest = (id: number, method: string) => ({ jsonrpc: '2.0', id, method, params: { _meta: modernMeta } });

/** A stdio peer driven line by line; non-JSON stdout lines are kept apart so tests can see them. */
class StdioPeer {
  readonly messages: JsonRpcMessage[] = [];
  readonly garbage: string[] = [];
  stderrBytes = 0;
  private pending = '';
  private waiters = new Set<() => void>();

  constructor(readonly proc: RunningStdio) {
    const { stdout, stderr } = proc.child;
    stdout?.setEncoding('utf8');
    stdout?.on('data', (chunk: string) => this.onStdout(chunk));
    stderr?.on('data', (chunk: Buffer) => (this.stderrBytes += chunk.length));
  }

  /** Stopped when test `t` ends, so a busy machine never holds more peers than the suite's concurrency. */
  static start(t: TestContext, launch: StdioLaunch): StdioPeer {
    const peer = new StdioPeer(spawnStdio(launch));
    stdioPeers.push(peer);
    t.after(() => peer.proc.stop());
    return peer;
  }

  send(message: object): void {
    this.proc.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  /** The answer with that id, or undefined if none arrives within `timeoutMs`. */
  async answer(id: number, timeoutMs = ANSWER_TIMEOUT_MS): Promise<JsonRpcMessage | undefined> {
    return this.until(() => this.messages.find((m) => m.id === id && m.method === undefined), timeoutMs);
  }

  async request(message: { id: number }, timeoutMs = ANSWER_TIMEOUT_MS): Promise<JsonRpcMessage> {
    this.send(message);
    const reply = await this.answer(message.id, timeoutMs);
    assert.ok(reply, `no answer to ${JSON.stringify(message)} within ${timeoutMs} ms`);
    return reply;
  }

  async until<T>(probe: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (let found = probe(); ; found = probe()) {
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done() {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
        const waiters = this.waiters;
        waiters.add(done);
      });
    }
  }

  private onStdout(chunk: string): void {
    const lines = (this.pending + chunk).split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.trim() !== '')) {
      try {
        this.messages.push(JSON.parse(line) as JsonRpcMessage);
      } catch {
        this.garbage.push(line);
      }
    }
    for (const wake of [...this.waiters]) wake();
  }
}

const stdioPeers: StdioPeer[] = [];
const httpServers: RunningServer[] = [];
after(async () => {
  await Promise.all([...stdioPeers.map((p) => p.proc.stop()), ...httpServers.map((s) => s.stop())]);
});

async function track<T extends RunningServer>(t: TestContext, started: Promise<T>): Promise<T> {
  const server = await started;
  httpServers.push(server);
  t.after(() => server.stop());
  return server;
}

async function initializedPeer(t: TestContext, launch: StdioLaunch): Promise<StdioPeer> {
  const peer = StdioPeer.start(t, launch);
  const reply = await peer.request(initializeRequest(1));
  assert.equal(reply.result?.protocolVersion, HANDSHAKE_VERSION);
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return peer;
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms)),
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

interface HttpReply {
  status: number;
  headers: Headers;
  messages: JsonRpcMessage[];
}

/** POST one JSON-RPC message; the body is JSON or an SSE stream that the server ends after the answer. */
async function post(url: string, message: object, headers: Record<string, string> = {}, timeoutMs = ANSWER_TIMEOUT_MS): Promise<HttpReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  const isSse = (response.headers.get('content-type') ?? '').includes('text/event-stream');
  const bodies = isSse
    ? sseEvents(text)
        .map((e) => e.data)
        .filter((d) => d !== '')
    : text.trim()
      ? [text]
      : [];
  return { status: response.status, headers: response.headers, messages: bodies.map((b) => JSON.parse(b) as JsonRpcMessage) };
}

/** True when a POST gets no response headers within SILENCE_MS. */
async function postIsUnanswered(url: string, message: object, headers: Record<string, string> = {}): Promise<boolean> {
  try {
    await post(url, message, headers, SILENCE_MS);
    return false;
  } catch (error) {
    return (error as Error).name === 'TimeoutError';
  }
}

function sseEvents(text: string): { event: string; data: string }[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split(/\r?\n/);
      const field = (name: string) => lines.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).trimStart());
      return { event: field('event')[0] ?? 'message', data: field('data').join('\n') };
    });
}

/** An open GET SSE stream whose events can be awaited. */
class SseStream {
  readonly events: { event: string; data: string }[] = [];
  ended = false;
  private buffer = '';
  private readonly abort = new AbortController();

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
    const stream = new SseStream();
    const response = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: stream.abort.signal });
    assert.equal(response.status, 200, `GET ${url}`);
    void stream.pump(response);
    return stream;
  }

  async waitFor(predicate: (e: { event: string; data: string }) => boolean, timeoutMs = ANSWER_TIMEOUT_MS) {
    await waitUntil(() => this.events.some(predicate), timeoutMs);
    return this.events.find(predicate);
  }

  async waitForEnd(timeoutMs: number): Promise<boolean> {
    return waitUntil(() => this.ended, timeoutMs);
  }

  close(): void {
    this.abort.abort();
  }

  private async pump(response: Response): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        this.buffer += decoder.decode(chunk, { stream: true });
        const cut = this.buffer.lastIndexOf('\n\n');
        if (cut === -1) continue;
        this.events.push(...sseEvents(this.buffer.slice(0, cut)));
        this.buffer = this.buffer.slice(cut + 2);
      }
    } catch {
      // aborted by close()
    } finally {
      this.ended = true;
    }
  }
}

/** Local addresses (hex from /proc/net/tcp*) listening on `port`, e.g. ['0100007F'] for 127.0.0.1 only. */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const addresses: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === '0A' && local?.endsWith(`:${hexPort}`)) addresses.push(local.split(':')[0]);
    }
  }
  return addresses;
}

/** Zombies count as dead: orphans wait for a reaper that, in containers, may take its time. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function assertLoopbackOnly(port: number): void {
  assert.deepEqual(listeningAddresses(port), ['0100007F'], `port ${port} must listen on 127.0.0.1 only`);
}

async function streamableSession(url: string): Promise<Record<string, string>> {
  const init = await post(url, initializeRequest(1));
  assert.equal(init.status, 200);
  assert.equal(init.messages[0]?.result?.protocolVersion, HANDSHAKE_VERSION);
  const sessionId = init.headers.get('mcp-session-id');
  assert.ok(sessionId, 'initialize must return Mcp-Session-Id');
  const headers = { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': HANDSHAKE_VERSION };
  const initialized = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  assert.equal(initialized.status, 202);
  return headers;
}

void describe('fault-server over stdio', { concurrency: PARALLEL_PEERS }, () => {
  void it('fault none: handshake, empty pong, echo tool', async (t) => {
    const peer = await initializedPeer(t, faultStdio('none'));
    assert.deepEqual((await peer.request(ping(2))).result, {});
    const tools = (await peer.request(toolsList(3))).result?.tools as { name: string }[];
    assert.deepEqual(
      tools.map((t) => t.name),
      ['echo'],
    );
  });

  void it('nonempty-pong answers {"status":"ok"}', async (t) => {
    const peer = await initializedPeer(t, faultStdio('nonempty-pong'));
    assert.deepEqual((await peer.request(ping(2))).result, { status: 'ok' });
  });

  void it('error-pong answers JSON-RPC error -32603', async (t) => {
    const peer = await initializedPeer(t, faultStdio('error-pong'));
    assert.equal((await peer.request(ping(2))).error?.code, -32603);
  });

  for (const fault of ['hang-ping', 'ignore-ping']) {
    void it(`${fault}: ping unanswered, tools/list answered`, async (t) => {
      const peer = await initializedPeer(t, faultStdio(fault));
      peer.send(ping(2));
      assert.ok(await peer.request(toolsList(3)));
      assert.equal(await peer.answer(2, SILENCE_MS), undefined);
    });
  }

  void it('hang-start: not even initialize is answered', async (t) => {
    const peer = StdioPeer.start(t, faultStdio('hang-start'));
    peer.send(initializeRequest(1));
    peer.send(ping(2));
    assert.equal(await peer.until(() => peer.messages[0], SILENCE_MS), undefined);
  });

  void it('hang-all: initialize answered, then silence', async (t) => {
    const peer = await initializedPeer(t, faultStdio('hang-all'));
    peer.send(ping(2));
    peer.send(toolsList(3));
    assert.equal(await peer.until(() => peer.messages[1], SILENCE_MS), undefined);
  });

  void it('slow-pong:300 answers {} after the delay', async (t) => {
    const peer = await initializedPeer(t, faultStdio('slow-pong:300'));
    const sentAt = Date.now();
    assert.deepEqual((await peer.request(ping(2))).result, {});
    assert.ok(Date.now() - sentAt >= 250, 'pong came too early');
  });

  void it('exit:3:100 exits with code 3', async (t) => {
    const peer = StdioPeer.start(t, faultStdio('exit:3:100'));
    assert.deepEqual(await withTimeout(peer.proc.exited, ANSWER_TIMEOUT_MS, 'exit'), { code: 3, signal: null });
  });

  void it('exit-on-ping:4 exits with code 4 instead of answering', async (t) => {
    const peer = await initializedPeer(t, faultStdio('exit-on-ping:4'));
    peer.send(ping(2));
    assert.deepEqual(await withTimeout(peer.proc.exited, ANSWER_TIMEOUT_MS, 'exit'), { code: 4, signal: null });
    assert.equal(await peer.answer(2, 0), undefined);
  });

  void it('signal:SIGKILL:50 dies by SIGKILL', async (t) => {
    const peer = StdioPeer.start(t, faultStdio('signal:SIGKILL:50'));
    assert.deepEqual(await withTimeout(peer.proc.exited, ANSWER_TIMEOUT_MS, 'exit'), { code: null, signal: 'SIGKILL' });
  });

  void it('ignore-sigterm survives SIGTERM and stdin EOF, not SIGKILL', async (t) => {
    const peer = await initializedPeer(t, faultStdio('ignore-sigterm'));
    peer.proc.child.stdin?.end();
    process.kill(peer.proc.pid, 'SIGTERM');
    const early = await Promise.race([peer.proc.exited, new Promise((resolve) => setTimeout(() => resolve('alive'), SILENCE_MS))]);
    assert.equal(early, 'alive');
    process.kill(peer.proc.pid, 'SIGKILL');
    assert.equal((await withTimeout(peer.proc.exited, ANSWER_TIMEOUT_MS, 'exit')).signal, 'SIGKILL');
  });

  void it('spawn-children: two grandchildren in its group, gone after the group is stopped', async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fault-server-'));
    try {
      const pidfile = path.join(dir, 'pid');
      const peer = await initializedPeer(t, faultStdio('spawn-children', ['--pidfile', pidfile]));
      const [serverPid, ...childPids] = readFileSync(pidfile, 'utf8').trim().split('\n').map(Number);
      assert.equal(serverPid, peer.proc.pid);
      assert.equal(childPids.length, 2);
      for (const pid of childPids) assert.ok(isRunning(pid), `grandchild ${pid} should run`);
      await peer.proc.stop();
      assert.ok(await peer.until(() => (childPids.some(isRunning) ? undefined : true), 2_000), 'grandchildren survived stop()');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('garbage-stdout: non-JSON lines between messages, protocol still works', async (t) => {
    const peer = await initializedPeer(t, faultStdio('garbage-stdout'));
    assert.deepEqual((await peer.request(ping(2))).result, {});
    assert.ok(peer.garbage.length >= 2, `expected garbage lines, got ${peer.garbage.length}`);
  });

  void it('stderr-flood: ~10 MB on stderr, still answering', async (t) => {
    const peer = await initializedPeer(t, faultStdio('stderr-flood'));
    assert.ok(await peer.until(() => (peer.stderrBytes >= 10 * 1024 * 1024 ? true : undefined), 10_000), `got ${peer.stderrBytes} bytes`);
    assert.deepEqual((await peer.request(ping(2))).result, {});
  });

  void it('big-message:200000 inflates tools/list', async (t) => {
    const peer = await initializedPeer(t, faultStdio('big-message:200000'));
    const tools = (await peer.request(toolsList(2))).result?.tools as { description: string }[];
    assert.equal(tools[0].description.length, 200_000);
  });

  void it('rejects an unknown fault with exit code 2', async (t) => {
    const peer = StdioPeer.start(t, faultStdio('no-such-fault'));
    assert.equal((await withTimeout(peer.proc.exited, ANSWER_TIMEOUT_MS, 'exit')).code, 2);
  });
});

void describe('fault-server over HTTP', { concurrency: PARALLEL_PEERS }, () => {
  void it('Streamable HTTP: session, empty pong, loopback only', async (t) => {
    const server = await track(t, startFaultHttp('http'));
    assertLoopbackOnly(server.port);
    const headers = await streamableSession(server.url);
    const pong = await post(server.url, ping(2), headers);
    assert.deepEqual(pong.messages[0]?.result, {});
  });

  void it('hang-ping over Streamable HTTP leaves the ping POST unanswered', async (t) => {
    const server = await track(t, startFaultHttp('http', 'hang-ping'));
    const headers = await streamableSession(server.url);
    assert.ok(await postIsUnanswered(server.url, ping(2), headers));
    assert.equal((await post(server.url, toolsList(3), headers)).status, 200);
  });

  void it('status:401 answers every POST 401 with a Bearer challenge', async (t) => {
    const server = await track(t, startFaultHttp('http', 'status:401'));
    const reply = await post(server.url, initializeRequest(1));
    assert.equal(reply.status, 401);
    assert.match(reply.headers.get('www-authenticate') ?? '', /^Bearer/);
  });

  void it('expire-session:2 forgets the session: 404 on the third POST', async (t) => {
    const server = await track(t, startFaultHttp('http', 'expire-session:2'));
    const headers = await streamableSession(server.url); // POST #1 with the session: notifications/initialized
    assert.equal((await post(server.url, ping(2), headers)).status, 200);
    const expired = await post(server.url, ping(3), headers);
    assert.equal(expired.status, 404);
    assert.equal(expired.messages[0]?.error?.code, -32001);
  });

  void it('legacy SSE: endpoint event, pong on the stream, drop-sse ends the stream', async (t) => {
    const server = await track(t, startFaultHttp('sse', 'drop-sse:400'));
    assertLoopbackOnly(server.port);
    const stream = await SseStream.open(server.url);
    try {
      const endpoint = await stream.waitFor((e) => e.event === 'endpoint');
      assert.ok(endpoint, 'no endpoint event');
      const messageUrl = new URL(endpoint.data, server.url).href;
      const accepted = await fetch(messageUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(ping(7)),
      });
      assert.equal(accepted.status, 202);
      await accepted.arrayBuffer();
      const pong = await stream.waitFor((e) => e.event === 'message' && (JSON.parse(e.data) as JsonRpcMessage).id === 7);
      assert.deepEqual((JSON.parse(pong?.data ?? '{}') as JsonRpcMessage).result, {});
      assert.ok(await stream.waitForEnd(3_000), 'drop-sse:400 did not end the stream');
    } finally {
      stream.close();
    }
  });
});

void describe('server-everything', { concurrency: PARALLEL_PEERS }, () => {
  void it('stdio answers ping before initialize', async (t) => {
    const peer = StdioPeer.start(t, everythingStdio());
    assert.deepEqual((await peer.request(ping(1), 10_000)).result, {});
  });

  void it('streamableHttp is bound to 127.0.0.1 only and serves a session', async (t) => {
    const server = await track(t, startEverythingHttp('streamableHttp'));
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assertLoopbackOnly(server.port);
    const headers = await streamableSession(server.url);
    assert.deepEqual((await post(server.url, ping(2), headers)).messages[0]?.result, {});
  });

  void it('sse is bound to 127.0.0.1 only and sends its endpoint', async (t) => {
    const server = await track(t, startEverythingHttp('sse'));
    assert.match(server.url, /\/sse$/);
    assertLoopbackOnly(server.port);
    const stream = await SseStream.open(server.url);
    try {
      assert.ok(await stream.waitFor((e) => e.event === 'endpoint'), 'no endpoint event');
    } finally {
      stream.close();
    }
  });
});

void describe('modern-server (2026-07-28 only)', { concurrency: PARALLEL_PEERS }, () => {
  void it('stdio: DiscoverResult, ping -32601, initialize -32022', async (t) => {
    const peer = StdioPeer.start(t, modernStdio());
    const discover = await peer.request(modernRequest(1, 'server/discover'));
    assert.deepEqual(discover.result?.supportedVersions, [MODERN_VERSION]);
    assert.equal(discover.result?.resultType, 'complete');
    assert.equal((await peer.request(modernRequest(2, 'ping'))).error?.code, -32601);
    assert.equal((await peer.request(initializeRequest(3))).error?.code, -32022);
  });

  void it('HTTP: DiscoverResult, ping 404 -32601, loopback only', async (t) => {
    const server = await track(t, startModernHttp());
    assertLoopbackOnly(server.port);
    const modernHeaders = (method: string) => ({ 'MCP-Protocol-Version': MODERN_VERSION, 'Mcp-Method': method });
    const discover = await post(server.url, modernRequest(1, 'server/discover'), modernHeaders('server/discover'));
    assert.equal(discover.status, 200);
    assert.deepEqual(discover.messages[0]?.result?.supportedVersions, [MODERN_VERSION]);
    const pingReply = await post(server.url, modernRequest(2, 'ping'), modernHeaders('ping'));
    assert.equal(pingReply.status, 404);
    assert.equal(pingReply.messages[0]?.error?.code, -32601);
    const init = await post(server.url, initializeRequest(3));
    assert.equal(init.status, 400);
    assert.equal(init.messages[0]?.error?.code, -32022);
  });
});

void describe('network misbehaviour', { concurrency: PARALLEL_PEERS }, () => {
  void it('silent-tcp accepts and never answers nor closes', async (t) => {
    const server = await track(t, startSilentTcp());
    assertLoopbackOnly(server.port);
    const socket = connect(server.port, '127.0.0.1');
    try {
      let received = 0;
      let closed = false;
      socket.on('data', (chunk) => (received += chunk.length));
      socket.on('close', () => (closed = true));
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}');
      await new Promise((resolve) => setTimeout(resolve, SILENCE_MS));
      assert.equal(received, 0);
      assert.equal(closed, false);
    } finally {
      socket.destroy();
    }
  });

  void it('stall-proxy: traffic stops while stalled and flows again on resume', async (t) => {
    const target = await track(t, startFaultHttp('http'));
    const proxy = await track(t, startStallProxy(target.port, '/mcp'));
    assertLoopbackOnly(proxy.port);
    const headers = await streamableSession(proxy.url);
    await proxy.stall();
    const stalledPing = post(proxy.url, ping(2), headers, 10_000);
    const early = await Promise.race([
      stalledPing.then(() => 'answered'),
      new Promise((resolve) => setTimeout(() => resolve('silent'), SILENCE_MS)),
    ]);
    assert.equal(early, 'silent');
    await proxy.resume();
    assert.deepEqual((await stalledPing).messages[0]?.result, {});
  });
});
