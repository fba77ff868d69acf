// A server with VS Code's "sandboxEnabled": MCP Health's copy runs inside @vscode/sandbox-runtime (real bubblewrap
// here) with VS Code's policy, or not at all. Needs bwrap, socat and rg (scripts/setup-code-server.sh installs them).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { ConnectError } from '../../../src/core/connection';
import type { SandboxPolicy } from '../../../src/core/model';
import { createNodeConnector } from '../../../src/mcp';
import { runCli } from '../../helpers/cli';
import { faultStdio } from '../../helpers/servers';
import { OpenConnections, stdioServer } from './support';

const CONNECT_MS = 30_000;
const connections = new OpenConnections();
afterEach(() => connections.closeAll());

const root = mkdtempSync(path.join(tmpdir(), 'mcp-health-sandbox-test-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A fresh tree: a writable dir, the server's cwd, a dir outside both, a secret and a public file. */
function layout(name: string) {
  const base = path.join(root, name);
  const dirs = {
    allowed: path.join(base, 'allowed'),
    cwd: path.join(base, 'cwd'),
    outside: path.join(base, 'outside'),
    secret: path.join(base, 'secret'),
    open: path.join(base, 'open'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dirs.secret, 'key.txt'), 'the secret');
  writeFileSync(path.join(dirs.open, 'note.txt'), 'public');
  const policy: SandboxPolicy = {
    filesystem: { allowWrite: [dirs.allowed], denyRead: [dirs.secret], denyWrite: [] },
    network: { allowedDomains: [], deniedDomains: [] },
  };
  const probeEnv = {
    FS_PROBE_WRITE: [path.join(dirs.outside, 'escaped.txt'), path.join(dirs.allowed, 'kept.txt'), path.join(dirs.cwd, 'in-cwd.txt')].join(
      path.delimiter,
    ),
    FS_PROBE_READ: [path.join(dirs.secret, 'key.txt'), path.join(dirs.open, 'note.txt')].join(path.delimiter),
    FS_PROBE_REPORT: path.join(dirs.allowed, 'report.json'),
  };
  return { dirs, policy, probeEnv };
}

type Report = { write: Record<string, string>; read: Record<string, string> };

void describe('a sandboxed stdio server', () => {
  void it('runs inside the sandbox: writes outside allowWrite and reads of denyRead fail, allowed writes work', async () => {
    const { dirs, policy, probeEnv } = layout('policy');
    const launch = faultStdio('fs-probe');
    const connection = connections.add(
      await createNodeConnector().connect(stdioServer('boxed', launch, { env: probeEnv, cwd: dirs.cwd, sandbox: policy }), {
        timeoutMs: CONNECT_MS,
      }),
    );
    const probe = await connection.probe(5000);
    assert.equal(probe.outcome, 'ok', 'the server answers from inside the sandbox');

    const report = JSON.parse(readFileSync(probeEnv.FS_PROBE_REPORT, 'utf8')) as Report;
    assert.deepEqual(report.write, {
      [path.join(dirs.outside, 'escaped.txt')]: 'EROFS',
      [path.join(dirs.allowed, 'kept.txt')]: 'ok',
      [path.join(dirs.cwd, 'in-cwd.txt')]: 'ok', // VS Code makes the server's cwd writable
    });
    assert.deepEqual(report.read, {
      [path.join(dirs.secret, 'key.txt')]: 'ENOENT', // denyRead: the folder is an empty tmpfs inside
      [path.join(dirs.open, 'note.txt')]: 'ok:public',
    });
    assert.equal(existsSync(path.join(dirs.outside, 'escaped.txt')), false, 'nothing escaped onto the host');

    // The same server under VS Code's own way of running it (the runtime's CLI with the settings VS Code writes for
    // this policy) does exactly the same.
    const vscode = layout('vscode');
    const settings = path.join(root, 'vscode-settings.json');
    writeFileSync(
      settings,
      JSON.stringify({
        network: { allowedDomains: [], deniedDomains: [] },
        filesystem: { allowWrite: [vscode.dirs.allowed, '~/.npm', vscode.dirs.cwd], denyRead: [vscode.dirs.secret], denyWrite: [] },
      }),
    );
    const srt = path.join(__dirname, '../../../node_modules/@vscode/sandbox-runtime/dist/cli.js');
    const quoted = [launch.command, ...launch.args].map((arg) => `'${arg}'`).join(' ');
    const run = spawnSync(process.execPath, [srt, '--settings', settings, '-c', quoted], {
      cwd: vscode.dirs.cwd,
      env: { ...process.env, ...vscode.probeEnv },
      input: '',
      timeout: CONNECT_MS,
    });
    assert.equal(run.status, 0, run.stderr.toString());
    const theirs = JSON.parse(readFileSync(vscode.probeEnv.FS_PROBE_REPORT, 'utf8')) as Report;
    const shape = (r: Report, base: string) => JSON.stringify(r).split(base).join('<base>');
    assert.equal(shape(report, path.join(root, 'policy')), shape(theirs, path.join(root, 'vscode')));
  });

  void it('is never started without its sandbox: no bubblewrap on the PATH refuses before anything is spawned', async () => {
    const { dirs, policy, probeEnv } = layout('nobwrap');
    const emptyPath = path.join(root, 'empty-bin');
    mkdirSync(emptyPath, { recursive: true });
    const config = stdioServer('boxed', faultStdio('fs-probe'), { env: { ...probeEnv, PATH: emptyPath }, cwd: dirs.cwd, sandbox: policy });
    const error = await createNodeConnector()
      .connect(config, { timeoutMs: CONNECT_MS })
      .then(
        () => assert.fail('a sandboxed server started without bubblewrap'),
        (failure: unknown) => failure,
      );
    assert.ok(error instanceof ConnectError);
    assert.equal(error.kind, 'sandbox');
    assert.equal(error.details.code, 'SANDBOX_NO_BWRAP');
    assert.match(error.message, /^sandboxed: not started: bubblewrap \(bwrap\) is not installed/);
    assert.equal(existsSync(probeEnv.FS_PROBE_REPORT), false, 'the server never ran');
    assert.equal(existsSync(path.join(dirs.cwd, 'in-cwd.txt')), false);
  });

  void it('the CLI shows "sandboxed: not started" with the reason and what to install', async () => {
    const { dirs, probeEnv } = layout('cli');
    const emptyPath = path.join(root, 'empty-bin-cli');
    mkdirSync(emptyPath, { recursive: true });
    const launch = faultStdio('fs-probe');
    const file = path.join(root, 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        servers: {
          boxed: {
            type: 'stdio',
            command: launch.command,
            args: launch.args,
            cwd: dirs.cwd,
            env: { ...probeEnv, PATH: emptyPath },
            sandboxEnabled: true,
            sandbox: { filesystem: { allowWrite: [dirs.allowed] } },
          },
        },
      }),
    );
    const run = await runCli(['check', '--config', file, '--no-user', '--json']);
    const report = JSON.parse(run.stdout) as {
      servers: { name: string; state: string; sandboxed?: boolean; cause?: { summary: string }; nextStep?: string }[];
    };
    const boxed = report.servers.find((server) => server.name === 'boxed');
    assert.equal(boxed?.state, 'sandbox-unavailable', run.stdout);
    assert.equal(boxed?.sandboxed, true);
    assert.match(boxed?.cause?.summary ?? '', /sandboxed: not started: bubblewrap \(bwrap\) is not installed/);
    assert.match(boxed?.nextStep ?? '', /apt install bubblewrap/);
    assert.equal(existsSync(probeEnv.FS_PROBE_REPORT), false, 'the server never ran');

    const table = await runCli(['check', '--config', file, '--no-user']);
    assert.match(table.stdout, /sandbox-unavailable/);
    assert.match(table.stdout, /sandboxed: not started/);
  });
});
