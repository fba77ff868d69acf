// Every view built from a monitor's status must be free of secrets: rows, copied details, the report, the dashboard
// data, the tree and the Markdown the tooltips are assembled from. The server text goes through a real monitor (the
// one boundary where it is redacted); the views add nothing but the config, shown through describeTarget.

import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerStatus } from '../../../src/core/model';
import { withConfiguredSecrets } from '../../../src/core/config/configuredSecrets';
import { dashboardServers } from '../../../src/present/dashboardModel';
import { ConnectError } from '../../../src/core/connection';
import { detailRows, detailsText } from '../../../src/present/details';
import { statusReportMarkdown } from '../../../src/present/report';
import { escapeMarkdown } from '../../../src/present/markdown';
import { noticeText, serverDetailsText, serverView } from '../../../src/present/serverView';
import { summarize } from '../../../src/present/summary';
import { serverTooltipMarkdown, statusBarTooltipMarkdown } from '../../../src/present/tooltips';
import { buildTree, type TreeModel } from '../../../src/present/treeModel';
import { harness } from '../core/monitor/harness';
import { probes, status, WORKSPACE } from './fixtures';

const ENV_SECRET = 'ghp_EnvSecret0001';
const INPUT_SECRET = 'p@ss w0rd!Input';
const HEADER_SECRET = 'hdr-Bearer-Secret-0002';
const ARG_SECRET = 'sk-live-ArgSecret0003';
const INLINE_ARG_SECRET = 'tok-Inline0004';
const URL_PASSWORD = 'UrlPass0005';
const QUERY_SECRET = 'QueryTok0006';
// Not in secretValues and never echoed: they can only leak if a view renders the env or headers themselves.
const UNLISTED_ENV_SECRET = 'unlisted-EnvOnly0007';
const UNLISTED_HEADER_SECRET = 'unlisted-HdrOnly0008';

const allSecrets = [
  ENV_SECRET,
  INPUT_SECRET,
  HEADER_SECRET,
  ARG_SECRET,
  INLINE_ARG_SECRET,
  URL_PASSWORD,
  QUERY_SECRET,
  UNLISTED_ENV_SECRET,
  UNLISTED_HEADER_SECRET,
];
// A server echoes its own secrets into stderr and error messages, sometimes URL-encoded.
const echoed = `token=${ENV_SECRET} input=${INPUT_SECRET} encoded=${encodeURIComponent(INPUT_SECRET)}`;

function stdioWithSecrets(): ServerStatus {
  return status('github', {
    state: 'down',
    config: {
      command: 'npx',
      args: [
        '-y',
        'server-github',
        '--api-key',
        ARG_SECRET,
        `--token=${INLINE_ARG_SECRET}`,
        `https://bot:${URL_PASSWORD}@example.test/x?access_token=${QUERY_SECRET}`,
      ],
      env: { GITHUB_TOKEN: ENV_SECRET, PASSWORD: INPUT_SECRET, SERVICE_KEY: UNLISTED_ENV_SECRET, PORT: '3000' },
      // Discovery records here every value it judged secret (secret-named env, args, URL credentials, inputs).
      secretValues: [ENV_SECRET, INPUT_SECRET, ARG_SECRET, INLINE_ARG_SECRET, URL_PASSWORD, QUERY_SECRET],
    },
    serverInfo: { name: 'gh', version: `1.0 (${ENV_SECRET})` },
    lastError: { kind: 'exited', message: `crashed with ${echoed}\nsecond line ${ARG_SECRET}`, exitCode: 1, stderrTail: echoed },
    stderrTail: `starting\n${echoed}\nfatal: ${INPUT_SECRET}\n`,
    consecutiveFailures: 3,
    restarts: 2,
    flapping: true,
    lastProbeAt: 10_000,
    stats: {
      samples: 3,
      samplesOk: 1,
      p50Ms: 5,
      p95Ms: 9,
      uptimePercent: 33.3,
      recent: probes(['ok', 'closed', 'timeout']),
      totals: { sent: 3, ok: 1, failed: 2 },
    },
  });
}

