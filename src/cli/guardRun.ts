// The stdio guard's process wiring: a GuardSession between this process's stdin/stdout (the client) and an upstream.
// Kept apart from the HTTP upstream, the config discovery of --print-config and the rest of the CLI, so the lean
// dist/guard.js that a client runs for every guarded server loads none of the SDK, zod or the config parsers.

import { setFlagsFromString } from 'node:v8';
import { systemClock, type Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { defaultGuardSettings, GuardSession } from '../guard/guardSession';
import { LineSplitter } from '../mcp/lineSplitter';
import { redactText } from '../core/redact';
import { HeapModeByTraffic } from '../guard/heapMode';
import { GUARD_STATUS_TYPE, guardSecrets, publishGuardStatus, redactStatus } from '../guard/statusChannel';
import { StdioUpstream } from '../guard/stdioUpstream';
import { TickWriter } from '../guard/tickWriter';
import type { UpstreamFactory } from '../guard/upstream';
import type { GuardOptions, GuardStdioTarget } from './guardArgs';
import { createCliOutput, relayServerStderr } from './output';

/**
 * The guard's timers (restart backoff, keepalive) are its reason to live while the upstream is down and the client's
 * input is paused, so unlike the monitor's they keep the process up.
 */
const guardClock: Clock = {
  ...systemClock,
  // process.uptime() reads the same monotonic clock as performance.now(), without loading perf_hooks.
  monotonic: () => process.uptime() * 1000,
  setTimeout: (callback, ms) => setTimeout(callback, ms),
};

/** Large enough for the 50 MB messages real servers send (base64 images, big tool lists), small enough to bound memory. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;
/** After the guard has closed, the process ends even if something (a grandchild holding a pipe) would keep it up. */
const EXIT_FALLBACK_MS = 3000;

export function stdioUpstreams(target: GuardStdioTarget): UpstreamFactory {
  return () =>
    new StdioUpstream(
      { command: target.command, args: target.args, env: process.env },
      {
        maxLineBytes: MAX_LINE_BYTES,
        killGraceMs: 2000,
        stdinCloseGraceMs: 1000,
        stderrTailBytes: 8192,
        stderr: relayServerStderr,
        ...(target.sandbox ? { sandbox: target.sandbox } : {}),
      },
    );
}

export function stderrLogger(name: string): Logger {
  const output = createCliOutput();
  const write = (level: string) => (message: string) => output.err(`mcp-health guard[${name}] ${level}: ${message}`);
  const quiet = () => undefined;
  const verbose = process.env.MCP_HEALTH_GUARD_DEBUG === '1';
  return { trace: quiet, debug: verbose ? write('debug') : quiet, info: write('info'), warn: write('warn'), error: write('error') };
}

export function runSession(options: GuardOptions, upstreams: UpstreamFactory): Promise<number> {
  const heapMode = new HeapModeByTraffic(
    (saving) => setFlagsFromString(saving ? '--optimize-for-size' : '--no-optimize-for-size'),
    systemClock,
  );
  const logger = stderrLogger(options.name);
  return new Promise<number>((resolve) => {
    const stdin = process.stdin;
    const stdout = process.stdout;
    const toClient = new TickWriter(stdout);
    let channel: Promise<{ dispose(): Promise<void> } | undefined> = Promise.resolve(undefined);
    const session = new GuardSession(
      { ...defaultGuardSettings, intervalMs: options.intervalMs, timeoutMs: options.timeoutMs },
      {
        clock: guardClock,
        random: Math.random,
        logger,
        upstreams,
        client: {
          write: (raw) => {
            heapMode.traffic();
            return toClient.write(raw);
          },
          pause: () => stdin.pause(),
          resume: () => stdin.resume(),
          end: () => {
            toClient.flush();
            stdout.end();
          },
        },
        onClosed: (code) => {
          heapMode.dispose();
          void channel.then((server) => server?.dispose());
          stdin.destroy();
          setTimeout(() => process.exit(code), EXIT_FALLBACK_MS).unref();
          resolve(code);
        },
      },
    );
    const splitter = new LineSplitter(
      {
        line: (raw) => {
          heapMode.traffic();
          session.fromClient(raw);
        },
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
    // The client went away mid-write (EPIPE): nobody is left to serve, nor to read an answer.
    stdout.on('error', () => void session.close(0));
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
