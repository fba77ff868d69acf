// "Show Dashboard": a webview with a heartbeat bar and a latency chart per server, updated live, and restored after a
// window reload (a webview panel serializer; package.json activates on `onWebviewPanel:mcpHealth.dashboard`).
// Strict CSP: the script and style from media/ are inlined under a nonce (remote hosts such as code-server serve
// webview resources unreliably), nothing else may load, and the page gets data, never HTML.

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { MonitorRegistry } from '../core/monitorTypes';
import { coalesce } from './coalesce';
import { dashboardView } from '../present/dashboardModel';
import { serverElementId } from '../present/treeModel';
import { Commands } from '../present/commandIds';
import type { ViewContextOf } from '../present/serverView';

const UPDATE_COALESCE_MS = 250;
const VIEW_TYPE = 'mcpHealth.dashboard';

export class DashboardPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private panelDisposables: vscode.Disposable[] = [];
  private readonly postSoon = coalesce(() => this.post(), UPDATE_COALESCE_MS, { leading: true });
  private readonly unsubscribe: () => void;
  private disposed = false;
  private renderedServers: number | undefined;

  private readonly serializer: vscode.Disposable;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly registry: MonitorRegistry,
    private readonly contextOf: ViewContextOf = () => ({}),
  ) {
    this.unsubscribe = registry.onEvent((event) => {
      if (this.panel && event.type !== 'stderr') {
        this.postSoon.schedule();
      }
    });
    this.serializer = vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, {
      deserializeWebviewPanel: (panel) => this.adopt(panel),
    });
  }

  /** For the end-to-end suite: whether the panel is open and how many server cards its script last drew. */
  get state(): { readonly open: boolean; readonly renderedServers: number | undefined } {
    return { open: this.panel !== undefined, renderedServers: this.renderedServers };
  }

  async show(): Promise<void> {
    if (this.panel) {
      this.panel.reveal();
      return;
    }
    const page = await this.page();
    if (this.panel || this.disposed) {
      return;
    }
    const panel = vscode.window.createWebviewPanel(VIEW_TYPE, 'MCP Health', vscode.ViewColumn.Active, {
      enableScripts: true,
      // Everything the page needs is inlined: it loads no resource at all.
      localResourceRoots: [],
    });
    this.attach(panel, page);
  }

  /** A panel VS Code restored after a reload: it gets a fresh page and live data again. */
  private async adopt(panel: vscode.WebviewPanel): Promise<void> {
    if (this.panel || this.disposed) {
      panel.dispose();
      return;
    }
    panel.webview.options = { enableScripts: true, localResourceRoots: [] };
    this.attach(panel, await this.page());
  }

  private async page(): Promise<string> {
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const [script, style] = await Promise.all(
      ['dashboard.js', 'dashboard.css'].map(async (name) =>
        new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(media, name))),
      ),
    );
    return dashboardHtml(script ?? '', style ?? '', vscode.env.language, vscode.l10n.t('No MCP server is configured.'));
  }

  private attach(panel: vscode.WebviewPanel, html: string): void {
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'mcp-health.svg');
    panel.webview.html = html;
    this.panel = panel;
    this.panelDisposables = [
      panel.onDidDispose(() => this.closed()),
      panel.webview.onDidReceiveMessage((message: unknown) => this.onMessage(message)),
      panel.onDidChangeViewState(() => {
        if (panel.visible) this.postSoon.schedule();
      }),
    ];
  }

  private onMessage(message: unknown): void {
    if (typeof message !== 'object' || message === null) {
      return;
    }
    const { type, id } = message as { type?: unknown; id?: unknown };
    if (type === 'ready') {
      this.post();
    } else if (type === 'rendered' && typeof (message as { count?: unknown }).count === 'number') {
      this.renderedServers = (message as { count: number }).count;
    } else if (type === 'showLog') {
      void vscode.commands.executeCommand(Commands.showLog);
    } else if (typeof type === 'string' && typeof id === 'string' && this.registry.get(id) && Object.hasOwn(SERVER_COMMANDS, type)) {
      void vscode.commands.executeCommand(SERVER_COMMANDS[type as keyof typeof SERVER_COMMANDS], serverElementId(id));
    }
  }

  private post(): void {
    const view = dashboardView(this.registry.list(), this.contextOf);
    void this.panel?.webview.postMessage({
      type: 'servers',
      servers: view.servers,
      summary: view.summary,
      texts: view.texts,
      now: Date.now(),
    });
  }

  private closed(): void {
    for (const disposable of this.panelDisposables) {
      disposable.dispose();
    }
    this.panelDisposables = [];
    this.panel = undefined;
    this.renderedServers = undefined;
  }

  dispose(): void {
    this.disposed = true;
    this.unsubscribe();
    this.serializer.dispose();
    this.postSoon.dispose();
    this.panel?.dispose();
    this.closed();
  }
}

/** What the page may ask for about one server; anything else it posts is ignored. */
const SERVER_COMMANDS = { ping: Commands.pingNow, reconnect: Commands.reconnect, openConfig: Commands.openConfig } as const;

function dashboardHtml(script: string, style: string, language: string, emptyText: string): string {
  const nonce = randomBytes(16).toString('base64');
  return `<!DOCTYPE html>
<html lang="${escapeHtml(language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<style nonce="${nonce}">${style}</style>
<title>MCP Health</title>
</head>
<body>
<header><h1>MCP Health</h1><p id="summary" aria-live="polite"></p></header>
<main id="servers"></main>
<p id="empty" hidden>${escapeHtml(emptyText)}</p>
<script nonce="${nonce}">${script.replace(/<\/script/gi, '<\\/script')}</script>
</body>
</html>`;
}

/** A translation is text, never markup. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
