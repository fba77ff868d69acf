// Secrets never leave the monitor in clear: configs parsed by the real discovery code (so what counts as a secret is
// decided there), then every channel a secret could escape by: log lines, state reasons, lastError, stderr tails,
// probe events, describeTarget. The fake connector plays a server that echoes every secret it was given.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseConfigText } from '../../../src/core/config/discover';
import { ConnectError } from '../../../src/core/connection';
import type { Logger } from '../../../src/core/logger';
import type { ServerConfig } from '../../../src/core/model';
import { createRegistry } from '../../../src/core/monitor';
import type { MonitorEvent } from '../../../src/core/monitorTypes';
import { describeTarget, redactEnv, redactHeaders } from '../../../src/core/redact';
import { FakeClock } from '../../helpers/fakeClock';
import { FakeConnector } from '../../helpers/fakeConnector';
import { testSettings } from './monitor/harness';

const SECRET_ENV_NAMES = [
  'GITHUB_TOKEN',
  'OPENAI_API_KEY',
  'CLIENT_SECRET',
  'DB_PASSWORD',
  'DB_PASSWD',
  'AUTH',
  'MY_AUTH_HEADER',
  'apiKey',
  'x_access_token',
];
/** Long enough to be masked (4+), alphabet wide enough that a value never hides inside ordinary words. */
const secretValue = fc.string({
  unit: fc.constantFrom(...'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789_-'.split('')),
  minLength: 12,
  maxLength: 40,
});

interface Secrets {
  readonly envName: string;
  readonly env: string;
  readonly bearer: string;
  readonly cookie: string;
  readonly apiKey: string;
  readonly input: string;
}

function configs(s: Secrets): ServerConfig[] {
  const text = JSON.stringify({
    inputs: [{ id: 'pw', type: 'promptString', password: true }],
    servers: {
      local: { command: 'node', args: ['server.js', '--token', '${input:pw}'], env: { [s.envName]: s.env, PLAIN: 'visible' } },
      remote: {
        type: 'http',
        url: 'https://mcp.example.test/mcp',
        headers: { Authorization: `Bearer ${s.bearer}`, Cookie: `session=${s.cookie}`, 'X-API-Key': s.apiKey },
      },
      legacy: { type: 'sse', url: 'https://mcp.example.test/sse', headers: { 'X-Custom': '${input:pw}' } },
    },
  });
  const output = parseConfigText(text, '/w/.vscode/mcp.json', 'vscode', {
    scope: 'workspace',
    folder: '/w',
    workspaceFolders: ['/w'],
    userHome: '/home/u',
    platform: 'linux',
    env: {},
    inputs: { pw: s.input },
  });
  assert.equal(output.servers.length, 3, JSON.stringify(output.diagnostics));
  return output.servers;
}

function values(s: Secrets): string[] {
  return [s.env, s.bearer, s.cookie, s.apiKey, s.input];
}

/** What each server was given and can echo back: its env and argv, or the headers of its requests. */
function echoes(s: Secrets): { local: string; remote: string; legacy: string } {
  return {
    local: `env ${s.envName}=${s.env} argv server.js --token ${s.input}`,
    remote: `Authorization: Bearer ${s.bearer}\r\nCookie: session=${s.cookie}\r\nX-API-Key: ${s.apiKey}`,
    legacy: `X-Custom: ${s.input}`,
  };
}

function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const add = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { lines, logger: { trace: add('trace'), debug: add('debug'), info: add('info'), warn: add('warn'), error: add('error') } };
}

function assertNoSecret(where: string, text: string, s: Secrets): void {
  for (const value of values(s)) assert.ok(!text.includes(value), `${where} leaks ${value}:\n${text.slice(0, 2_000)}`);
}

