// One server, every front end: the tree, the status bar tooltip, the dashboard, a notification and the CLI are rendered
// from the same status, and must tell the same "why" and next step. Then each decoration (VS Code won't start it,
// guarded, sandboxed, starting, gave up), applied once in serverView, shows the same in every view.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyFailure } from '../../../src/core/causes';
import type { ServerStatus } from '../../../src/core/model';
import { formatServerTable, serverReport } from '../../../src/cli/format';
import { dashboardServers } from '../../../src/present/dashboardModel';
import { NotificationPolicy } from '../../../src/present/notificationPolicy';
import { statusReportMarkdown } from '../../../src/present/report';
import { noticeText, serverDetailsText, serverView, serverViews, type ViewContextOf } from '../../../src/present/serverView';
import { summarize } from '../../../src/present/summary';
import { serverTooltipMarkdown, statusBarTooltipMarkdown } from '../../../src/present/tooltips';
import { buildTree, serverElementId } from '../../../src/present/treeModel';
import type { VsCodeStartBlock } from '../../../src/present/vscodeStart';
import { status } from './fixtures';

/** A status as the monitor hands it over: its cause decided by the core. */
function monitored(name: string, overrides: Parameters<typeof status>[1]): ServerStatus {
  const base = status(name, overrides);
  const cause = classifyFailure({
    state: base.state,
    error: base.lastError,
    transport: base.config.transport,
    command: base.config.command,
    name,
    nonConformant: base.nonConformant,
  });
  return { ...base, cause };
}

const BLOCK: VsCodeStartBlock = {
  setting: 'chat.mcp.access',
  summary: "VS Code won't start this server: chat.mcp.access is 'none'",
  nextStep: "Set chat.mcp.access to 'all' (if an organisation policy sets it, ask its administrator)",
};

/** What Markdown escaping added, taken off again: the words a reader sees. */
const unescape = (markdown: string) => markdown.replace(/\\(.)/g, '$1');
const displayPath = (file: string) => file;

interface Rendered {
  readonly treeDescription: string;
  readonly treeTooltip: string;
  readonly statusTooltip: string;
  readonly dashboard: string;
  readonly notification: string;
  readonly cli: string;
  readonly cliJson: string;
  readonly report: string;
  readonly details: string;
}

/** Every front end, from one status, the way each adapter builds it. */
function renderAll(server: ServerStatus, contextOf: ViewContextOf): Rendered {
  const tree = buildTree([server], [], [], displayPath, contextOf);
  const node = tree.get(serverElementId(server.config.id));
  assert.ok(node?.kind === 'server');
  const card = dashboardServers([server], contextOf)[0]!;
  const notice = new NotificationPolicy().decide(
    { id: server.config.id, from: 'up', to: server.state, reason: server.lastError?.message ?? '', status: server },
    'errors',
    0,
  );
  assert.ok(notice, 'a failure from up is announced');
  return {
    treeDescription: node.view.description,
    treeTooltip: unescape(serverTooltipMarkdown(node.view, displayPath)),
    statusTooltip: unescape(statusBarTooltipMarkdown(serverViews([server], contextOf), summarize([server]))),
    dashboard: [card.summary, card.why, card.lastError, card.nextStep, card.note].filter(Boolean).join('\n'),
    notification: noticeText(notice.message, serverView(server, contextOf(server))),
    cli: formatServerTable([serverReport(server)], { color: false }, '/', true),
    cliJson: JSON.stringify(serverReport(server)),
    report: unescape(statusReportMarkdown([server], 0, displayPath, contextOf)),
    details: serverDetailsText(server, contextOf(server)),
  };
}

