// Files that are not files: a config, envFile, baseline or history path that names a FIFO, a device or something far
// too big is refused with a diagnostic at that file, and everything else still runs (the CLI as a user runs it).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { modernStdio } from '../../helpers/servers';
import { runCli } from '../../helpers/cli';

interface Doc {
  servers: Array<{ name: string; state: string }>;
  diagnostics: Array<{ file: string; message: string; severity: string }>;
}

describe('mcp-health and paths that are not regular files', () => {
  let root: string;
  let workspace: string;
  let home: string;
  let fifo: string;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-notfiles-'));
    workspace = path.join(root, 'ws');
    home = path.join(root, 'home');
    fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
    fs.mkdirSync(path.join(workspace, '.cursor'), { recursive: true });
    fs.mkdirSync(path.join(workspace, '.roo'), { recursive: true });
    fs.mkdirSync(home);
    // Nobody ever writes to this FIFO: a reader that blocks on it hangs until the test's SIGKILL.
    fifo = path.join(root, 'never-written.fifo');
    execFileSync('mkfifo', [fifo]);
    fs.symlinkSync(fifo, path.join(workspace, '.mcp.json'));
    fs.symlinkSync('/dev/zero', path.join(workspace, '.cursor', 'mcp.json'));
    // 21 MB of spaces: over the 20 MB config cap.
    fs.writeFileSync(path.join(workspace, '.roo', 'mcp.json'), Buffer.alloc(21 * 1024 * 1024, 0x20));
    // A symlink to a regular file is an ordinary config and is read.
    const real = path.join(root, 'real-mcp.json');
    fs.writeFileSync(
      real,
      JSON.stringify(
        {
          servers: {
            good: { type: 'stdio', ...modernStdio() },
            'env-from-fifo': { type: 'stdio', ...modernStdio(), envFile: fifo },
            'env-from-zero': { type: 'stdio', ...modernStdio(), envFile: '/dev/zero' },
          },
        },
        null,
        2,
      ),
    );
    fs.symlinkSync(real, path.join(workspace, '.vscode', 'mcp.json'));
  });
  after(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('check finishes: FIFO, /dev/zero and oversize configs and envFiles are diagnostics naming the file; the good server is up', async () => {
    const run = await runCli(['check', '--json', '--workspace', workspace], {
      cwd: workspace,
      env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') },
    });
    assert.equal(run.signal, null, `the CLI hung and was killed: ${run.stderr}`);
    const doc = JSON.parse(run.stdout) as Doc;
    // The two servers whose envFile is refused are listed as config errors, never started; the good one runs.
    assert.deepEqual(
      doc.servers.map((server) => [server.name, server.state]),
      [
        ['good', 'up'],
        ['env-from-fifo', 'config-error'],
        ['env-from-zero', 'config-error'],
      ],
      run.stdout,
    );
    const message = (file: string) => doc.diagnostics.find((diagnostic) => diagnostic.file === file)?.message ?? '';
    assert.match(message(path.join(workspace, '.mcp.json')), /a FIFO \(named pipe\), not a regular file/);
    assert.match(message(path.join(workspace, '.cursor', 'mcp.json')), /a character device, not a regular file/);
    assert.match(message(path.join(workspace, '.roo', 'mcp.json')), /file is 21 MB, over the 20 MB limit; not read/);
    const envFiles = doc.diagnostics
      .filter((diagnostic) => diagnostic.file === path.join(workspace, '.vscode', 'mcp.json'))
      .map((d) => d.message);
    assert.ok(
      envFiles.some((text) => text.includes('env-from-fifo') && text.includes('a FIFO') && text.includes(fifo)),
      envFiles.join('\n'),
    );
    assert.ok(
      envFiles.some((text) => text.includes('env-from-zero') && text.includes('a character device') && text.includes('/dev/zero')),
      envFiles.join('\n'),
    );
  });

  it('check --baseline pointing at /dev/zero or a FIFO is a usage error naming the file, not a hang or a memory blow-up', async () => {
    const config = path.join(root, 'only-good.json');
    fs.writeFileSync(config, JSON.stringify({ servers: { good: { type: 'stdio', ...modernStdio() } } }));
    for (const baseline of ['/dev/zero', fifo]) {
      const run = await runCli(['check', '--config', config, '--baseline', baseline]);
      assert.equal(run.signal, null, `the CLI hung and was killed on --baseline ${baseline}`);
      assert.equal(run.code, 2, run.stderr);
      assert.match(
        run.stderr,
        new RegExp(`cannot read the baseline ${baseline.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: is a (character device|FIFO)`),
      );
    }
  });

  it('watch --history naming a FIFO or a device is a usage error naming the file, instead of hanging', async () => {
    const config = path.join(root, 'only-good.json');
    const history = path.join(root, 'history.fifo');
    execFileSync('mkfifo', [history]);
    for (const [file, kind] of [
      [history, /is a FIFO \(named pipe\) or socket, not a regular file/],
      ['/dev/null', /is a character device, not a regular file/],
    ] as const) {
      const run = await runCli(['watch', '--config', config, '--history', file, '--duration-ms', '1500', '--json']);
      assert.equal(run.signal, null, `the CLI hung and was killed: ${run.stderr}`);
      assert.equal(run.code, 2, run.stderr);
      assert.ok(run.stderr.includes(`--history: cannot write ${file}: `), run.stderr);
      assert.match(run.stderr, kind);
    }
  });
});
