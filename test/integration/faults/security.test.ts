// Security, end to end: the bundled CLI (list, check, watch; table and JSON) against servers that echo every secret
// they were given; arguments with shell syntax that must stay literal; and a network recorder proving the CLI
// reaches no host but the configured ones.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createNodeConnector } from '../../../src/mcp';
import { runCli as runCliIn, type CliRun } from '../../helpers/cli';
import { collectingLogger, serverConfig, sleep } from './harness';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const PEERS = path.join(__dirname, 'peers');

/** Distinct and long, so a hit can only be a leak. */
const SECRETS = {
  GITHUB_TOKEN: 'ghp_leakcheck0GITHUBTOKEN0000000001',
  OPENAI_API_KEY: 'sk-leakcheck-OPENAIAPIKEY000000002',
  DB_PASSWORD: 'pw-leakcheck-DBPASSWORD0000000003',
  CLIENT_SECRET: 'cs-leakcheck-CLIENTSECRET00000004',
  MY_AUTH: 'au-leakcheck-MYAUTH000000000000005',
  bearer: 'bt-leakcheck-BEARER0000000000000006',
  cookie: 'ck-leakcheck-COOKIE0000000000000007',
  apiKey: 'ak-leakcheck-XAPIKEY000000000000008',
};
const SHELL_ARGS = (dir: string) => [
  `$(touch ${dir}/pwned1)`,
  `; touch ${dir}/pwned2`,
  `\`touch ${dir}/pwned3\``,
  `&& touch ${dir}/pwned4`,
  `| touch ${dir}/pwned5`,
  `'; touch ${dir}/pwned6; '`,
  `\n touch ${dir}/pwned7`,
  '*',
  '$HOME',
];

function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runCliIn(args, { env });
}

function startEchoHeaders(): Promise<{ port: number; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(PEERS, 'echo-headers-http.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    const timer = setTimeout(() => reject(new Error('echo-headers-http not ready')), 10_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /LISTENING (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ port: Number(match[1]), child });
      }
    });
    child.on('exit', () => reject(new Error('echo-headers-http exited early')));
  });
}

function assertNoSecrets(where: string, text: string): void {
  for (const [name, value] of Object.entries(SECRETS))
    assert.ok(!text.includes(value), `${where} shows ${name} in clear:\n${text.slice(0, 3_000)}`);
}

