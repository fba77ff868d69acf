// `mcp-health guard --print-config NAME` prints an entry that works today: the package is on no registry yet, so the
// snippet runs this CLI by its absolute path. The test runs the printed command for real with a real client, and
// checks that MCP Health itself sees the printed entry as guarded (it must never start a copy of that server).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { runCli } from '../../helpers/cli';
import { faultStdio } from '../../helpers/servers';
import { CLI, StderrWatch, waitUntilDead } from './support';

const dir = mkdtempSync(path.join(tmpdir(), 'mcp-health-print-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Entry {
  command: string;
  args: string[];
}

/** The JSON blocks of the printed text, comments left out. */
function blocks(text: string): unknown[] {
  return text.split('\n\n').map(
    (block) =>
      JSON.parse(
        block
          .split('\n')
          .filter((line) => !line.startsWith('//'))
          .join('\n') || 'null',
      ) as unknown,
  );
}

void describe('mcp-health guard --print-config', () => {
  void it('prints an entry that runs through this CLI by its absolute path, and the printed command works', async () => {
    const server = faultStdio('none');
    const config = path.join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ servers: { echoer: { type: 'stdio', command: server.command, args: server.args } } }));
    const printed = await runCli(['guard', '--print-config', 'echoer', '--config', config, '--no-user']);
    assert.equal(printed.code, 0, printed.stderr);
    assert.doesNotMatch(printed.stdout, /npx/, 'npx cannot resolve an unpublished package');
    const [vscodeForm, portableForm] = blocks(printed.stdout) as [
      { servers: Record<string, Entry> },
      { mcpServers: Record<string, Entry> },
    ];
    const entry = vscodeForm.servers.echoer!;
    assert.deepEqual(portableForm.mcpServers.echoer, { command: entry.command, args: entry.args });
    assert.equal(entry.command, 'node');
    assert.equal(entry.args[0], CLI, 'the absolute path of the CLI that printed it');
    assert.deepEqual(entry.args.slice(1), ['guard', '--name', 'echoer', '--', server.command, ...server.args]);

    // Run it as a client would (with the node on PATH that the printed "node" names).
    const inner = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      stderr: 'pipe',
      env: { ...getDefaultEnvironment(), PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` },
    });
    const stderr = new StderrWatch(inner.stderr as Readable);
    const client = new Client({ name: 'print-config-test', version: '1.0.0' });
    await client.connect(inner);
    try {
      const result = (await client.callTool({ name: 'echo', arguments: { message: 'printed' } })) as { content: Array<{ text?: string }> };
      assert.equal(result.content[0]?.text, 'Echo: printed');
      assert.match(stderr.all, /mcp-health guard\[echoer\] info: upstream started/);
    } finally {
      const pid = inner.pid!;
      await client.close();
      await waitUntilDead(pid);
    }

    // The printed entry, pasted into a config, is recognised as guarded: MCP Health will not start its own copy.
    const pasted = path.join(dir, '.mcp.json');
    writeFileSync(pasted, JSON.stringify(portableForm));
    const listed = await runCli(['list', '--config', pasted, '--no-user', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /"guarded"/);
    assert.match(listed.stdout, /"guardName": ?"echoer"/);
  });
});
