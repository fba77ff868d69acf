// `mcp-health guard`: wires a GuardSession to this process's stdin/stdout (the client) and to the upstream.

import { realpathSync } from 'node:fs';
import { systemClock, type Clock } from '../core/clock';
import { localLauncher } from '../core/guardLauncher';
import type { Logger } from '../core/logger';
import { defaultGuardSettings, GuardSession } from '../guard/guardSession';
import { LineSplitter } from '../mcp/lineSplitter';
import { HttpUpstream } from '../guard/httpUpstream';
import type { HttpFetch } from '../mcp/connectorSettings';
import { printableProxy, proxiedFetch, proxyEnvironment } from '../mcp/httpProxy';
import { GUARD_STATUS_TYPE, guardSecrets, publishGuardStatus, redactStatus } from '../guard/statusChannel';
import { redactText } from '../core/redact';
import { StdioUpstream } from '../guard/stdioUpstream';
import type { UpstreamFactory } from '../guard/upstream';
import { UsageError } from './args';
import { discoverConfigs } from './discovery';
import { GUARD_USAGE, parseGuardArgs, type GuardOptions, type PrintConfigOptions } from './guardArgs';
import { guardSnippets } from './guardConfig';

/**
 * The guard's timers (restart backoff, keepalive) are its reason to live while the upstream is down and the client's
 * input is paused, so unlike the monitor's they keep the process up.
 */
const guardClock: Clock = {
  ...systemClock,
  setTimeout: (callback, ms) => setTimeout(callback, ms),
};

/** Large enough for the 50 MB messages real servers send (base64 images, big tool lists), small enough to bound memory. */
const MAX_LINE_BYTES = 256 * 1024 * 1024;
/** After the guard has closed, the process ends even if something (a grandchild holding a pipe) would keep it up. */
const EXIT_FALLBACK_MS = 3000;

export async function runGuard(argv: readonly string[], err: (text: string) => void, out: (text: string) => void): Promise<number> {
  let options: GuardOptions | PrintConfigOptions | 'help';
  try {
    options = parseGuardArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      err(`mcp-health: ${error.message}\n\n${GUARD_USAGE}`);
      return 2;
    }
    throw error;
  }
  if (options === 'help') {
    // stdout may be a client's protocol stream: the usage goes to stderr like every other guard message.
    err(GUARD_USAGE);
    return 0;
  }
  if ('printConfig' in options) return printConfig(options, out, err);
  const logger = stderrLogger(options.name);
  // The same proxy rules as `mcp-health check`: an upstream behind a corporate proxy is reached the same way.
  const target = options.target;
  const proxy = target.kind === 'stdio' ? null : proxyEnvironment(process.env);
  const http = proxy ? proxiedFetch(proxy) : undefined;
  if (proxy && target.kind !== 'stdio') {
    const via = target.url.startsWith('https:') ? proxy.httpsProxy : proxy.httpProxy;
    logger.debug(`HTTP upstream through the proxy ${via ? printableProxy(via) : '(none set for this scheme)'}, unless NO_PROXY or loopback`);
  }
  try {
    return await runSession(options, upstreamFactory(options, logger, http?.fetch));
  } finally {
    http?.dispose();
  }
}

async function printConfig(options: PrintConfigOptions, out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const result = await discoverConfigs(options);
  const server = result.servers.find((candidate) => candidate.name === options.printConfig);
  if (!server) {
    err(`mcp-health: guard: no server named "${options.printConfig}" was found`);
    return 2;
  }
  out(guardSnippets(server, localLauncher(thisCli())));
  return 0;
}

/** The absolute path of the running CLI bundle (dist/cli.js), through any symlink a global install put on PATH. */
function thisCli(): string {
  try {
    return realpathSync(__filename);
  } catch {
    return __filename;
  }
}

function upstreamFactory(options: GuardOptions, logger: Logger, fetch?: HttpFetch['fetch']): UpstreamFactory {
  const target = options.target;
  if (target.kind !== 'stdio') {
    const http = { url: target.url, headers: target.headers, flavour: target.kind === 'sse' ? 'sse' : 'streamable', fetch } as const;
    return () => new HttpUpstream(http, logger);
  }
  return () =>
    new StdioUpstream(
      { command: target.command, args: target.args, env: process.env },
      {
        maxLineBytes: MAX_LINE_BYTES,
        killGraceMs: 2000,
        stdinCloseGraceMs: 1000,
        stderrTailBytes: 8192,
        stderr: (text) => process.stderr.write(text),
      },
    );
}

