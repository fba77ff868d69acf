// The CLI as a user installs it: `npm pack` of this repository, `npm install -g` of that tarball into an empty prefix
// (offline, from the file alone), then the installed `mcp-health` run from an empty directory.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const DEMO = path.join(ROOT, 'demo', 'workspace');

void describe('the packed CLI', { timeout: 180_000 }, () => {
  let scratch = '';
  let bin = '';
  let tarball = '';

  before(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-pack-'));
    // dist/cli.js is built by the integration script (`node esbuild.js`); pack takes it as it is.
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: ROOT, encoding: 'utf8' }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = path.join(scratch, packed[0]!.filename);
    const prefix = path.join(scratch, 'prefix');
    fs.mkdirSync(prefix);
    // --offline: everything the CLI needs must be in the tarball; nothing may come from a registry.
    execFileSync('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball], {
      cwd: scratch,
      stdio: 'pipe',
    });
    bin = path.join(prefix, 'bin', 'mcp-health');
  });

  after(() => {
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  void it('holds the bundled CLI and no sources, tests or dependencies', () => {
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').sort();
    for (const bundle of ['cli.js', 'main.js', 'guard.js']) assert.ok(listing.includes(`package/dist/${bundle}`), listing.join('\n'));
    assert.deepEqual(
      listing.filter((entry) => /^package\/(src|test|node_modules|bench|media|docs)\//.test(entry) || entry.endsWith('.map')),
      [],
    );
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' })) as {
      dependencies?: object;
    };
    assert.equal(manifest.dependencies, undefined, 'dist/cli.js is self-contained: the package has no runtime dependencies');
  });

  void it('answers --version and --help', () => {
    const version = spawnSync(bin, ['--version'], { cwd: scratch, encoding: 'utf8' });
    assert.equal(version.status, 0, version.stderr);
    const expected = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    assert.equal(version.stdout.trim(), expected);
    const help = spawnSync(bin, ['--help'], { cwd: scratch, encoding: 'utf8' });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /mcp-health check/);
    assert.match(help.stdout, /Exit codes:/);
  });

  void it('runs a guard from its own bundle and hands --help to the full CLI', async () => {
    const server = path.join(ROOT, 'test', 'fixtures', 'servers', 'fault-server.mjs');
    const guard = spawn(bin, ['guard', '--', process.execPath, server, '--transport', 'stdio', '--fault', 'none'], {
      cwd: scratch,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      guard.stdout.setEncoding('utf8');
      guard.stdout.on('data', (chunk: string) => (out += chunk));
      guard.stdin.write(
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pack","version":"0"}}}\n',
      );
      guard.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to the ping; stdout: ${out}`)), 30_000);
        guard.stdout.on('data', () => {
          if (out.includes('"id":2')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      assert.match(out, /"protocolVersion"/);
      const pong = out.split('\n').find((line) => line.includes('"id":2'));
      assert.deepEqual(JSON.parse(pong!), { jsonrpc: '2.0', id: 2, result: {} });
    } finally {
      guard.stdin.end();
      await new Promise((resolve) => guard.once('exit', resolve));
    }
    const help = spawnSync(bin, ['guard', '--help'], { cwd: scratch, encoding: 'utf8' });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stderr, /mcp-health guard/);
    assert.equal(help.stdout, '');
  });

  void it('checks the demo workspace from an empty directory and exits 0', () => {
    const run = spawnSync(bin, ['check', '--workspace', DEMO, '--no-user'], {
      cwd: scratch,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 120_000,
    });
    assert.equal(run.status, 0, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
    for (const name of ['everything', 'modern', 'slow-pong', 'flaky']) {
      assert.match(run.stdout, new RegExp(`^${name}\\s+up`, 'm'), run.stdout);
    }
    assert.match(run.stdout, /\d+\/\d+ healthy/);
  });
});
