// A real Prometheus (Debian's package) for tests: installed with apt when missing, run on its own port and storage
// directory, stopped by its pid.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitUntil } from '../../helpers/wait';

const ROOT = path.resolve(__dirname, '../../..');
export const PROMETHEUS = '/usr/bin/prometheus';
export const PROMTOOL = '/usr/bin/promtool';

/**
 * Installs the Debian package when the binaries are missing (scripts/ensure-prometheus.sh, the same step `npm test`'s
 * setup runs); returns why it could not, or undefined when ready.
 */
export function ensurePrometheus(): string | undefined {
  if (fs.existsSync(PROMETHEUS) && fs.existsSync(PROMTOOL)) return undefined;
  const result = spawnSync('bash', [path.join(ROOT, 'scripts/ensure-prometheus.sh')], { encoding: 'utf8', timeout: 900_000 });
  if (result.status === 3) return result.stderr.trim();
  if (result.status !== 0 || !fs.existsSync(PROMETHEUS))
    throw new Error(`installing prometheus failed (${result.status}):\n${result.stderr}`);
  return undefined;
}

export interface RunningPrometheus {
  readonly url: string;
  readonly process: ChildProcess;
  log(): string;
  stop(): Promise<void>;
}

export async function startPrometheus(dir: string, configFile: string, port: number): Promise<RunningPrometheus> {
  const storage = path.join(dir, 'tsdb');
  fs.mkdirSync(storage, { recursive: true });
  const child = spawn(
    PROMETHEUS,
    [`--config.file=${configFile}`, `--storage.tsdb.path=${storage}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log = (log + chunk).slice(-16_384)));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}):\n${log}`);
    try {
      if ((await fetch(`${url}/-/ready`)).ok) return { url, process: child, log: () => log, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  throw new Error(`prometheus did not become ready:\n${log}`);
}

export interface Sample {
  readonly metric: Record<string, string>;
  readonly value: number;
}

export async function query(prometheus: RunningPrometheus, expr: string): Promise<Sample[]> {
  const response = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await response.json()) as {
    status: string;
    data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
  };
  if (body.status !== 'success') throw new Error(`query ${expr} failed: ${JSON.stringify(body)}`);
  return body.data.result.map((entry) => ({ metric: entry.metric, value: Number(entry.value[1]) }));
}

export interface Alert {
  readonly labels: Record<string, string>;
  readonly state: string;
}

export async function alerts(prometheus: RunningPrometheus): Promise<Alert[]> {
  const body = (await (await fetch(`${prometheus.url}/api/v1/alerts`)).json()) as { data: { alerts: Alert[] } };
  return body.data.alerts;
}

/** Polls `read` until `done` holds, bounded by `limitMs`; returns the last value either way for the assertion. */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, limitMs: number): Promise<T> {
  // waitUntil reads at least once, so value is set however short the limit.
  let value!: T;
  await waitUntil(async () => done((value = await read())), limitMs, 500);
  return value;
}

export function promtool(args: readonly string[]): { status: number | null; output: string } {
  const result = spawnSync(PROMTOOL, [...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