function httpWithSecrets(): ServerStatus {
  return status('remote', {
    state: 'auth-required',
    config: {
      transport: 'http',
      command: undefined,
      args: undefined,
      url: `https://user:${URL_PASSWORD}@api.example.test/mcp?api_key=${QUERY_SECRET}&region=eu`,
      headers: { Authorization: `Bearer ${HEADER_SECRET}`, 'X-Session': UNLISTED_HEADER_SECRET, Accept: 'application/json' },
      secretValues: [HEADER_SECRET, URL_PASSWORD, QUERY_SECRET],
    },
    lastError: {
      kind: 'auth',
      message: `401 for Authorization: Bearer ${HEADER_SECRET} at ${encodeURIComponent(URL_PASSWORD)}`,
      httpStatus: 401,
    },
    stderrTail: `rejected ${QUERY_SECRET}`,
  });
}

function assertNoSecret(text: string, where: string): void {
  for (const secret of allSecrets) {
    assert.ok(!text.includes(secret), `${where} leaks ${secret}:\n${text}`);
    assert.ok(!text.includes(encodeURIComponent(secret)), `${where} leaks the URL-encoded ${secret}:\n${text}`);
    assert.ok(!text.includes(escapeMarkdown(secret)), `${where} leaks the Markdown-escaped ${secret}:\n${text}`);
  }
}

function treeText(tree: TreeModel): string {
  const seen: unknown[] = [];
  const visit = (id: string) => {
    const node = tree.get(id);
    seen.push(node);
    node?.children.forEach(visit);
  };
  tree.roots.forEach(visit);
  return JSON.stringify(seen);
}

/**
 * The server's own words (serverInfo, stderr, the error it died with) said through a real monitor; the status keeps
 * the monitor's redacted text and the rest of the hand-built fixture (statistics, restarts).
 */
async function throughMonitor(raw: ServerStatus): Promise<ServerStatus> {
  const h = harness();
  const error = raw.lastError;
  if (raw.config.transport === 'stdio') {
    h.connector.queue(raw.config.id, raw.serverInfo ? { serverInfo: raw.serverInfo } : {});
  } else if (error) {
    h.connector.queue(raw.config.id, {
      fail: new ConnectError(error.kind, error.message, {
        ...(error.httpStatus ? { httpStatus: error.httpStatus } : {}),
        stderrTail: raw.stderrTail,
      }),
    });
  }
  h.registry.setServers([raw.config], []);
  const pinged = h.registry.pingNow(raw.config.id);
  await h.clock.advance(1_000);
  await pinged;
  if (raw.config.transport === 'stdio') {
    const connection = h.connector.latest(raw.config.id);
    connection.writeStderr(raw.stderrTail);
    // A real close reports the process's stderr tail: everything it wrote.
    if (error)
      connection.die({
        kind: error.kind,
        message: error.message,
        exitCode: error.exitCode ?? null,
        signal: null,
        stderrTail: raw.stderrTail,
      });
  }
  const said = h.registry.get(raw.config.id);
  await h.registry.dispose();
  assert.ok(said, `${raw.config.name} is listed`);
  assert.equal(said.state, raw.state, `${raw.config.name} reached the fixture's state through the monitor`);
  return { ...raw, serverInfo: said.serverInfo, lastError: said.lastError, stderrTail: said.stderrTail };
}

/**
 * Both tooltips as the editor shows them (src/present/tooltips.ts), with the Markdown escapes taken off again so an
 * escaped secret (`ghp\_…`) still counts as leaked, and the notification text for the same server.
 */
function tooltipMarkdown(target: ServerStatus): string {
  const view = serverView(target);
  const markdown = [serverTooltipMarkdown(view, (file) => file), statusBarTooltipMarkdown([view], summarize([target]))].join('\n');
  return [markdown, markdown.replace(/\\(.)/g, '$1'), noticeText('down', view), serverDetailsText(target)].join('\n');
}

