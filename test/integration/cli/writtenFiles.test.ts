// Files MCP Health writes, read back by the CLI as a user runs it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { modernStdio } from '../../helpers/servers';
import { runCli } from '../../helpers/cli';

describe('files mcp-health writes', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-written-'));
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('--save-baseline keeps a server named __proto__ (or constructor), so the next --baseline run sees no drift', async () => {
    const config = path.join(dir, 'mcp.json');
    // Written as text: an object literal's __proto__ would set a prototype instead of a key.
    fs.writeFileSync(
      config,
      `{ "servers": { "__proto__": ${JSON.stringify(modernStdio())}, "constructor": ${JSON.stringify(modernStdio())} } }`,
    );
    const baseline = path.join(dir, 'baseline.json');
    const saved = await runCli(['check', '--config', config, '--save-baseline', baseline]);
    assert.equal(saved.code, 0, saved.stderr + saved.stdout);
    const document = JSON.parse(fs.readFileSync(baseline, 'utf8')) as { servers: Record<string, unknown> };
    assert.deepEqual(Object.keys(document.servers).sort(), ['__proto__', 'constructor']);
    const checked = await runCli(['check', '--config', config, '--baseline', baseline, '--json']);
    assert.equal(checked.code, 0, checked.stdout);
    const reports = (JSON.parse(checked.stdout) as { servers: { name: string; drift: unknown }[] }).servers;
    assert.deepEqual(reports.map((report) => [report.name, report.drift]).sort(), [
      ['__proto__', null],
      ['constructor', null],
    ]);
  });
});
