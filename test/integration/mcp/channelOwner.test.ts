// Readers of the local channel verify whom they talk to: a channel directory or socket that another user owns, or that
// others may write (XDG_RUNTIME_DIR pointing somewhere world-writable), is refused on every connect, with a line that
// names the path: by connectChannel itself, the CLI's guard lookup (`list` as a user runs it) and a follower window.

import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { systemClock } from '../../../src/core/clock';
import { createRegistry } from '../../../src/core/monitor';
import { defaultMonitorSettings } from '../../../src/core/monitorTypes';
import { readGuardStatuses } from '../../../src/guard/statusChannel';
import { createNodeConnector } from '../../../src/mcp';
import { ChannelRefusedError, channelPath, connectChannel, listenChannel, type ChannelServer } from '../../../src/mcp/localChannel';
import { SharedServers, type Role } from '../../../src/mcp/sharedServers';
import { runCli } from '../../helpers/cli';

const posix = process.platform !== 'win32';
const root = mkdtempSync(path.join(tmpdir(), 'mh-owner-'));
const open: { dispose(): unknown }[] = [];
after(() => rmSync(root, { recursive: true, force: true }));
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.dispose();
});

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const NOBODY = 65534;
let counter = 0;

async function bound(topic = 'user-servers'): Promise<{ server: ChannelServer; socket: string; dir: string }> {
  const dir = path.join(root, `d${counter++}`, 'mcp-health');
  const socket = channelPath(topic, dir);
  const server = await listenChannel(socket, { onConnect: (peer) => peer.send({ type: 'guard-status', hello: true }) });
  assert.ok(server);
  open.push(server);
  return { server, socket, dir };
}

async function refusal(socket: string): Promise<string> {
  try {
    const client = await connectChannel(socket, { onMessage: () => undefined });
    client.dispose();
  } catch (error) {
    assert.ok(error instanceof ChannelRefusedError, `refused as another user's channel, not ${String(error)}`);
    return error.message;
  }
  assert.fail(`connected to ${socket}`);
}

void describe('local channel readers check owner and mode', { skip: !posix && 'Unix sockets only' }, () => {
  void it('connectChannel refuses a directory open to others, and a socket or directory of another uid', async () => {
    const ours = await bound();
    const client = await connectChannel(ours.socket, { onMessage: () => undefined });
    client.dispose();

    const open777 = await bound();
    chmodSync(open777.dir, 0o777);
    assert.match(await refusal(open777.socket), /mcp-health has mode 0777: other users could read or replace it/);

    const looseSocket = await bound();
    chmodSync(looseSocket.socket, 0o666);
    assert.match(await refusal(looseSocket.socket), /user-servers\.sock has mode 0666/);

    if (isRoot) {
      const theirsSocket = await bound();
      chownSync(theirsSocket.socket, NOBODY, NOBODY);
      assert.match(
        await refusal(theirsSocket.socket),
        new RegExp(`user-servers\\.sock belongs to uid ${NOBODY}, not to this user \\(uid 0\\)`),
      );
      const theirsDir = await bound();
      chownSync(theirsDir.dir, NOBODY, NOBODY);
      assert.match(await refusal(theirsDir.socket), new RegExp(`mcp-health belongs to uid ${NOBODY}`));
    }
  });

  void it("the guard lookup (readGuardStatuses and `list`) refuses another user's or a world-writable directory with one line", async () => {
    const guard = await bound('guard-900010');
    chmodSync(guard.dir, 0o777);
    const logged: string[] = [];
    assert.deepEqual(await readGuardStatuses(2000, guard.dir, (line) => logged.push(line)), []);
    assert.equal(logged.length, 1, logged.join('\n'));
    assert.match(logged[0]!, /refusing the local channel .*guard-900010\.sock: .*mcp-health has mode 0777/);

    // The CLI as a user runs it, with XDG_RUNTIME_DIR pointing at that directory's parent.
    const file = path.join(root, 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { fs: { command: 'npx', args: ['-y', 'mcp-health', 'guard', '--name', 'fs', '--', 'node', 'x.js'] } } }),
    );
    const run = await runCli(['list', '--config', file], { env: { XDG_RUNTIME_DIR: path.dirname(guard.dir) } });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /fs\s+guarded, no running guard/);
    assert.match(run.stderr, /refusing the local channel .*guard-900010\.sock: .*has mode 0777/);

    if (isRoot) {
      const theirs = await bound('guard-900011');
      chownSync(theirs.socket, NOBODY, NOBODY);
      const lines: string[] = [];
      assert.deepEqual(await readGuardStatuses(2000, theirs.dir, (line) => lines.push(line)), []);
      assert.match(lines.join('\n'), new RegExp(`guard-900011\\.sock belongs to uid ${NOBODY}`));
    }
  });

  void it('a window never follows a leader socket another user owns', { skip: !isRoot && 'needs root to chown' }, async () => {
    const fake = await bound();
    chownSync(fake.socket, NOBODY, NOBODY);
    const warnings: string[] = [];
    const logger = {
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: (m: string) => void warnings.push(m),
      error: () => undefined,
    };
    const registry = createRegistry({
      connector: createNodeConnector({ logger }),
      clock: systemClock,
      logger,
      settings: defaultMonitorSettings,
    });
    const roles: Role[] = [];
    const shared = new SharedServers({
      path: fake.socket,
      registry,
      covers: () => true,
      label: 'another window',
      logger,
      onRoleChange: (role) => roles.push(role),
    });
    open.push({ dispose: () => registry.dispose() }, shared);
    await shared.start();
    assert.ok(!roles.includes('follower'), `never followed: ${roles.join(',')}`);
    assert.ok(
      warnings.some((line) => new RegExp(`shared servers: refusing the local channel .*belongs to uid ${NOBODY}`).test(line)),
      warnings.join('\n'),
    );
  });
});
