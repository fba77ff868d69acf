// How one server reads to a person, built once for every front end: the tree, the status bar tooltip, the dashboard,
// notifications, the CLI table. Everything a view shows about a server comes from here (label, health, icon,
// description, detail rows, tooltip lines, menu flags, actions, why it is not up and the next step), so they cannot
// tell different stories. Decorations (VS Code won't start it, guarded, sandboxed, starting, gave up) are decided here
// once. Pure: what the editor knows beside the monitor (VS Code's chat.mcp settings, the kept uptime) comes in as plain
// data in the context; adapters only turn the result into their own types.

import * as l10n from '@vscode/l10n';
import type { UptimeWindows } from '../core/history';
import { classifyFailure, type FailureCause } from '../core/causes';
import type { ServerState, ServerStatus } from '../core/model';
import { Commands, type CommandId } from './commandIds';
import { causeText, type CauseText } from './causeText';
import { detailRows, detailsText, type DetailRow } from './details';
import { isGuardable, isGuarded } from './guardState';
import {
  describeState,
  errorCount,
  healthOf,
  isMonitored,
  requestCount,
  restartCount,
  stateIcon,
  stateLabels,
  type Health,
  type StateIcon,
} from './states';
import { serverElementId } from './serverElement';
import { uptimeBrief, uptimeRow } from './uptime';
import type { VsCodeStartBlock } from './vscodeStart';
import { isVsCodeSource } from './vscodeMcpId';

/** What a front end knows about a server beside its status, as plain data. */
export interface ServerViewContext {
  /** Wall clock, ms: dates countdowns (retry, starting, certificate). */
  readonly nowMs?: number;
  /** VS Code's own chat.mcp settings keep VS Code from starting this server (the editor only). */
  readonly vscodeWontStart?: VsCodeStartBlock | null;
  /** Uptime over 1 h / 24 h / 7 d from the kept history (the editor only). */
  readonly uptime?: UptimeWindows | null;
}

/** The context of each server, for a view that shows many. */
export type ViewContextOf = (status: ServerStatus) => ServerViewContext;

/** What is said on top of the monitor's verdict, the same in every view. */
export type Decoration = 'vscode-wont-start' | 'guarded' | 'sandboxed' | 'starting' | 'gave-up';

export interface ServerAction {
  readonly command: CommandId;
  readonly title: string;
  /** A codicon id. */
  readonly icon: string;
}

export interface ServerView {
  readonly id: string;
  /** The tree element and command-link argument that names this server. */
  readonly element: string;
  readonly label: string;
  /** The raw state id: for JSON, metrics and menus; never translated. */
  readonly state: ServerState;
  readonly stateLabel: string;
  readonly health: Health;
  readonly icon: StateIcon;
  /** The line beside the name, decorations included: `down · timed out · retrying in 8 s · VS Code won't start it`. */
  readonly description: string;
  /** The description without the kept uptime, for a view that shows that apart (the dashboard). */
  readonly stateText: string;
  readonly decorations: readonly Decoration[];
  /** Why it is not up, in words the user can act on; null while nothing needs explaining. */
  readonly cause: CauseText | null;
  readonly nextStep: string | null;
  /** `<why>. Next: <next step>`: the one sentence every view shows for a cause. */
  readonly causeLine: string | null;
  /** The last error as the server or the OS gave it (redacted by the monitor), while not up. */
  readonly lastError: string | null;
  /** VS Code will not start it, and the setting to change: said in every editor view. */
  readonly vscodeNote: string | null;
  /** The guard's own figures, for a guarded entry. */
  readonly guardNote: string | null;
  readonly details: readonly DetailRow[];
  /** Plain lines for a tooltip, in order: state, details, cause, the VS Code note, the source, which connection acts. */
  readonly tooltipLines: readonly string[];
  /** The menu flags the tree's context value is made of: `server monitored down guardable`. */
  readonly menuFlags: readonly string[];
  readonly contextValue: string;
  /** What can be done to it from a tooltip or a card, in order. */
  readonly actions: readonly ServerAction[];
  /** Disabled, untrusted, waiting for consent or input, misconfigured or unsandboxable: nothing to probe now. */
  readonly probeable: boolean;
  readonly connectionsNote: string;
  readonly accessibilityLabel: string;
  /** Where the entry is declared. */
  readonly source: { readonly file: string; readonly line: number };
}