void describe('secrets in every view', () => {
  const raw = [stdioWithSecrets(), httpWithSecrets()];
  const statuses: ServerStatus[] = [];

  before(async () => {
    statuses.push(...(await Promise.all(raw.map(throughMonitor))));
  });

  void it('the fixtures really carry every secret, and the monitor kept the server text', () => {
    assert.ok(allSecrets.every((secret) => JSON.stringify(raw).includes(secret)));
    assert.match(statuses[0]?.stderrTail ?? '', /fatal: \*\*\*/);
    assert.match(statuses[1]?.lastError?.message ?? '', /^401 for Authorization: Bearer \*\*\* at \*\*\*$/);
  });

  for (const [
    index,
    {
      config: { name },
    },
  ] of raw.entries()) {
    const target = () => statuses[index]!;
    void it(`detail rows of ${name} mask every secret, in value and full text`, () => {
      const rows = detailRows(target());
      assert.ok(rows.some((row) => row.key === 'lastError'));
      assertNoSecret(JSON.stringify(rows), 'detail rows');
    });

    void it(`copied details and tooltip Markdown of ${name} mask every secret`, () => {
      assertNoSecret(detailsText(target()), 'detailsText');
      assertNoSecret(tooltipMarkdown(target()), 'tooltip Markdown');
    });
  }

  void it('keeps what a reader needs: the masked target still names the command, host and auth scheme', () => {
    const [stdio, http] = statuses.map((target) => detailRows(target).find((row) => row.key === 'transport')?.value ?? '');
    assert.match(stdio, /^npx -y server-github --api-key \*\*\* --token=\*\*\* /);
    assert.match(http, /api\.example\.test\/mcp\?api_key=\*\*\*&region=eu/);
    assert.ok(
      detailRows(statuses[1]!)
        .find((row) => row.key === 'lastError')
        ?.value.includes('Bearer ***'),
    );
  });

  void it('the Markdown status report masks every secret', () => {
    const report = statusReportMarkdown(statuses, Date.UTC(2024, 0, 2, 12), (file) => file);
    assert.ok(report.includes('| github |'));
    assertNoSecret(report, 'status report');
  });

  void it('the dashboard data and the tree mask every secret', () => {
    assertNoSecret(JSON.stringify(dashboardServers(statuses)), 'dashboard');
    assertNoSecret(treeText(buildTree(statuses, [], [{ path: WORKSPACE, name: 'app' }], (file) => file)), 'tree');
  });
});

void describe('configured values under names no filter knows, in every view', () => {
  const PAT = 'ghp_anyName0PAT00000000000001';
  const DB_URL = 'postgres://app:DbPw0AnyName02@db.example.test/app';
  const HEADER = 'tenant-AnyName-0003';

  void it('details, tooltip, report, dashboard and tree mask them once discovery has applied the rule', async () => {
    const base = status('anyname', {
      state: 'down',
      config: { env: { GITHUB_PAT: PAT, DATABASE_URL: DB_URL, LOG_LEVEL: 'debug' }, headers: { 'X-Tenant': HEADER } },
      lastError: {
        kind: 'exited',
        message: `env GITHUB_PAT=${PAT} DATABASE_URL=${DB_URL}`,
        exitCode: 3,
        stderrTail: `pw=DbPw0AnyName02 tenant=${encodeURIComponent(HEADER)}`,
      },
      stderrTail: `GITHUB_PAT=${PAT}\nDATABASE_URL=${DB_URL}\nLOG_LEVEL=debug\n`,
    });
    const target = await throughMonitor({ ...base, config: await withConfiguredSecrets(base.config) });
    const views = [
      JSON.stringify(detailRows(target)),
      detailsText(target),
      tooltipMarkdown(target),
      statusReportMarkdown([target], Date.UTC(2024, 0, 2, 12), (file) => file),
      JSON.stringify(dashboardServers([target])),
      treeText(buildTree([target], [], [{ path: WORKSPACE, name: 'app' }], (file) => file)),
    ];
    for (const view of views) {
      for (const secret of [PAT, DB_URL, 'DbPw0AnyName02', HEADER]) {
        assert.ok(!view.includes(secret) && !view.includes(encodeURIComponent(secret)), `leaks ${secret}:\n${view}`);
      }
    }
    assert.ok(detailsText(target).includes('LOG_LEVEL=debug'), 'a plain word is no secret');
  });
});
