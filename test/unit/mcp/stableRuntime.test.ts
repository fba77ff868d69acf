import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { silentLogger } from '../../../src/core/logger';
import { findOnPath, installStableRuntime, StableGuardRuntime } from '../../../src/mcp/stableRuntime';

const root = mkdtempSync(path.join(tmpdir(), 'mcp-health-stable-'));
after(() => rmSync(root, { recursive: true, force: true }));

void describe('the stable copy of the guard runtime', () => {
  void it('copies the bundle on first use, leaves an identical copy alone, and replaces a changed one by rename', async () => {
    const bundled = path.join(root, 'ext-0.1.0', 'cli.js');
    mkdirSync(path.dirname(bundled), { recursive: true });
    writeFileSync(bundled, 'console.log("v1")\n');
    const bin = path.join(root, 'storage', 'bin');

    const first = await installStableRuntime(bundled, bin);
    assert.equal(first.file, path.join(bin, 'mcp-health-guard.js'));
    assert.equal(first.written, true);
    assert.equal(readFileSync(first.file, 'utf8'), 'console.log("v1")\n');
    const inode = statSync(first.file).ino;

    const same = await installStableRuntime(bundled, bin);
    assert.equal(same.written, false);
    assert.equal(statSync(same.file).ino, inode, 'an identical copy is not rewritten');

    // The next extension version lives in another folder; the stable path stays the same.
    const updated = path.join(root, 'ext-0.2.0', 'cli.js');
    mkdirSync(path.dirname(updated), { recursive: true });
    writeFileSync(updated, 'console.log("v2")\n');
    const changed = await installStableRuntime(updated, bin);
    assert.equal(changed.file, first.file);
    assert.equal(changed.written, true);
    assert.equal(readFileSync(changed.file, 'utf8'), 'console.log("v2")\n');
    // Renamed over, not written in place: a guard that has the old file open keeps reading the old content.
    assert.notEqual(statSync(changed.file).ino, inode);
    assert.deepEqual(readdirSync(bin), ['mcp-health-guard.js'], 'no temporary file is left behind');
  });

  void it('logs a failure once and refuses with its reason instead of throwing', async () => {
    const bundled = path.join(root, 'ext-x', 'cli.js');
    mkdirSync(path.dirname(bundled), { recursive: true });
    writeFileSync(bundled, 'x');
    // The storage's bin is taken by a file: nothing can be copied there.
    const blocked = path.join(root, 'blocked');
    writeFileSync(blocked, 'not a directory');
    const logged: string[] = [];
    const runtime = new StableGuardRuntime(bundled, path.join(blocked, 'bin'), {
      ...silentLogger,
      info: (line) => logged.push(line),
      warn: (line) => logged.push(line),
    });
    const outcome = await runtime.launcher();
    assert.ok('error' in outcome, 'no launcher without the copy');
    assert.match(outcome.error, /ENOTDIR|EEXIST/);
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /could not copy the guard runtime/);
  });

  void it('hands out node and the stable path as the launcher once copied', async () => {
    const bundled = path.join(root, 'ext-y', 'cli.js');
    mkdirSync(path.dirname(bundled), { recursive: true });
    writeFileSync(bundled, 'y');
    const bin = path.join(root, 'storage-y', 'bin');
    const logged: string[] = [];
    const outcome = await new StableGuardRuntime(bundled, bin, {
      ...silentLogger,
      info: (line) => logged.push(line),
      warn: (line) => logged.push(line),
    }).launcher();
    assert.deepEqual(outcome, { launcher: { command: 'node', args: [path.join(bin, 'mcp-health-guard.js'), 'guard'] } });
    assert.equal(logged.length, 1);
  });
});

void describe('finding node on PATH', () => {
  void it('finds an executable the way a client would, and reports a missing one', async () => {
    const dir = path.join(root, 'path-bin');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'node'), '#!/bin/sh\n');
    chmodSync(path.join(dir, 'node'), 0o755);
    writeFileSync(path.join(dir, 'notexec'), '');
    chmodSync(path.join(dir, 'notexec'), 0o644);
    assert.equal(
      await findOnPath('node', { PATH: `${path.join(root, 'nowhere')}${path.delimiter}${dir}` }, 'linux'),
      path.join(dir, 'node'),
    );
    assert.equal(await findOnPath('node', { PATH: path.join(root, 'nowhere') }, 'linux'), undefined);
    assert.equal(await findOnPath('notexec', { PATH: dir }, 'linux'), undefined);
    assert.equal(await findOnPath('node', {}, 'linux'), undefined);
  });
});