void describe('one status, every front end', () => {
  const down = monitored('db', {
    state: 'down',
    lastError: { kind: 'timeout', message: 'no answer within 5000 ms' },
    nextRetryAt: Date.now() + 8_000,
  });
  const contextOf: ViewContextOf = () => ({ vscodeWontStart: BLOCK });
  const view = serverView(down, contextOf(down));
  const rendered = renderAll(down, contextOf);

  void it('has a cause and next step to tell', () => {
    assert.equal(view.cause?.id, 'timeout');
    assert.equal(view.cause?.summary, 'The server did not answer in time');
    assert.equal(view.nextStep, 'Check whether it is stuck or overloaded; raise the timeout if it is just slow');
  });

  void it('tells the same why and next step in the tree tooltip, the status bar tooltip, the dashboard, the notification, the CLI and the copied report and details', () => {
    const why = view.cause!.summary;
    const next = view.nextStep!;
    for (const [where, text] of Object.entries(rendered).filter(([where]) => where !== 'treeDescription')) {
      assert.ok(text.includes(why), `${where} says why: ${text}`);
      assert.ok(text.includes(next), `${where} gives the next step: ${text}`);
    }
    // The one sentence: the same words in the same order wherever both are shown together.
    for (const text of [
      rendered.treeTooltip,
      rendered.statusTooltip,
      rendered.notification,
      rendered.cli,
      rendered.report,
      rendered.details,
    ]) {
      assert.ok(text.includes(`${why}. Next: ${next}`), text);
    }
  });

  void it("says VS Code won't start it in every editor view, and the CLI (which has no VS Code) keeps its raw state", () => {
    assert.match(rendered.treeDescription, /VS Code won't start it/);
    for (const [where, text] of Object.entries({
      treeTooltip: rendered.treeTooltip,
      statusTooltip: rendered.statusTooltip,
      dashboard: rendered.dashboard,
      notification: rendered.notification,
      report: rendered.report,
      details: rendered.details,
    })) {
      assert.ok(text.includes(BLOCK.summary), `${where} carries the VS Code note: ${text}`);
    }
    assert.ok(rendered.dashboard.includes(BLOCK.nextStep) && rendered.treeTooltip.includes(BLOCK.nextStep));
    assert.equal(JSON.parse(rendered.cliJson).state, 'down');
    assert.doesNotMatch(rendered.cli, /VS Code/);
  });

  void it('shows the same state line in the tree, the status bar and the dashboard', () => {
    assert.ok(rendered.statusTooltip.includes(view.description));
    assert.ok(rendered.dashboard.startsWith(view.stateText));
    assert.equal(rendered.treeDescription, view.description);
  });
});

void describe('decorations, applied once', () => {
  void it("VS Code won't start it: in the state line, a detail row, the tooltip lines and the menu flags are unchanged", () => {
    const up = monitored('vs', { state: 'up' });
    const plain = serverView(up);
    const blocked = serverView(up, { vscodeWontStart: BLOCK });
    assert.deepEqual(plain.decorations, []);
    assert.deepEqual(blocked.decorations, ['vscode-wont-start']);
    assert.match(blocked.description, / · VS Code won't start it$/);
    assert.ok(blocked.details.some((row) => row.key === 'vscode' && row.warning === true));
    assert.ok(blocked.tooltipLines.includes(`${BLOCK.summary}. Next: ${BLOCK.nextStep}`));
    // MCP Health's own verdict is not changed by it.
    assert.equal(blocked.health, 'ok');
    assert.equal(blocked.contextValue, plain.contextValue);
    // A block on the status itself (set by an older caller) is honoured too, and the context can lift it.
    assert.deepEqual(serverView({ ...up, vscodeWontStart: BLOCK }).decorations, ['vscode-wont-start']);
    assert.deepEqual(serverView({ ...up, vscodeWontStart: BLOCK }, { vscodeWontStart: null }).decorations, []);
  });

  void it("guarded: the guard's figures, its shield, its menu flag, the guard's note on which connection acts, and the CLI's decoration", () => {
    const guarded = monitored('g', {
      state: 'up',
      config: { command: 'mcp-health', args: ['guard', '--', 'node', 'g.js'] },
      guarded: {
        guardName: 'g',
        running: true,
        guards: 1,
        guardPid: 41,
        upstreamPid: 42,
        restarts: 1,
        probeRttMs: 2,
        requests: 12,
        errors: 0,
      },
    });
    const view = serverView(guarded);
    assert.deepEqual(view.decorations, ['guarded']);
    assert.equal(view.icon.id, 'shield');
    assert.match(view.description, /^guarded · up · 2 ms · 1 restart · 12 requests$/);
    assert.ok(view.menuFlags.includes('guarded') && !view.menuFlags.includes('guardable'));
    assert.match(view.connectionsNote, /mcp-health guard \(pid 41\).*Upstream pid 42/);
    assert.equal(view.guardNote, view.connectionsNote);
    assert.ok(view.tooltipLines.includes(view.connectionsNote));
    assert.deepEqual(serverReport(guarded).decorations, ['guarded']);
    assert.match(formatServerTable([serverReport(guarded)], { color: false }, '/', true), /guarded: upstream pid 42/);
  });

  void it('sandboxed: said in the state line and the CLI table, but not once the sandbox is what is missing', () => {
    const sandbox = { filesystem: { allowWrite: [], denyRead: [], denyWrite: [] }, network: { allowedDomains: [], deniedDomains: [] } };
    const running = monitored('s', { state: 'up', config: { sandbox } });
    const view = serverView(running);
    assert.deepEqual(view.decorations, ['sandboxed']);
    assert.match(view.description, / · sandboxed/);
    assert.ok(!view.menuFlags.includes('guardable'), 'a sandboxed server is not offered Guard This Server');
    assert.match(formatServerTable([serverReport(running)], { color: false }, '/', true), /^s\s+up \(sandboxed\)/m);
    const missing = monitored('s', {
      state: 'sandbox-unavailable',
      config: { sandbox },
      lastError: { kind: 'sandbox', message: 'bubblewrap is not installed', code: 'SANDBOX_NO_BWRAP' },
    });
    const missingView = serverView(missing);
    assert.deepEqual(missingView.decorations, []);
    assert.equal(missingView.cause?.id, 'sandbox-unavailable');
    assert.match(missingView.nextStep ?? '', /^Install bubblewrap/);
    assert.equal(missingView.probeable, false);
    assert.doesNotMatch(formatServerTable([serverReport(missing)], { color: false }, '/', true), /\(sandboxed\)/);
  });

  void it('starting: the spinner, the seconds since the start and the latest stderr line, with no cause to tell yet', () => {
    const starting = monitored('npx-server', {
      state: 'starting',
      startup: { since: 10_000, budgetMs: 60_000 },
      stderrTail: 'npm warn exec\rnpm http fetch 50%\rnpm http fetch 90%\n',
    });
    const view = serverView(starting, { nowMs: 22_500 });
    assert.deepEqual(view.decorations, ['starting']);
    assert.equal(view.icon.id, 'loading~spin');
    assert.equal(view.description, 'starting · 12 s · npm http fetch 90%');
    assert.equal(view.cause, null);
    assert.equal(view.causeLine, null);
    assert.deepEqual(serverReport(starting).decorations, ['starting']);
  });

  void it('gave up: the crash-loop rule and the last exit in the state line, the cause and next step beside it', () => {
    const gaveUp = monitored('loop', {
      state: 'gave-up',
      gaveUp: { crashes: 5, windowMs: 180_000 },
      lastError: { kind: 'exited', message: 'exited', exitCode: 1 },
      restarts: 5,
    });
    const view = serverView(gaveUp);
    assert.deepEqual(view.decorations, ['gave-up']);
    assert.equal(view.description, 'gave up after 5 crashes in 3 min · exited (code 1)');
    assert.equal(view.icon.id, 'debug-stop');
    assert.equal(view.cause?.id, 'crashed');
    assert.equal(
      view.causeLine,
      "The server exited with code 1. Next: Look at the server's stderr in the log; it is restarted with backoff",
    );
    const rendered = renderAll(gaveUp, () => ({}));
    for (const text of [rendered.treeTooltip, rendered.statusTooltip, rendered.notification, rendered.cli])
      assert.ok(text.includes(view.causeLine!), text);
    assert.match(rendered.notification, /keeps crashing/);
  });
});

void describe('menu flags and actions', () => {
  void it('gives the context values the menus in package.json match, and the actions a tooltip row offers', () => {
    const cases: Array<[ServerStatus, string, string[]]> = [
      [status('a'), 'server monitored vscodeSource up guardable', ['mcpHealth.pingNow', 'mcpHealth.reconnect']],
      [status('b', { state: 'needs-consent' }), 'server untrusted needsConsent vscodeSource needs-consent guardable', ['mcpHealth.allow']],
      [status('c', { state: 'disabled' }), 'server disabled vscodeSource disabled guardable', []],
      [
        status('d', { state: 'needs-input' }),
        'server monitored needsInput vscodeSource needs-input guardable',
        ['mcpHealth.pingNow', 'mcpHealth.reconnect'],
      ],
      [
        status('e', {
          watchedElsewhere: 'another window',
          config: { transport: 'http', url: 'https://x.test/mcp', source: { format: 'cursor' } },
        }),
        'server monitored elsewhere up',
        ['mcpHealth.pingNow', 'mcpHealth.reconnect'],
      ],
    ];
    for (const [server, contextValue, actions] of cases) {
      const view = serverView(server);
      assert.equal(view.contextValue, contextValue);
      assert.deepEqual(
        view.actions.map((action) => action.command),
        actions,
      );
    }
    assert.match(serverView(cases[4]![0]).connectionsNote, /connection in another window/);
  });
});

void describe('the tree builds from one snapshot', () => {
  void it("carries each server's view, built from the same list and context as its shape", () => {
    const servers = [monitored('a', { state: 'up' }), monitored('b', { state: 'down', lastError: { kind: 'timeout', message: 'slow' } })];
    const seen: string[] = [];
    const tree = buildTree(servers, [], [], displayPath, (server) => {
      seen.push(server.config.name);
      return { uptime: server.config.name === 'a' ? { hour: 100, day: 100, week: 100 } : null };
    });
    assert.deepEqual(seen, ['a', 'b'], 'the context is asked once per server');
    const a = tree.get(serverElementId(servers[0]!.config.id));
    const b = tree.get(serverElementId(servers[1]!.config.id));
    assert.ok(a?.kind === 'server' && b?.kind === 'server');
    assert.match(a.view.description, /100 % \(24 h\)$/);
    assert.equal(b.view.cause?.id, 'timeout');
    // The detail children are the view's own rows, in order.
    assert.deepEqual(
      a.children.map((id) => {
        const row = tree.get(id);
        return row?.kind === 'detail' ? row.row.key : '';
      }),
      a.view.details.map((row) => row.key),
    );
  });
});
