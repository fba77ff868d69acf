// The one object that owns the extension: the registry, the views, the watchers and every disposable.
// Views subscribe to the registry and never call each other; this object only wires them and runs discovery.

import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { systemClock } from '../core/clock';
import { candidateFiles, discover } from '../core/config/discover';
import type { DiscoveryOptions, InputDefinition } from '../core/config/types';
import { createRegistry, type TrustAwareRegistry } from '../core/monitor';
import type { MonitorRegistry } from '../core/monitorTypes';
import { redactText } from '../core/redact';
import { createNodeConnector } from '../mcp';
import { createNodeFileSystem } from '../mcp/nodeFileSystem';
import { registerCommands } from './commands';
import { DashboardPanel } from './dashboard';
import { ConfigDiagnostics } from './diagnostics';
import { InputStore } from './inputs';
import { createPingLog, type PingLog } from './log';
import { isExcluded } from './present/settingsModel';
import { SettingsStore, type SettingsChangeEvent } from './settings';
import { HealthStatusBar } from './statusBar';
import { StateNotifier } from './notifications';
import { ToolDriftWatcher } from './toolDrift';
import { ServerTreeProvider, workspaceFolderRefs } from './treeView';
import { ConfigWatchers } from './watchers';
import type { McpHealthApi } from './api';

const DISABLED_KEY = 'mcpHealth.disabledServers';
const RESTRICTED_MESSAGE = 'Restricted Mode: servers from workspace files are listed but not started. Trust this workspace to monitor them.';

export class McpHealth {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly log: PingLog;
  private readonly settings: SettingsStore;
  readonly registry: TrustAwareRegistry & MonitorRegistry;
  private readonly tree: ServerTreeProvider;
  private readonly treeView: vscode.TreeView<string>;
  private readonly statusBar: HealthStatusBar;
  private readonly diagnostics: ConfigDiagnostics;
  private readonly watchers: ConfigWatchers;
  private readonly inputs: InputStore;
  private readonly dashboard: DashboardPanel;
  private readonly notifier: StateNotifier;
  private inputDefinitions: readonly InputDefinition[] = [];
  private knownSecrets: readonly string[] = [];
  private discovering: Promise<void> | undefined;
  private discoverAgain = false;
  private disposing: Promise<void> | undefined;
  private readonly discoveredEmitter = new vscode.EventEmitter<void>();
  private readonly fileSystem = createNodeFileSystem();

  constructor(private readonly context: vscode.ExtensionContext) {
    // Logging first, so everything after it can report trouble.
    this.log = this.own(createPingLog());
    this.settings = this.own(new SettingsStore());
    this.registry = createRegistry({
      connector: createNodeConnector({ logger: this.log.logger, clientInfo: { name: 'mcp-health-vscode', version: String(context.extension.packageJSON.version ?? '0.0.0') } }),
      clock: systemClock,
      logger: this.log.logger,
      settings: this.settings.current.monitor,
      redact: (text) => redactText(text, this.knownSecrets),
      workspaceTrusted: vscode.workspace.isTrusted,
    });
    this.inputs = new InputStore(context.secrets);
    this.tree = this.own(new ServerTreeProvider(this.registry));
    this.treeView = this.own(vscode.window.createTreeView('mcpHealth.servers', { treeDataProvider: this.tree, showCollapseAll: true }));
    this.statusBar = this.own(new HealthStatusBar(this.registry, this.settings.current.statusBar));
    this.diagnostics = this.own(new ConfigDiagnostics());
    this.watchers = this.own(new ConfigWatchers());
    this.dashboard = this.own(new DashboardPanel(context.extensionUri, this.registry));
    this.notifier = this.own(new StateNotifier(this.registry, () => this.settings.current.notifications, systemClock, this.log.logger));
    this.own(new ToolDriftWatcher(this.registry, context.workspaceState, () => this.settings.current.notifications, this.log.logger));
    this.own(this.discoveredEmitter);
    this.own({ dispose: this.registry.onEvent((event) => { if (event.type === 'servers' || event.type === 'state') this.updateBadge(); }) });

    this.own(this.settings.onDidChange((event) => this.applySettings(event)));
    this.own(this.watchers.onDidChange(() => this.requestRediscovery('a configuration file changed')));
    this.own(vscode.workspace.onDidChangeWorkspaceFolders(() => this.requestRediscovery('workspace folders changed')));
    this.own(vscode.workspace.onDidGrantWorkspaceTrust(() => {
      this.log.logger.info('workspace trusted: starting servers from workspace files');
      this.registry.setTrusted(true);
      this.treeView.message = undefined;
    }));
    if (!vscode.workspace.isTrusted) {
      this.treeView.message = RESTRICTED_MESSAGE;
    }
    for (const disposable of registerCommands({
      registry: this.registry,
      statusBar: this.statusBar,
      inputs: this.inputs,
      showLog: () => this.log.show(),
      rediscover: () => this.rediscover(),
      inputDefinitions: () => this.inputDefinitions,
      setMonitoringEnabled: (id, enabled) => this.setMonitoringEnabled(id, enabled),
      showDashboard: () => this.dashboard.show(),
      wallClock: () => systemClock.wall(),
    })) {
      this.own(disposable);
    }
  }