const UNPROBEABLE: ReadonlySet<ServerState> = new Set<ServerState>([
  'disabled',
  'untrusted',
  'needs-consent',
  'config-error',
  'needs-input',
  'sandbox-unavailable',
]);

/**
 * The cause the monitor decided, or (for a status from elsewhere that carries none) the same rule applied here. The
 * core's English words: what the CLI's --json carries, untranslated, beside the raw state id.
 */
export function failureCauseOf(status: ServerStatus): FailureCause | null {
  if (status.state === 'up') return null;
  if (status.cause !== undefined) return status.cause;
  const { config } = status;
  return classifyFailure({
    state: status.state,
    error: status.lastError,
    transport: config.transport,
    command: config.command,
    name: config.name,
    nonConformant: status.nonConformant,
  });
}

export function serverView(input: ServerStatus, context: ServerViewContext = {}): ServerView {
  const nowMs = context.nowMs ?? Date.now();
  const block = context.vscodeWontStart !== undefined ? context.vscodeWontStart : (input.vscodeWontStart ?? null);
  // The rows and the state line read the block from the status: decorate it once, here.
  const decorated: ServerStatus = block
    ? { ...input, vscodeWontStart: block }
    : input.vscodeWontStart
      ? { ...input, vscodeWontStart: null }
      : input;
  const failure = failureCauseOf(decorated);
  const cause = failure ? causeText(failure, decorated) : null;
  // The rows that quote the cause (a missing sandbox) quote it translated, as every other view does.
  const status: ServerStatus =
    failure && cause ? { ...decorated, cause: { ...failure, summary: cause.summary, nextStep: cause.nextStep } } : decorated;
  const decorations = decorationsOf(status);
  const causeLine = cause ? l10n.t('{0}. Next: {1}', cause.summary, cause.nextStep) : null;
  const vscodeNote = block ? l10n.t('{0}. Next: {1}', block.summary, block.nextStep) : null;
  const kept = uptimeRow(context.uptime);
  const details = [...detailRows(status, nowMs), ...(kept ? [kept] : [])];
  const stateText = describeState(status, nowMs);
  const brief = uptimeBrief(context.uptime);
  const menuFlags = menuFlagsOf(status);
  const connectionsNote = connectionsNoteOf(status);
  const lastError = status.lastError && status.state !== 'up' ? status.lastError.message : null;
  const label = status.config.name;
  return {
    id: status.config.id,
    element: serverElementId(status.config.id),
    label,
    state: status.state,
    stateLabel: stateLabels[status.state],
    health: healthOf(status),
    icon: stateIcon(status),
    description: brief ? `${stateText} · ${brief}` : stateText,
    stateText,
    decorations,
    cause,
    nextStep: cause?.nextStep ?? null,
    causeLine,
    lastError,
    vscodeNote,
    guardNote: status.guarded ? guardNoteOf(status.guarded) : null,
    details,
    tooltipLines: [
      `${label}: ${stateText}`,
      ...details.filter((row) => row.key !== 'stderr' && row.key !== 'vscode').map((row) => `${row.label}: ${row.value}`),
      ...(causeLine ? [causeLine] : []),
      ...(vscodeNote ? [vscodeNote] : []),
      `${status.config.source.file}:${status.config.source.line}`,
      connectionsNote,
    ],
    menuFlags,
    contextValue: menuFlags.join(' '),
    actions: actionsOf(status),
    probeable: !UNPROBEABLE.has(status.state),
    connectionsNote,
    accessibilityLabel: `${label}, ${stateText}`,
    source: { file: status.config.source.file, line: status.config.source.line },
  };
}

export function serverViews(statuses: readonly ServerStatus[], contextOf: ViewContextOf = () => ({})): ServerView[] {
  return statuses.map((status) => serverView(status, contextOf(status)));
}

