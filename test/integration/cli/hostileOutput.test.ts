// Server-controlled text (server names from a config, tool names, a server's stderr) never reaches the terminal or a
// CI log as control sequences or GitHub Actions workflow commands, on any path the CLI prints (the CLI as a user runs it).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli, type CliRun } from '../../helpers/cli';

const FIXTURES = path.resolve(__dirname, '../../fixtures/servers');
/** Clear screen, retitle the window, a C1 CSI, a bidi override. */
const ESCAPES = '\x1b[2J\x1b]0;pwned\x07\x9b31m\u202e';

/** What must never be in CLI output: ESC, C1 controls, bidi overrides, a line that is a workflow command. */
function assertClean(run: CliRun, what: string): void {
  for (const [stream, text] of [
    ['stdout', run.stdout],
    ['stderr', run.stderr],
  ] as const) {
    assert.doesNotMatch(
      text,
      /[\x1b\x80-\x9f\u202a-\u202e\u2066-\u2069]/,
      `${what}: a control character on ${stream}:\n${JSON.stringify(text)}`,
    );
    assert.doesNotMatch(text, /##\[/, `${what}: ##[ on ${stream}`);
    for (const line of text.split('\n')) {
      if (!/^\s*::/.test(line)) continue;
      // The only `::` lines are the CLI's own annotations: every property escaped, so no second `::` before the message.
      assert.match(
        line,
        /^::(error|warning) file=[^:,]+,line=\d+,col=\d+,title=[^:,]+::/,
        `${what}: a workflow command on ${stream}: ${line}`,
      );
    }
  }
}

describe('mcp-health output with hostile names, tools and stderr', () => {
  let dir: string;
  let config: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-hostile-out-'));
    const modern = { command: process.execPath, args: [path.join(FIXTURES, 'modern-server.mjs'), '--transport', 'stdio'] };
    config = path.join(dir, 'mcp.json');
    fs.writeFileSync(
      config,
      JSON.stringify(
        {
          servers: {
            '::warning file=README.md::x': modern,
            '::stop-commands::tok': modern,
            '  ##[error]forged': modern,
            [`crasher${ESCAPES}`]: {
              command: process.execPath,
              args: [path.join(FIXTURES, 'hostile-server.mjs'), '--mode', 'escapes-exit'],
            },
            [`pages${ESCAPES}::x`]: {
              command: process.execPath,
              args: [path.join(FIXTURES, 'drift-server.mjs'), '--endless-pages', 'yes'],
            },
            [`guarded${ESCAPES}\n::warning::forged`]: {
              command: 'mcp-health',
              args: ['guard', '--name', 'nobody-runs-this', '--', 'node', 'x.js'],
            },
          },
        },
        null,
        2,
      ),
    );
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('list: table rows and Guarded lines', async () => {
    const run = await runCli(['list', '--config', config]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Guarded \(run by mcp-health guard/);
    assertClean(run, 'list');
  });

  it('check, check --format github and --save-baseline: rows, annotations (title escaped), left-out names on stderr', async () => {
    const baseline = path.join(dir, 'baseline.json');
    const run = await runCli(['check', '--config', config, '--format', 'github', '--save-baseline', baseline, '--timeout-ms', '3000']);
    assert.equal(run.code, 1, run.stderr);
    assertClean(run, 'check --format github');
    assert.match(run.stderr, /left out of the baseline .*pages/);
    // The crasher's annotation is built by the CLI: its title carries the name, escaped and filtered.
    assert.match(run.stdout, /^::error file=[^\n]*title=MCP server crasher[^\n]*::/m);
    const table = await runCli(['check', '--config', config, '--timeout-ms', '3000']);
    assertClean(table, 'check');
  });

  it('check --json: cause.summary carries none of the server stderr colour codes, and no raw C1 is printed', async () => {
    const run = await runCli(['check', '--config', config, '--json', '--timeout-ms', '3000']);
    assertClean(run, 'check --json');
    const doc = JSON.parse(run.stdout) as { servers: { name: string; cause: { summary: string } | null }[] };
    const crasher = doc.servers.find((server) => server.name.startsWith('crasher'));
    assert.ok(crasher?.cause, run.stdout);
    assert.match(crasher.cause.summary, /boom/);
    assert.doesNotMatch(crasher.cause.summary, /[\x00-\x1f\x7f-\x9f]|\[2J|\[0m|31m/, crasher.cause.summary);
    // The names themselves are data, kept exact: escaped in the text, identical once parsed.
    assert.ok(doc.servers.some((server) => server.name === `crasher${ESCAPES}`));
  });

  for (const json of [false, true]) {
    it(`watch${json ? ' --json' : ''}: tools-changed names a hostile tool harmlessly`, async () => {
      const toolsFile = path.join(dir, `tools-${json}.json`);
      fs.writeFileSync(toolsFile, '[]');
      const watched = path.join(dir, `watch-${json}.json`);
      fs.writeFileSync(
        watched,
        JSON.stringify({
          servers: {
            [`dict${ESCAPES}`]: {
              command: process.execPath,
              args: [path.join(FIXTURES, 'drift-server.mjs'), '--tools-file', toolsFile, '--exit-after-ms', '1500'],
            },
          },
        }),
      );
      let edited = false;
      const run = await runCli(
        ['watch', '--config', watched, ...(json ? ['--json'] : []), '--duration-ms', '9000', '--interval-ms', '60000'],
        {
          onStdoutLine: (line) => {
            // Once the first connection is up, the next start lists one more tool, with a hostile name.
            if (!edited && /"to":"up"| -> up/.test(line)) {
              edited = true;
              fs.writeFileSync(toolsFile, JSON.stringify([`evil${ESCAPES}tool`, '::warning::tool']));
            }
          },
        },
      );
      assert.match(run.stdout, /tools changed|"tools-changed"/, run.stdout);
      assertClean(run, `watch${json ? ' --json' : ''}`);
      if (json) {
        const event = run.stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { type: string; added?: string[] })
          .find((line) => line.type === 'tools-changed');
        assert.deepEqual(event?.added?.sort(), ['::warning::tool', `evil${ESCAPES}tool`].sort());
      }
    });
  }
});
