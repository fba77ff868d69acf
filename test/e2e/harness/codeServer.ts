import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from '../../helpers/freePort';
import { findCodeServer, type CodeServerInstall } from './paths';

export interface CodeServerOptions {
  /** Lets the workbench accept a `payload` with extensionDevelopmentPath/extensionTestsPath and call codeAutomationExit. */
  readonly smokeTestDriver?: boolean;
  /** More code-server arguments, e.g. `--locale qps-ploc`. */
  readonly extraArgs?: readonly string[];
  /** Written to <user-data-dir>/User/settings.json before start, e.g. {"security.workspace.trust.enabled": false}. */
  readonly userSettings?: Readonly<Record<string, unknown>>;
  /** Installed into the fresh extensions dir before the server starts. */
  readonly vsixPaths?: readonly string[];
  /**
   * Extension source folders linked into the fresh extensions dir, so they load as if installed, without the smoke-test
   * driver (which the payload's extensionDevelopmentPath needs, and which also hides notification toasts).
   */
  readonly linkedExtensions?: readonly string[];
  /** Extra environment for the server and so for the extension host it forks. */
  readonly env?: Readonly<Record<string, string>>;
  /** Where the server's stdout/stderr go; default: a log file in its temp dir, printed if start fails. */
  readonly onOutput?: (chunk: string) => void;
  readonly startTimeoutMs?: number;
}

export interface CodeServer {
  readonly port: number;
  /** http://127.0.0.1:PORT, no trailing slash. */
  readonly url: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  /** Installs into this server's extensions dir; a reload of the workbench picks it up. */
  installExtension(vsixPath: string): Promise<void>;
  /** Kills the whole process group (server, extension hosts, pty host) and removes the temp dirs. Safe to call twice. */
  stop(): Promise<void>;
}

const defaultUserSettings = {
  'workbench.startupEditor': 'none',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  // Offline there is no sign-in: the chat and agent features would only retry and log.
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

export { freePort };

function childEnv(install: CodeServerInstall, extra: Readonly<Record<string, string>> | undefined): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // Node 24 first: code-server refuses older Node, and `node` spawned from the extension host should be the same one.
    PATH: `${install.nodeBinDir}${path.delimiter}${process.env.PATH ?? ''}`,
    ...extra,
  };
}

function commonArgs(dirs: { config: string; userData: string; extensions: string }): string[] {
  return [
    '--config',
    dirs.config,
    '--user-data-dir',
    dirs.userData,
    '--extensions-dir',
    dirs.extensions,
    '--disable-telemetry',
    '--disable-update-check',
  ];
}

function runToCompletion(install: CodeServerInstall, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(install.nodeExecutable, [install.entryScript, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`code-server ${args.join(' ')} exited with ${code ?? signal}:\n${output}`));
    });
  });
}

function linkExtension(folder: string, extensionsDir: string): void {
  const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as {
    publisher: string;
    name: string;
    version: string;
  };
  fs.symlinkSync(path.resolve(folder), path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`), 'dir');
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Group already gone.
  }
}

async function waitForHealthz(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`code-server exited early (${child.exitCode ?? child.signalCode})`);
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`code-server did not answer ${url}/healthz within ${timeoutMs} ms`);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startCodeServer(options: CodeServerOptions = {}): Promise<CodeServer> {
  const install = findCodeServer();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-code-server-'));
  const dirs = { config: path.join(root, 'config.yaml'), userData: path.join(root, 'data'), extensions: path.join(root, 'extensions') };
  // code-server treats an empty config file as missing and writes a default one with a password: keep it non-empty.
  fs.writeFileSync(dirs.config, 'auth: none\n');
  fs.mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
  fs.mkdirSync(dirs.extensions, { recursive: true });
  fs.writeFileSync(
    path.join(dirs.userData, 'User', 'settings.json'),
    JSON.stringify({ ...defaultUserSettings, ...options.userSettings }, null, 2),
  );

  const env = childEnv(install, options.env);
  const installExtension = (vsixPath: string): Promise<void> =>
    runToCompletion(install, [...commonArgs(dirs), '--install-extension', path.resolve(vsixPath), '--force'], env, 120_000);

  let child: ChildProcess | undefined;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (child) {
      const gone = exited(child);
      killGroup(child, 'SIGTERM');
      const graceful = await Promise.race([gone.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
      // The server may exit before its helpers do; SIGKILL the group either way so nothing stays behind.
      killGroup(child, 'SIGKILL');
      if (!graceful) await gone;
    }
    fs.rmSync(root, { recursive: true, force: true });
  };

  try {
    for (const vsix of options.vsixPaths ?? []) await installExtension(vsix);
    for (const folder of options.linkedExtensions ?? []) linkExtension(folder, dirs.extensions);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const args = [
      install.entryScript,
      ...commonArgs(dirs),
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      ...(options.smokeTestDriver ? ['--vscode-option=--enable-smoke-test-driver'] : []),
      ...(options.extraArgs ?? []),
    ];
    const logFile = path.join(root, 'server.log');
    const logStream = fs.createWriteStream(logFile);
    child = spawn(install.nodeExecutable, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', (d: Buffer) => {
        if (options.onOutput) options.onOutput(d.toString());
        else logStream.write(d);
      });
    }
    child.once('exit', () => logStream.end());
    try {
      await waitForHealthz(url, child, options.startTimeoutMs ?? 30_000);
    } catch (error) {
      const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
      throw new Error(`${(error as Error).message}\n${log}`);
    }
    return { port, url, userDataDir: dirs.userData, extensionsDir: dirs.extensions, installExtension, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
