// "Show Dashboard": a webview with a heartbeat bar and a latency chart per server, updated live.
// Strict CSP: the script and style from media/ are inlined under a nonce (remote hosts such as code-server serve
// webview resources unreliably), nothing else may load, and the page gets data, never HTML.

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { MonitorRegistry } from '../core/monitorTypes';
import { coalesce } from './coalesce';
import { dashboardView } from './present/dashboardModel';
import { serverElementId } from './present/treeModel';

const UPDATE_COALESCE_MS = 250;

export class DashboardPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private panelDisposables: vscode.Disposable[] = [];
  private readonly postSoon = coalesce(() => this.post(), UPDATE_COALESCE_MS, { leading: true });
  private readonly unsubscribe: () => void;
  private disposed = false;
  private renderedServers: number | undefined;

  constructor(private readonly extensionUri: vscode.Uri, private readonly registry: MonitorRegistry) {
    this.unsubscribe = registry.onEvent((event) => {
      if (this.panel && event.type !== 'stderr') {
        this.postSoon.schedule();
      }
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
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const [script, style] = await Promise.all(['dashboard.js', 'dashboard.css'].map(async (name) =>
      new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(media, name)))));
    if (this.panel || this.disposed) {
      return;
    }
    const panel = vscode.window.createWebviewPanel('mcpHealth.dashboard', 'MCP Health', vscode.ViewColumn.Active, {
      enableScripts: true,
      // Everything the page needs is inlined: it loads no resource at all.
      localResourceRoots: [],
    });
    panel.iconPath = vscode.Uri.joinPath(media, 'mcp-health.svg');
    panel.webview.html = dashboardHtml(script ?? '', style ?? '');
    this.panel = panel;
    this.panelDisposables = [
      panel.onDidDispose(() => this.closed()),
      panel.webview.onDidReceiveMessage((message: unknown) => this.onMessage(message)),
      panel.onDidChangeViewState(() => { if (panel.visible) this.postSoon.schedule(); }),
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
    } else if ((type === 'ping' || type === 'reconnect') && typeof id === 'string' && this.registry.get(id)) {
      void vscode.commands.executeCommand(type === 'ping' ? 'mcpHealth.pingNow' : 'mcpHealth.reconnect', serverElementId(id));
    }
  }

  private post(): void {
    const view = dashboardView(this.registry.list());
    void this.panel?.webview.postMessage({ type: 'servers', servers: view.servers, summary: view.summary, now: Date.now() });
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
    this.postSoon.dispose();
    this.panel?.dispose();
    this.closed();
  }
}

function dashboardHtml(script: string, style: string): string {
  const nonce = randomBytes(16).toString('base64');
  return `<!DOCTYPE html>
<html lang="en">
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
<p id="empty" hidden>No MCP server is configured.</p>
<script nonce="${nonce}">${script.replace(/<\/script/gi, '<\\/script')}</script>
</body>
</html>`;
}