/**
 * Lines that arrive together (one chunk from the upstream holds many in a flood) leave together: the stream is corked
 * on the first write of a tick and uncorked on the next, so a burst becomes one writev instead of a syscall per line.
 */
const corked = new WeakSet<NodeJS.WritableStream>();
export function corkedWrite(stream: NodeJS.WritableStream & { cork(): void; uncork(): void }, raw: Buffer): boolean {
  if (!corked.has(stream)) {
    corked.add(stream);
    stream.cork();
    process.nextTick(() => {
      corked.delete(stream);
      stream.uncork();
    });
  }
  return stream.write(raw);
}

function stderrLogger(name: string): Logger {
  const write = (level: string) => (message: string) => process.stderr.write(`mcp-health guard[${name}] ${level}: ${message}\n`);
  const quiet = () => undefined;
  const verbose = process.env.MCP_HEALTH_GUARD_DEBUG === '1';
  return { trace: quiet, debug: verbose ? write('debug') : quiet, info: write('info'), warn: write('warn'), error: write('error') };
}

function runSession(options: GuardOptions, upstreams: UpstreamFactory): Promise<number> {
  const logger = stderrLogger(options.name);
  return new Promise<number>((resolve) => {
    const stdin = process.stdin;
    const stdout = process.stdout;
    let channel: Promise<{ dispose(): Promise<void> } | undefined> = Promise.resolve(undefined);
    const session = new GuardSession(
      { ...defaultGuardSettings, intervalMs: options.intervalMs, timeoutMs: options.timeoutMs },
      {
        clock: guardClock,
        random: Math.random,
        logger,
        upstreams,
        client: {
          write: (raw) => corkedWrite(stdout, raw),
          pause: () => stdin.pause(),
          resume: () => stdin.resume(),
          end: () => stdout.end(),
        },
        onClosed: (code) => {
          void channel.then((server) => server?.dispose());
          stdin.destroy();
          setTimeout(() => process.exit(code), EXIT_FALLBACK_MS).unref();
          resolve(code);
        },
      },
    );
    const splitter = new LineSplitter(
      {
        line: (raw) => session.fromClient(raw),
        overflow: (bytes) => {
          logger.error(`the client sent ${bytes} bytes without a newline (limit ${MAX_LINE_BYTES}); closing`);
          void session.close(1);
        },
      },
      MAX_LINE_BYTES,
    );
    stdin.on('data', (chunk: Buffer) => splitter.push(chunk));
    stdin.once('end', () => session.clientClosed());
    stdout.on('drain', () => session.clientDrained());
    // The client went away mid-write (EPIPE): nobody is left to serve.
    stdout.on('error', () => session.clientClosed());
    process.once('SIGTERM', () => void session.close(143));
    process.once('SIGINT', () => void session.close(130));
    session.start();
    const secrets = guardSecrets(process.env, options.target.kind === 'stdio' ? {} : options.target.headers);
    const target = options.target.kind === 'stdio' ? [options.target.command, ...options.target.args].join(' ') : options.target.url;
    channel = publishGuardStatus(
      () => redactStatus({ type: GUARD_STATUS_TYPE, name: options.name, guardPid: process.pid, target, ...session.status() }, secrets),
      {
        // MCP Health's Ping and Reconnect on this guarded entry: a probe bounded like the keepalive's, a restart only
        // when it fails none of the client's requests.
        probe: async () => {
          const probe = await session.probeNow(options.timeoutMs);
          return probe.detail === undefined ? probe : { ...probe, detail: redactText(probe.detail, secrets) };
        },
        restart: () => {
          const answer = session.restartNow();
          // A restart logs itself as the upstream goes; a refusal is worth a line of its own.
          if (!answer.restarting) logger.info(`restart requested from MCP Health, refused: ${answer.detail}`);
          return answer;
        },
      },
    ).catch((error: unknown) => {
      // Health reporting is a convenience: the connection the client uses matters more than being seen.
      logger.warn(`status channel unavailable: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    });
  });
}
