// The shape of the Servers tree: workspace folder (and "User") -> config file -> server -> detail rows.
// Elements are stable string ids so the tree keeps selection and expansion across refreshes.

import * as l10n from '@vscode/l10n';
import * as path from 'node:path';
import { isInside } from '../core/config/platformPaths';
import type { ConfigDiagnostic, ConfigFormat, ConfigScope, ServerStatus } from '../core/model';
import type { DetailRow } from './details';
import { serverElementId } from './serverElement';
import { serverView, type ServerView, type ViewContextOf } from './serverView';

export interface WorkspaceFolderRef {
  readonly path: string;
  readonly name: string;
}

interface NodeBase {
  readonly id: string;
  readonly parent: string | undefined;
  readonly children: readonly string[];
}

export interface GroupNode extends NodeBase {
  readonly kind: 'group';
  readonly label: string;
  readonly folder: string | undefined;
}
export interface FileNode extends NodeBase {
  readonly kind: 'file';
  readonly file: string;
  readonly label: string;
  readonly format: ConfigFormat | undefined;
  readonly errorCount: number;
}
/** The server as every view shows it, built from the same snapshot as the tree's shape. */
export interface ServerNode extends NodeBase {
  readonly kind: 'server';
  readonly serverId: string;
  readonly view: ServerView;
}
export interface DetailNode extends NodeBase {
  readonly kind: 'detail';
  readonly serverId: string;
  readonly row: DetailRow;
}
export interface ProblemNode extends NodeBase {
  readonly kind: 'problem';
  readonly diagnostic: ConfigDiagnostic;
}

export type TreeNode = GroupNode | FileNode | ServerNode | DetailNode | ProblemNode;

export interface TreeModel {
  readonly roots: readonly string[];
  get(id: string): TreeNode | undefined;
}

/** Client names, kept as their makers write them; only the one description in words is translated (when read). */
export const formatLabels: Readonly<Record<ConfigFormat, string>> = {
  vscode: 'VS Code',
  get 'vscode-settings'() {
    return l10n.t('VS Code settings');
  },
  'mcp-json': '.mcp.json',
  'claude-code': 'Claude Code',
  cursor: 'Cursor',
  'claude-desktop': 'Claude Desktop',
  windsurf: 'Windsurf',
  cline: 'Cline',
  roo: 'Roo Code',
  gemini: 'Gemini CLI',
  codex: 'Codex',
  continue: 'Continue',
  zed: 'Zed',
  kiro: 'Kiro',
  opencode: 'opencode',
  'copilot-cli': 'Copilot CLI',
  antigravity: 'Antigravity CLI',
};

/** A file row's description names its client, unless the label already says it (`.mcp.json` beside `.mcp.json`). */
export function fileDescription(label: string, format: ConfigFormat | undefined): string | undefined {
  const name = format ? formatLabels[format] : undefined;
  return name && !label.endsWith(name) ? name : undefined;
}

export { serverElementId, serverIdFromElement } from './serverElement';

const USER_GROUP = 'group:user';