  /** First discovery, then monitoring. Runs after activate() has returned. */
  async start(): Promise<void> {
    await this.rediscover();
    if (!this.disposing) {
      this.registry.start();
    }
  }

  /** Discovers again and reconciles; concurrent requests fold into one extra run. */
  rediscover(): Promise<void> {
    if (this.discovering) {
      this.discoverAgain = true;
      return this.discovering;
    }
    this.discovering = (async () => {
      try {
        do {
          this.discoverAgain = false;
          await this.discoverOnce();
        } while (this.discoverAgain && !this.disposing);
      } finally {
        this.discovering = undefined;
      }
    })();
    return this.discovering;
  }

  api(): McpHealthApi {
    return {
      registry: this.registry,
      refresh: () => this.rediscover(),
      tree: this.tree,
      treeView: this.treeView,
      flushViews: () => this.tree.flush(),
      statusBar: () => this.statusBar.snapshot(),
      diagnostics: () => this.diagnostics.entries(),
      watchedPatterns: () => this.watchers.patterns,
      settings: () => this.settings.current,
      storeInput: (id, value) => this.inputs.store(id, value),
      onDidDiscover: this.discoveredEmitter.event,
      dashboard: () => this.dashboard.state,
      notificationsShown: (id) => this.notifier.shown.get(id) ?? 0,
    };
  }

  private async discoverOnce(): Promise<void> {
    const settings = this.settings.current;
    const globalStorage = this.context.globalStorageUri.fsPath;
    const options: DiscoveryOptions = {
      workspaceFolders: workspaceFolderRefs().map((folder) => folder.path),
      userHome: os.homedir(),
      // globalStorageUri is <user dir>/globalStorage/<extension id>: the profile's mcp.json sits in <user dir>.
      vscodeUserDir: path.dirname(path.dirname(globalStorage)),
      globalStorageDir: path.dirname(globalStorage),
      platform: process.platform,
      env: process.env,
      includeUser: settings.discovery.includeUserConfigs,
      sources: settings.discovery.sources,
      inputs: await this.inputs.values(),
    };
    try {
      const result = await discover(options, this.fileSystem);
      if (this.disposing) {
        return;
      }
      const servers = result.servers.filter((server) => !isExcluded(settings, server));
      const diagnostics = result.diagnostics.filter((d) => d.serverName === undefined || !settings.excludedServers.includes(d.serverName));
      this.knownSecrets = [...new Set([...servers.flatMap((s) => s.secretValues ?? []), ...Object.values(options.inputs ?? {})])];
      this.inputDefinitions = result.inputs;
      this.registry.setServers(servers, diagnostics);
      for (const id of this.disabledIds()) {
        if (this.registry.get(id)) {
          this.registry.setEnabled(id, false);
        }
      }
      this.diagnostics.update(diagnostics);
      this.watchers.update(candidateFiles(options));
      const files = result.sources.filter((source) => source.exists).length;
      this.log.logger.info(`discovered ${servers.length} server(s) in ${files} file(s); ${diagnostics.length} problem(s)`);
      await this.updateContextKeys();
    } catch (error) {
      this.log.logger.error(`discovery failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.discoveredEmitter.fire();
  }

  private async updateContextKeys(): Promise<void> {
    const statuses = this.registry.list();
    await Promise.all([
      vscode.commands.executeCommand('setContext', 'mcpHealth.discovered', true),
      vscode.commands.executeCommand('setContext', 'mcpHealth.hasServers', statuses.length > 0),
      vscode.commands.executeCommand('setContext', 'mcpHealth.needsInput', statuses.some((s) => (s.config.missingInputs?.length ?? 0) > 0)),
    ]);
  }

  private updateBadge(): void {
    const failing = this.registry.list().filter((s) => s.state === 'down' || s.state === 'config-error').length;
    this.treeView.badge = failing > 0 ? { value: failing, tooltip: `${failing} MCP server(s) down or misconfigured` } : undefined;
  }

  private applySettings({ current, change }: SettingsChangeEvent): void {
    if (change.retime) {
      this.registry.updateSettings(current.monitor);
    }
    if (change.rerender) {
      this.statusBar.setVisibility(current.statusBar);
    }
    if (change.rediscover) {
      this.requestRediscovery('discovery settings changed');
    }
  }

  private requestRediscovery(reason: string): void {
    this.log.logger.debug(`re-discovering: ${reason}`);
    void this.rediscover();
  }

  private disabledIds(): string[] {
    return this.context.workspaceState.get<string[]>(DISABLED_KEY, []);
  }

  private setMonitoringEnabled(id: string, enabled: boolean): void {
    this.registry.setEnabled(id, enabled);
    const ids = new Set(this.disabledIds());
    if (enabled) {
      ids.delete(id);
    } else {
      ids.add(id);
    }
    void this.context.workspaceState.update(DISABLED_KEY, [...ids]);
  }

  private own<T extends vscode.Disposable>(disposable: T): T {
    this.disposables.push(disposable);
    return disposable;
  }

  /** Closes every connection and child; safe to call twice (deactivate, then the subscriptions). */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      for (const disposable of this.disposables.reverse()) {
        try {
          disposable.dispose();
        } catch {
          // A view failing to dispose must not keep children alive.
        }
      }
      await this.registry.dispose();
    })();
    return this.disposing;
  }
}