void describe('security, end to end', () => {
  let dir = '';
  let configFile = '';
  let argvFile = '';
  let echoServer: { port: number; child: ChildProcess } | undefined;

  before(async () => {
    assert.ok(existsSync(CLI), `${CLI} is missing: run \`node esbuild.js\` first (npm run test:integration does)`);
    dir = mkdtempSync(path.join(tmpdir(), 'mcp-health-security-'));
    argvFile = path.join(dir, 'argv.json');
    echoServer = await startEchoHeaders();
    configFile = path.join(dir, 'mcp.json');
    writeFileSync(
      configFile,
      JSON.stringify(
        {
          servers: {
            'echo-env': {
              command: process.execPath,
              args: [path.join(PEERS, 'echo-env.mjs'), `--api-key=${SECRETS.OPENAI_API_KEY}`],
              env: {
                GITHUB_TOKEN: SECRETS.GITHUB_TOKEN,
                OPENAI_API_KEY: SECRETS.OPENAI_API_KEY,
                DB_PASSWORD: SECRETS.DB_PASSWORD,
                CLIENT_SECRET: SECRETS.CLIENT_SECRET,
                MY_AUTH: SECRETS.MY_AUTH,
              },
            },
            'echo-headers': {
              type: 'http',
              url: `http://127.0.0.1:${echoServer.port}/mcp`,
              headers: { Authorization: `Bearer ${SECRETS.bearer}`, Cookie: `session=${SECRETS.cookie}`, 'X-API-Key': SECRETS.apiKey },
            },
            literal: {
              command: process.execPath,
              args: [path.join(PEERS, 'echo-argv.mjs'), ...SHELL_ARGS(dir)],
              env: { ARGV_FILE: argvFile },
            },
          },
        },
        null,
        2,
      ),
    );
  });

  after(() => {
    echoServer?.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const commands: Array<[string, string[]]> = [
    ['list', ['list']],
    ['check', ['check', '--timeout-ms', '3000', '--connect-timeout-ms', '10000']],
    ['watch', ['watch', '--interval-ms', '1000', '--timeout-ms', '3000', '--connect-timeout-ms', '10000', '--duration-ms', '4000']],
  ];
  for (const [name, args] of commands) {
    for (const json of [false, true]) {
      void it(`${name}${json ? ' --json' : ''}: no secret in the output, though every server echoes its secrets`, async () => {
        const run = await runCli([...args, '--config', configFile, ...(json ? ['--json'] : [])]);
        assertNoSecrets(`${name} stdout`, run.stdout);
        assertNoSecrets(`${name} stderr`, run.stderr);
        assert.match(run.stdout, /echo-env/);
        assert.match(run.stdout, /echo-headers/);
        if (name !== 'list') {
          // The echoes really happened and were masked, not silently dropped.
          assert.match(run.stdout, /\*\*\*/, 'masked values are shown as such');
          assert.match(run.stdout, /exited|exit/i, 'the crashing server is reported');
        }
      });
    }
  }

  void it('arguments with shell syntax reach the server literally and run nothing', async () => {
    rmSync(argvFile, { force: true });
    await runCli(['check', '--config', configFile, '--server', 'literal', '--timeout-ms', '3000', '--connect-timeout-ms', '10000']);
    assert.deepEqual(JSON.parse(readFileSync(argvFile, 'utf8')), SHELL_ARGS(dir));
    for (let i = 1; i <= 7; i++) assert.ok(!existsSync(path.join(dir, `pwned${i}`)), `pwned${i} was created: a shell ran`);
  });

  void it('a command that is itself shell syntax is not run through a shell', async () => {
    const marker = path.join(dir, 'pwned-command');
    const file = path.join(dir, 'command.json');
    writeFileSync(file, JSON.stringify({ servers: { sneaky: { command: `true; touch ${marker}`, args: [] } } }));
    const run = await runCli(['check', '--config', file, '--json', '--connect-timeout-ms', '5000']);
    assert.equal(run.code, 1);
    assert.ok(!existsSync(marker), 'the command string was run by a shell');
  });

  void it('check contacts the configured server only: no other host, no DNS', async () => {
    const log = path.join(dir, 'network.log');
    const only = path.join(dir, 'http-only.json');
    writeFileSync(only, JSON.stringify({ servers: { remote: { type: 'http', url: `http://127.0.0.1:${echoServer?.port}/mcp` } } }));
    await runCli(['check', '--config', only, '--json'], {
      NODE_OPTIONS: `--require ${path.join(PEERS, 'record-network.cjs')}`,
      MCP_HEALTH_NET_LOG: log,
    });
    const entries = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { kind: string; host: string | null; port: number | null; path: string | null });
    const sockets = entries.filter((e) => e.kind === 'connect' && e.path === null);
    assert.ok(sockets.length >= 1, 'the recorder saw the connection to the server');
    for (const entry of sockets)
      assert.deepEqual(
        [entry.host, Number(entry.port)],
        ['127.0.0.1', echoServer?.port],
        `unexpected connection: ${JSON.stringify(entry)}`,
      );
    assert.deepEqual(
      entries.filter((e) => e.kind.startsWith('dns')),
      [],
      'no DNS query for a literal address',
    );
  });

  void it('the connector log (the ping log in the editor) masks what a server prints on stdout and stderr', async () => {
    const logger = collectingLogger();
    const config = {
      ...serverConfig('echo-env', 'stdio', { command: process.execPath, args: [path.join(PEERS, 'echo-env.mjs')] }),
      env: { GITHUB_TOKEN: SECRETS.GITHUB_TOKEN, DB_PASSWORD: SECRETS.DB_PASSWORD },
      secretValues: [SECRETS.GITHUB_TOKEN, SECRETS.DB_PASSWORD],
    };
    await createNodeConnector({ logger })
      .connect(config, { timeoutMs: 10_000 })
      .then(
        (c) => c.close(),
        () => undefined,
      );
    await sleep(100);
    assert.ok(
      logger.lines.some((line) => /non-JSON stdout/.test(line)),
      `the dump reached the log:\n${logger.lines.join('\n')}`,
    );
    assertNoSecrets('the connector log', logger.lines.join('\n'));
  });
});

/** Values under names the old name filter missed, a URL password with raw `@`s, and a header under a plain name. */
const UNNAMED = {
  GITHUB_PAT: 'ghp_unnamed0GITHUBPAT000000000000009',
  DATABASE_URL: 'postgres://dbuser:Db-unnamed-Pass0010@db.example.invalid/app',
  DB_PASS_ONLY: 'Db-unnamed-Pass0010',
  SLACK_HOOK: 'https://hooks.example.invalid/T000/B000/unnamedHook0011',
  URL_PASSWORD: 'p@ss@unnamed0012',
  HEADER: 'hv-unnamed-XTenant0013',
};

function spellingsOf(value: string): string[] {
  const userinfo = new URL('http://example.invalid/');
  userinfo.password = value;
  return [value, encodeURIComponent(value), userinfo.password];
}

function assertNoUnnamed(where: string, text: string): void {
  for (const [name, value] of Object.entries(UNNAMED)) {
    for (const spelling of spellingsOf(value))
      assert.ok(!text.includes(spelling), `${where} shows ${name} (${spelling}) in clear:\n${text.slice(0, 3_000)}`);
  }
  // Every value carries this marker, so a fragment (the part of a password after a raw `@`) counts as a leak too.
  assert.ok(!text.includes('unnamed'), `${where} shows part of a configured value:\n${text.slice(0, 3_000)}`);
}

void describe('every configured env and header value is secret, whatever its name', () => {
  let dir = '';
  let configFile = '';

  before(() => {
    assert.ok(existsSync(CLI), `${CLI} is missing: run \`node esbuild.js\` first`);
    dir = mkdtempSync(path.join(tmpdir(), 'mcp-health-anyname-'));
    configFile = path.join(dir, 'mcp.json');
    writeFileSync(
      configFile,
      JSON.stringify(
        {
          servers: {
            'env-dump': {
              command: process.execPath,
              args: [path.join(ROOT, 'test', 'fixtures', 'servers', 'hostile-server.mjs'), '--mode', 'env-dump'],
              env: {
                GITHUB_PAT: UNNAMED.GITHUB_PAT,
                DATABASE_URL: UNNAMED.DATABASE_URL,
                SLACK_HOOK: UNNAMED.SLACK_HOOK,
                LOG_LEVEL: 'debug',
                PORT: '8080',
              },
            },
            'raw-at': {
              type: 'http',
              // Port 9 (discard) on loopback: nothing listens, the connect fails and its error is printed.
              url: `https://user:${UNNAMED.URL_PASSWORD}@127.0.0.1:9/mcp`,
              headers: { 'X-Tenant': UNNAMED.HEADER },
            },
          },
        },
        null,
        2,
      ),
    );
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const args of [['check', '--json'], ['check'], ['list', '--json'], ['list']]) {
    void it(`${args.join(' ')}: no configured value in any spelling`, async () => {
      const timeouts = args[0] === 'check' ? ['--timeout-ms', '3000', '--connect-timeout-ms', '10000'] : [];
      const run = await runCli([...args, '--config', configFile, ...timeouts]);
      assertNoUnnamed(`${args.join(' ')} stdout`, run.stdout);
      assertNoUnnamed(`${args.join(' ')} stderr`, run.stderr);
      assert.match(run.stdout, /env-dump/);
      assert.match(run.stdout, /raw-at/);
      if (args.join(' ') === 'check --json') {
        const doc = JSON.parse(run.stdout) as {
          servers: Array<{ name: string; stderrTail: string | null; error: { message: string } | null }>;
        };
        const dump = doc.servers.find((server) => server.name === 'env-dump');
        // The server really printed its environment; the values were masked, not dropped.
        assert.match(dump?.stderrTail ?? '', /GITHUB_PAT=\*\*\*\n/);
        assert.match(dump?.stderrTail ?? '', /DATABASE_URL=\*\*\*\n/);
        assert.match(dump?.stderrTail ?? '', /LOG_LEVEL=debug\n/, 'a plain word is no secret');
        assert.ok(doc.servers.find((server) => server.name === 'raw-at')?.error, 'the raw-@ server failed and said why');
      }
    });
  }
});