export function buildTree(
  statuses: readonly ServerStatus[],
  diagnostics: readonly ConfigDiagnostic[],
  folders: readonly WorkspaceFolderRef[],
  displayPath: (file: string) => string,
  /** What the editor knows beside the monitor (the kept uptime, VS Code's chat.mcp settings), per server. */
  contextOf: ViewContextOf = () => ({}),
): TreeModel {
  const nodes = new Map<string, TreeNode>();
  const groups = new Map<
    string,
    {
      label: string;
      folder: string | undefined;
      order: number;
      files: Map<string, { format: ConfigFormat | undefined; servers: ServerStatus[]; problems: ConfigDiagnostic[] }>;
    }
  >();

  // A user-level file stays under User even when it lies inside an open folder (someone who opens their home folder);
  // only diagnostics, which carry no scope, are placed by where their file lies.
  const groupFor = (file: string, folder: string | undefined, scope: ConfigScope | undefined) => {
    const owner = scope === 'user' ? undefined : (folder ?? folders.find((f) => isInside(file, f.path, process.platform))?.path);
    const index = owner === undefined ? -1 : folders.findIndex((f) => f.path === owner);
    const key = index >= 0 ? `group:folder:${owner}` : USER_GROUP;
    let group = groups.get(key);
    if (!group) {
      group =
        index >= 0
          ? { label: folders[index]!.name, folder: owner, order: index, files: new Map() }
          : {
              label: l10n.t({ message: 'User', comment: ['tree group of the servers from user-level configuration files'] }),
              folder: undefined,
              order: Number.MAX_SAFE_INTEGER,
              files: new Map(),
            };
      groups.set(key, group);
    }
    return group;
  };
  const fileEntry = (file: string, folder: string | undefined, format: ConfigFormat | undefined, scope?: ConfigScope) => {
    const group = groupFor(file, folder, scope);
    let entry = group.files.get(file);
    if (!entry) {
      entry = { format, servers: [], problems: [] };
      group.files.set(file, entry);
    }
    return entry;
  };

  for (const status of statuses) {
    const { source } = status.config;
    fileEntry(source.file, source.folder, source.format, source.scope).servers.push(status);
  }
  // Problems tied to a server show on that server; the rest (a file that does not parse) show under the file.
  const serverNamesByFile = new Map<string, Set<string>>();
  for (const status of statuses) {
    const names = serverNamesByFile.get(status.config.source.file) ?? new Set<string>();
    names.add(status.config.name);
    serverNamesByFile.set(status.config.source.file, names);
  }
  for (const diagnostic of diagnostics) {
    const owned = diagnostic.serverName !== undefined && serverNamesByFile.get(diagnostic.file)?.has(diagnostic.serverName);
    if (!owned) {
      fileEntry(diagnostic.file, undefined, undefined).problems.push(diagnostic);
    }
  }

  const sortedGroups = [...groups.entries()].sort((a, b) => a[1].order - b[1].order);
  // With a single group the extra level only costs a click.
  const showGroups = sortedGroups.length > 1;
  const roots: string[] = [];
  for (const [groupId, group] of sortedGroups) {
    const fileIds: string[] = [];
    const files = [...group.files.entries()]
      .map(([file, entry]) => ({
        file,
        entry,
        label: group.folder ? path.relative(group.folder, file) || path.basename(file) : displayPath(file),
      }))
      .sort((a, b) => a.label.localeCompare(b.label));
    for (const { file, entry, label } of files) {
      const fileId = `file:${file}`;
      const children: string[] = [];
      const servers = [...entry.servers].sort(
        (a, b) => a.config.source.line - b.config.source.line || a.config.name.localeCompare(b.config.name),
      );
      for (const status of servers) {
        const serverId = serverElementId(status.config.id);
        const view = serverView(status, contextOf(status));
        const details = view.details.map((row) => {
          const detailId = `detail:${status.config.id}:${row.key}`;
          nodes.set(detailId, { kind: 'detail', id: detailId, parent: serverId, children: [], serverId: status.config.id, row });
          return detailId;
        });
        nodes.set(serverId, { kind: 'server', id: serverId, parent: fileId, children: details, serverId: status.config.id, view });
        children.push(serverId);
      }
      entry.problems.forEach((diagnostic, index) => {
        const problemId = `problem:${file}:${index}`;
        nodes.set(problemId, { kind: 'problem', id: problemId, parent: fileId, children: [], diagnostic });
        children.push(problemId);
      });
      const errorCount = entry.problems.filter((d) => d.severity === 'error').length;
      nodes.set(fileId, {
        kind: 'file',
        id: fileId,
        parent: showGroups ? groupId : undefined,
        children,
        file,
        label,
        format: entry.format ?? servers[0]?.config.source.format,
        errorCount,
      });
      fileIds.push(fileId);
    }
    if (showGroups) {
      nodes.set(groupId, { kind: 'group', id: groupId, parent: undefined, children: fileIds, label: group.label, folder: group.folder });
      roots.push(groupId);
    } else {
      roots.push(...fileIds);
    }
  }
  return { roots, get: (id) => nodes.get(id) };
}

/**
 * What to tell the tree after a rebuild: the elements of the servers whose status changed, or null for the whole tree
 * (the server list changed, or a changed server is not where it was). Group and file rows show nothing of a server's
 * state, so a state change repaints one server row and its details, not every row of every file.
 */
export function changedElements(serverIds: ReadonlySet<string> | 'all', before: TreeModel, after: TreeModel): string[] | null {
  if (serverIds === 'all') return null;
  const elements: string[] = [];
  for (const id of serverIds) {
    const element = serverElementId(id);
    const old = before.get(element);
    const now = after.get(element);
    if (!old || !now || old.parent !== now.parent) return null;
    elements.push(element);
  }
  return elements;
}
