// A sandboxed server's launch, run through @vscode/sandbox-runtime's `srt` the way VS Code runs it: `srt --settings
// <policy file> <command>` with the policy VS Code would write (src/core/sandbox.ts). Everything the runtime needs is
// checked first; when anything is missing this throws a `sandbox` ConnectError and nothing is spawned: a sandboxed
// server is never started without its sandbox. Shared by the monitor's connections and the guard's upstreams.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConnectError } from '../core/connection';
import type { SandboxPolicy } from '../core/model';
import { sandboxRuntimeConfig, type SandboxProblem } from '../core/sandbox';
import type { StdioLaunch } from './serverProcess';
import { findOnPath } from './stableRuntime';

export interface SandboxHost {
  readonly platform: NodeJS.Platform;
  /** The bundled runtime (dist/sandbox/srt.mjs); undefined: look beside this bundle. */
  readonly runtime?: string;
}

const defaultHost: SandboxHost = { platform: process.platform };

/** The bundles sit in dist/, the runtime in dist/sandbox/; from the sources (tests) the built copy is used. */
function runtimeFile(host: SandboxHost): string | undefined {
  const candidates = host.runtime
    ? [host.runtime]
    : [path.join(__dirname, 'sandbox', 'srt.mjs'), path.join(__dirname, '..', '..', 'dist', 'sandbox', 'srt.mjs')];
  return candidates.find((file) => existsSync(file));
}

function refuse(problem: SandboxProblem, reason: string): ConnectError {
  return new ConnectError('sandbox', `sandboxed: not started: ${reason}`, { code: problem });
}

/** The launch that runs `launch` inside the sandbox `policy` describes; throws (spawning nothing) when it cannot. */
export async function sandboxedLaunch(launch: StdioLaunch, policy: SandboxPolicy, host: SandboxHost = defaultHost): Promise<StdioLaunch> {
  if (host.platform !== 'linux' && host.platform !== 'darwin') {
    throw refuse('SANDBOX_UNSUPPORTED_OS', `the sandbox runtime does not support ${host.platform}`);
  }
  const runtime = runtimeFile(host);
  if (!runtime) throw refuse('SANDBOX_NO_RUNTIME', 'the bundled @vscode/sandbox-runtime (dist/sandbox/srt.mjs) is missing');
  const env = launch.env;
  const where = `on the PATH it saw (${env.PATH ?? ''})`;
  if (host.platform === 'linux') {
    const bwrap = await findOnPath('bwrap', env, host.platform);
    if (!bwrap) throw refuse('SANDBOX_NO_BWRAP', `bubblewrap (bwrap) is not installed ${where}`);
    const broken = await bwrapFailure(bwrap);
    if (broken) throw refuse('SANDBOX_BWRAP_FAILED', `bubblewrap cannot create its namespaces here: ${broken}`);
    if (!(await findOnPath('socat', env, host.platform))) throw refuse('SANDBOX_NO_SOCAT', `socat is not installed ${where}`);
  } else if (!existsSync('/usr/bin/sandbox-exec')) {
    throw refuse('SANDBOX_NO_SANDBOX_EXEC', '/usr/bin/sandbox-exec is missing');
  }
  if (!(await findOnPath('rg', env, host.platform))) throw refuse('SANDBOX_NO_RIPGREP', `ripgrep (rg) is not installed ${where}`);

  const config = sandboxRuntimeConfig(policy, launch.cwd, await defaultDomains(env));
  const settings = writeSettings(JSON.stringify(config, null, 2));
  return {
    command: process.execPath,
    // One shell-quoted command string: the runtime runs it through a shell, and an argument with a space or a quote
    // must reach the server as it is written (VS Code quotes each one the same way).
    args: [runtime, '--settings', settings, '-c', [launch.command, ...launch.args].map(shellQuote).join(' ')],
    // Inside VS Code the runtime is run by Electron's own binary, as VS Code does, which needs this to act as Node.
    env: process.versions.electron ? { ...env, ELECTRON_RUN_AS_NODE: '1' } : env,
    ...(launch.cwd !== undefined ? { cwd: launch.cwd } : {}),
  };
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const workingBwrap = new Set<string>();

/** bubblewrap installed is not bubblewrap usable (no unprivileged user namespaces, a seccomp'd container): try it once. */
function bwrapFailure(bwrap: string): Promise<string | undefined> {
  if (workingBwrap.has(bwrap)) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    execFile(bwrap, ['--ro-bind', '/', '/', 'true'], { timeout: 10_000 }, (error, _stdout, stderr) => {
      if (!error) {
        workingBwrap.add(bwrap);
        resolve(undefined);
      } else {
        resolve(stderr.trim().split('\n').pop() || error.message);
      }
    });
  });
}

let registryHost: Promise<string[]> | undefined;

/**
 * VS Code lets every sandboxed server reach npm's default registry (so `npx` can download). Its host is asked of npm
 * itself, with the user's and the global npmrc set aside so that it is npm's built-in default, as VS Code's is.
 */
function defaultDomains(env: NodeJS.ProcessEnv): Promise<string[]> {
  registryHost ??= new Promise((resolve) => {
    const clean = {
      ...env,
      npm_config_userconfig: os.devNull,
      npm_config_globalconfig: os.devNull,
      npm_config_registry: undefined,
      NPM_CONFIG_REGISTRY: undefined,
    };
    execFile('npm', ['config', 'get', 'registry'], { env: clean, timeout: 15_000 }, (error, stdout) => {
      try {
        resolve(error ? [] : [new URL(stdout.trim()).hostname]);
      } catch {
        resolve([]);
      }
    });
  });
  return registryHost;
}

let settingsDir: string | undefined;

/** One private folder per process, named by content so one policy is one file; removed when this process exits. */
function writeSettings(content: string): string {
  if (!settingsDir) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-health-sandbox-'));
    settingsDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const file = path.join(settingsDir, `${createHash('sha256').update(content).digest('hex').slice(0, 16)}.json`);
  if (!existsSync(file)) writeFileSync(file, content, { mode: 0o600 });
  return file;
}