function decorationsOf(status: ServerStatus): Decoration[] {
  const decorations: Decoration[] = [];
  if (status.vscodeWontStart) decorations.push('vscode-wont-start');
  if (status.guarded) decorations.push('guarded');
  if (status.config.sandbox && status.state !== 'sandbox-unavailable') decorations.push('sandboxed');
  if (status.state === 'starting') decorations.push('starting');
  if (status.state === 'gave-up') decorations.push('gave-up');
  return decorations;
}

/** The flags the menus match: `server monitored up`, `server disabled`, `server untrusted needsConsent`. */
function menuFlagsOf(status: ServerStatus): string[] {
  const flags = ['server', status.state === 'disabled' ? 'disabled' : isMonitored(status) ? 'monitored' : 'untrusted'];
  if (status.state === 'needs-input') flags.push('needsInput');
  if (status.state === 'needs-consent') flags.push('needsConsent');
  if (isVsCodeSource(status.config)) flags.push('vscodeSource');
  if (status.watchedElsewhere !== undefined) flags.push('elsewhere');
  flags.push(status.state);
  // Which of "Guard This Server" / "Unguard" the item's menu offers.
  if (isGuarded(status)) flags.push('guarded');
  else if (isGuardable(status)) flags.push('guardable');
  return flags;
}

function actionsOf(status: ServerStatus): ServerAction[] {
  if (status.state === 'needs-consent') return [{ command: Commands.allow, title: l10n.t('Allow this server to start'), icon: 'check' }];
  if (status.state === 'disabled' || status.state === 'untrusted') return [];
  return [
    { command: Commands.pingNow, title: l10n.t('Ping now'), icon: 'pulse' },
    { command: Commands.reconnect, title: l10n.t('Reconnect'), icon: 'debug-restart' },
  ];
}

function guardNoteOf(guarded: NonNullable<ServerStatus['guarded']>): string {
  return guarded.running
    ? l10n.t(
        "Guarded: these figures come from mcp-health guard (pid {0}) inside your client's own connection to this server; MCP Health never starts a copy of it. Upstream pid {1}, {2}, {3} ({4}).",
        guarded.guardPid ?? '-',
        guarded.upstreamPid ?? '-',
        restartCount(guarded.restarts),
        requestCount(guarded.requests),
        errorCount(guarded.errors),
      )
    : l10n.t(
        'Guarded: run by mcp-health guard inside your client; no guard for it is running (its client has not started it). MCP Health never starts a copy of it.',
      );
}

/** Which connection each action acts on: ours (monitoring), another window's, or VS Code's own (chat). */
function connectionsNoteOf(status: ServerStatus): string {
  if (status.guarded) return guardNoteOf(status.guarded);
  const ours =
    status.watchedElsewhere !== undefined
      ? l10n.t(
          "Ping Now and Reconnect act on MCP Health's connection in {0}, which runs this user-level server for every window.",
          status.watchedElsewhere,
        )
      : l10n.t("Ping Now and Reconnect act on MCP Health's own monitoring connection.");
  const theirs = isVsCodeSource(status.config)
    ? l10n.t("Restart in VS Code and Show VS Code Output act on VS Code's own connection to this server (the one chat uses).")
    : undefined;
  return theirs ? `${ours} ${theirs}` : ours;
}

/** A failure notification's text: the monitor's sentence, then the same why and next step as the views. */
export function noticeText(message: string, view: ServerView): string {
  // A reminder already names the cause: only its next step is added then.
  const cause = view.cause && message.includes(view.cause.summary) ? l10n.t('Next: {0}', view.cause.nextStep) : view.causeLine;
  return [message, cause, view.vscodeNote]
    .filter((part): part is string => Boolean(part))
    .reduce((text, part) => `${text}${/[.!?]$/.test(text) ? '' : '.'} ${part}`);
}

/** "Copy Details": the rows, then the same why and next step as the tree (VS Code's note is one of the rows). */
export function serverDetailsText(status: ServerStatus, context: ServerViewContext = {}): string {
  const view = serverView(status, context);
  const block = context.vscodeWontStart !== undefined ? context.vscodeWontStart : (status.vscodeWontStart ?? null);
  const text = detailsText({ ...status, vscodeWontStart: block });
  return view.causeLine ? `${text}\n${l10n.t('why')}: ${view.causeLine}` : text;
}