async function exercise(s: Secrets): Promise<{ lines: string[]; events: MonitorEvent[]; statuses: string }> {
  const clock = new FakeClock();
  const connector = new FakeConnector(clock);
  const [local, remote, legacy] = configs(s);
  const leak = echoes(s);
  // local: starts, writes its env to stderr, answers a ping with an error quoting it, then dies quoting it again.
  connector.queue(local.id, { probe: () => ({ outcome: 'error-reply', detail: `error -32603: ${leak.local}` }) });
  connector.always(local.id, { fail: new ConnectError('exited', `exited: ${leak.local}`, { exitCode: 1, stderrTail: leak.local }) });
  // remote: up, its probe refused with a body quoting the request headers, then every connect refused the same way.
  connector.queue(remote.id, { probe: () => ({ outcome: 'auth', detail: `HTTP 401: ${leak.remote}` }) });
  connector.always(remote.id, { fail: new ConnectError('auth', `HTTP 401: ${leak.remote}`, { httpStatus: 401 }) });
  // legacy: up, then its probe fails quoting the headers, then connects fail as unreachable.
  connector.queue(legacy.id, { probe: () => ({ outcome: 'failed', detail: `HTTP 500: ${leak.legacy}` }) });
  connector.always(legacy.id, { fail: new ConnectError('unreachable', `HTTP 500: ${leak.legacy}`, { httpStatus: 500 }) });

  const { logger, lines } = capture();
  const registry = createRegistry({ connector, clock, logger, settings: testSettings, random: () => 0.5 });
  const events: MonitorEvent[] = [];
  registry.onEvent((event) => events.push(event));
  registry.setServers([local, remote, legacy], []);
  registry.start();
  await clock.advance(1);
  connector.latest(local.id).writeStderr(`${leak.local}\n`);
  await clock.advance(testSettings.intervalMs.stdio + 10);
  await clock.advance(30_000);
  await registry.pingNow();
  const statuses = JSON.stringify(
    registry.list().map((status) => ({ lastError: status.lastError, stderrTail: status.stderrTail, state: status.state })),
  );
  await registry.dispose();
  return { lines, events, statuses };
}

void describe('secrets never leave the monitor in clear', () => {
  void it('not in log lines, state reasons, probe events, lastError or stderr tails', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          envName: fc.constantFrom(...SECRET_ENV_NAMES),
          env: secretValue,
          bearer: secretValue,
          cookie: secretValue,
          apiKey: secretValue,
          input: secretValue,
        }),
        async (s) => {
          const { lines, events, statuses } = await exercise(s);
          assert.ok(lines.length > 0 && events.length > 0, 'the scenario produced output');
          assertNoSecret('the log', lines.join('\n'), s);
          assertNoSecret('the statuses', statuses, s);
          for (const event of events) {
            if (event.type === 'state')
              assertNoSecret(
                `state reason ${event.from}->${event.to}`,
                event.reason + JSON.stringify(event.status.lastError) + event.status.stderrTail,
                s,
              );
            if (event.type === 'probe')
              assertNoSecret('a probe event', JSON.stringify(event.result) + JSON.stringify(event.status.lastError), s);
            if (event.type === 'stderr') assertNoSecret('a stderr event', event.text, s);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  void it('not in describeTarget, nor in the redacted env and headers', () => {
    fc.assert(
      fc.property(
        fc.record({
          envName: fc.constantFrom(...SECRET_ENV_NAMES),
          env: secretValue,
          bearer: secretValue,
          cookie: secretValue,
          apiKey: secretValue,
          input: secretValue,
        }),
        (s) => {
          for (const server of configs(s)) {
            assertNoSecret(`describeTarget(${server.name})`, describeTarget(server), s);
            assertNoSecret(`redactEnv(${server.name})`, JSON.stringify(redactEnv(server.env, server.secretValues)), s);
            assertNoSecret(`redactHeaders(${server.name})`, JSON.stringify(redactHeaders(server.headers, server.secretValues)), s);
          }
          const [local] = configs(s);
          assert.equal(redactEnv(local.env, local.secretValues).PLAIN, 'visible', 'ordinary values stay readable');
        },
      ),
      { numRuns: 100 },
    );
  });

  void it('credentials in URLs and secret-named arguments are masked in describeTarget', () => {
    const text = describeTarget({
      transport: 'stdio',
      command: 'npx',
      args: ['server', '--api-key', 'k-1234567890', '--password=p-1234567890', 'https://user:pw-1234567890@host/x?token=t-1234567890'],
    });
    for (const secret of ['k-1234567890', 'p-1234567890', 'pw-1234567890', 't-1234567890']) assert.ok(!text.includes(secret), text);
    const url = describeTarget({ transport: 'http', url: 'https://tok-1234567890@host/mcp?api_key=q-1234567890&x=1' });
    for (const secret of ['tok-1234567890', 'q-1234567890']) assert.ok(!url.includes(secret), url);
    assert.ok(url.includes('x=1'));
  });
});
