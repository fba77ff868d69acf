// The one object that owns the extension: the registry, the views, the watchers and every disposable.
// Views subscribe to the registry and never call each other; this object only wires them and runs discovery.

import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { systemClock } from '../core/clock';
import { candidateFiles, discover } from '../core/config/discover';
import type { DiscoveryOptions, InputDefinition } from '../core/config/types';
import { createRegistry, type TrustAwareRegistry } from '../core/monitor';
import { concurrentStarts } from '../mcp/concurrentStarts';
import type { MonitorRegistry } from '../core/monitorTypes';
import type { HistoryRecorder } from '../core/history';
import { GUARD_POLL_MS, GuardPoller } from '../core/guardReport';
import { redactText } from '../core/redact';
import { channelGuardControl, readGuardStatuses } from '../mcp/guardClient';
import { createNodeConnector } from '../mcp';
import { channelPath } from '../mcp/localChannel';
import { createNodeFileSystem } from '../mcp/nodeFileSystem';
import { SharedServers, sharedServersTopic } from '../mcp/sharedServers';
import { findOnPath, StableGuardRuntime } from '../mcp/stableRuntime';
import { BUNDLED_GUARD_FILE } from '../core/guardLauncher';
import { registerCommands } from './commands';
import { ConsentStore } from '../core/consent/consentStore';
import type { ConsentKey } from '../core/consent/definitionHash';
import { loadConsentKey } from './consentKey';
import { ConsentFlow } from './consent';
import { registerConsentCommands } from './consentCommands';
import { DashboardPanel } from './dashboard';
import { createHistoryRecorder, EditorHistory, registerHistoryCommands } from './history';
import { registerGuardCommands } from './guardCommands';
import { ConfigDiagnostics } from './diagnostics';
import { InputStore } from './inputs';
import { createPingLog, type PingLog } from './log';
import { MetricsEndpoint } from './metricsEndpoint';
import { workspaceFolderRefs } from '../present/paths';
import { isExcluded } from '../present/settingsModel';
import { SettingsStore, type SettingsChangeEvent } from './settings';
import { HealthStatusBar } from './statusBar';
import { StateNotifier } from './notifications';
import { registerToolDriftCommands, ToolDriftWatcher } from './toolDrift';
import { ServerTreeProvider } from './treeView';
import { ChatMcpSettingsWatcher } from './chatMcpSettings';
import { registerVsCodeMcpCommands } from './vscodeMcp';
import { ConfigWatchers } from './watchers';
import { createPublicApi, type McpHealthApi, type McpHealthPublicApi } from './api';
import { Commands } from '../present/commandIds';
import type { ViewContextOf } from '../present/serverView';
import { ConfigLensProvider } from './configLens';

const DISABLED_KEY = 'mcpHealth.disabledServers';

/**
 * What activate() does not wait for: no first paint needs them, and building them costs file I/O, hashing or the
 * first run of their code. Built once, by start() right after activate() returns, or by the first command that needs
 * one of them before that.
 */
interface DeferredServices {
  readonly chatMcp: ChatMcpSettingsWatcher;
  readonly diagnostics: ConfigDiagnostics;
  readonly configLens: ConfigLensProvider;
  readonly watchers: ConfigWatchers;
  readonly notifier: StateNotifier;
  readonly toolDrift: ToolDriftWatcher;
  /** The file behind the recorder (McpHealth.historyRecorder), read off the activation path. */
  readonly history: EditorHistory;
  /** One copy per machine: user-level servers run in one window, the others mirror it. */
  readonly shared: SharedServers;
  readonly guardRuntime: StableGuardRuntime;
}

export class McpHealth {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly log: PingLog;
  private readonly settings: SettingsStore;
  readonly registry: TrustAwareRegistry & MonitorRegistry;
  /** Fed from the registry before any view subscribes (createHistoryRecorder says why). */
  private readonly historyRecorder: HistoryRecorder;
  private readonly tree: ServerTreeProvider;
  private readonly statusBar: HealthStatusBar;
  private readonly inputs: InputStore;
  private readonly dashboard: DashboardPanel;
  private readonly consent: ConsentFlow;
  private readonly metrics: MetricsEndpoint;
  private deferred: DeferredServices | undefined;
  private inputDefinitions: readonly InputDefinition[] = [];
  private consentKey: ConsentKey | undefined;
  private readonly consentStore: ConsentStore;
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
    // What a bug report needs first: which version ran, with which effective settings.
    this.log.logger.info(
      `MCP Health ${String(context.extension.packageJSON.version ?? '?')} activating in ${vscode.env.appName} ${vscode.version}; settings: ${JSON.stringify(this.settings.current)}`,
    );
    // Digests are keyed with a secret loaded before the first discovery hands servers over (discoverOnce).
    this.consentStore = new ConsentStore(context.globalState, this.log.logger, () => this.consentKey);
    // Test-only pre-seed, documented in test/e2e/harness/README.md: the smoke-test driver hides notifications, so the
    // mocha suite cannot click Allow. Never honoured outside ExtensionMode.Test.
    const testConsent = context.extensionMode === vscode.ExtensionMode.Test && process.env.MCP_HEALTH_TEST_CONSENT === 'allow-all';
    this.registry = createRegistry({
      connector: createNodeConnector({
        logger: this.log.logger,
        clientInfo: { name: 'mcp-health-vscode', version: String(context.extension.packageJSON.version ?? '0.0.0') },
        // VS Code's fetch follows `http.proxy`: a certificate read beside it would take another route (peerCertificate.ts).
        proxied: () => Boolean(vscode.workspace.getConfiguration('http').get<string>('proxy')),
      }),
      clock: systemClock,
      logger: this.log.logger,
      settings: this.settings.current.monitor,
      redact: (text) => redactText(text, this.knownSecrets),
      workspaceTrusted: vscode.workspace.isTrusted,
      maxConcurrentStarts: concurrentStarts(),
      consent: (config) => testConsent || this.consentStore.isAllowed(config),
      // Entries run through `mcp-health guard` are never started: their guard's socket is read instead.
      guards: new GuardPoller(
        systemClock,
        () => readGuardStatuses(undefined, undefined, onceEach(this.log.logger)),
        GUARD_POLL_MS,
        channelGuardControl,
      ),
    });
    this.consent = this.own(new ConsentFlow(this.consentStore, this.registry, () => this.settings.current.monitor, this.log.logger));
    this.inputs = new InputStore(context.secrets);
    const history = createHistoryRecorder(this.registry);
    this.historyRecorder = history.recorder;
    this.own(history.feed);
    this.tree = this.own(new ServerTreeProvider(this.registry, this.contextOf));
    this.statusBar = this.own(new HealthStatusBar(this.registry, this.settings.current.statusBar, this.contextOf));
    // Here, not deferred: VS Code restores an open dashboard through this serializer as soon as activation ends.
    this.dashboard = this.own(new DashboardPanel(context.extensionUri, this.registry, this.contextOf));
    this.own(vscode.commands.registerCommand(Commands.resetNotifications, () => this.services().notifier.resetMuted()));
    this.own(
      vscode.commands.registerCommand(Commands.openWalkthrough, () =>
        vscode.commands.executeCommand('workbench.action.openWalkthrough', `${context.extension.id}#mcpHealth.gettingStarted`, false),
      ),
    );
    for (const disposable of [
      ...registerToolDriftCommands(() => this.services().toolDrift),
      ...registerHistoryCommands(() => this.services().history),
    ]) {
      this.own(disposable);
    }
    this.own(this.discoveredEmitter);
    this.metrics = this.own(
      new MetricsEndpoint({
        registry: this.registry,
        extensionPath: context.extensionPath,
        version: String(context.extension.packageJSON.version ?? '0.0.0'),
        logger: this.log.logger,
      }),
    );

    this.own(this.settings.onDidChange((event) => this.applySettings(event)));
    this.own(vscode.workspace.onDidChangeWorkspaceFolders(() => this.requestRediscovery('workspace folders changed')));
    this.own(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log.logger.info('workspace trusted: starting servers from workspace files');
        this.registry.setTrusted(true);
        this.consent.offer();
        // User-level servers were kept in the home folder while the window was untrusted; now they may use its folder.
        this.requestRediscovery('workspace trusted');
      }),
    );
    for (const disposable of registerCommands({
      registry: this.registry,
      statusBar: this.statusBar,
      inputs: this.inputs,
      logger: this.log.logger,
      showLog: () => this.log.show(),
      rediscover: () => this.rediscover(),
      inputDefinitions: () => this.inputDefinitions,
      setMonitoringEnabled: (id, enabled) => this.setMonitoringEnabled(id, enabled),
      showDashboard: () => this.dashboard.show(),
      wallClock: () => systemClock.wall(),
      viewContext: this.contextOf,
    })) {
      this.own(disposable);
    }
    for (const disposable of registerConsentCommands(this.consent, this.registry)) {
      this.own(disposable);
    }
    for (const disposable of registerVsCodeMcpCommands(this.registry)) {
      this.own(disposable);
    }
    for (const disposable of registerGuardCommands({
      registry: this.registry,
      rediscover: () => this.rediscover(),
      guardLauncher: () => this.services().guardRuntime.launcher(),
      nodeOnPath: async () => Boolean(await findOnPath('node')),
    })) {
      this.own(disposable);
    }
  }

  /** The deferred half of the wiring (DeferredServices), built on first call; every part is owned like the rest. */
  private services(): DeferredServices {
    if (this.deferred) return this.deferred;
    const chatMcp = this.own(new ChatMcpSettingsWatcher());
    this.own(
      chatMcp.onDidChange(() => {
        this.tree.refresh();
        this.statusBar.render();
      }),
    );
    const watchers = this.own(new ConfigWatchers());
    this.own(watchers.onDidChange(() => this.requestRediscovery('a configuration file changed')));
    this.deferred = {
      history: this.own(new EditorHistory(this.context, this.historyRecorder, this.log.logger, () => this.tree.refresh())),
      chatMcp,
      watchers,
      diagnostics: this.own(new ConfigDiagnostics()),
      configLens: this.own(new ConfigLensProvider(this.registry, this.settings.current.codeLens)),
      notifier: this.own(
        new StateNotifier(
          this.registry,
          () => this.settings.current.notifications,
          systemClock,
          this.log.logger,
          this.context.globalState,
          () => this.settings.current.notificationReminderMs,
          this.contextOf,
        ),
      ),
      toolDrift: this.own(
        new ToolDriftWatcher(this.registry, this.context.workspaceState, () => this.settings.current.notifications, this.log.logger),
      ),
      shared: new SharedServers({
        path: channelPath(sharedServersTopic(this.vscodeUserDir())),
        registry: this.registry,
        covers: (config) => config.source.scope === 'user',
        label: vscode.l10n.t('another VS Code window'),
        logger: this.log.logger,
      }),
      // Copied now, off the activation path: by the time a user picks "Guard This Server" the stable copy is there.
      guardRuntime: new StableGuardRuntime(
        path.join(this.context.extensionPath, 'dist', BUNDLED_GUARD_FILE),
        path.join(this.context.globalStorageUri.fsPath, 'bin'),
        this.log.logger,
      ),
    };
    this.statusBar.render();
    return this.deferred;
  }

  /**
   * What every view shows beside the monitor's verdict (src/present/serverView.ts), the same for each of them: VS
   * Code's own chat.mcp settings and the restored uptime, neither known before the deferred start.
   */
  private readonly contextOf: ViewContextOf = (status) => ({
    vscodeWontStart: this.deferred?.chatMcp.blockFor(status.config) ?? null,
    uptime: this.deferred?.history.uptimeOf(status.config.id) ?? null,
  });

  /** First discovery, then monitoring. Runs after activate() has returned, and builds what activate() left out. */
  async start(): Promise<void> {
    // deactivate() may come first (a window closed while starting): then nothing is built, and nothing started.
    if (this.disposing) return;
    const { shared } = this.services();
    await this.rediscover();
    // Lead or follow before anything starts, so a follower never starts its own copy of a user-level server.
    await shared.start();
    if (!this.disposing) {
      this.registry.start();
      const { metricsListen, monitor } = this.settings.current;
      if (metricsListen !== '') void this.metrics.apply(metricsListen, monitor.timeoutMs);
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

  /** For activation failures: the user is pointed at the log. */
  logError(message: string): void {
    this.log.logger.error(message);
  }

  showLog(): void {
    this.log.show();
  }

  api(): McpHealthApi {
    return {
      registry: this.registry,
      refresh: () => this.rediscover(),
      tree: this.tree,
      treeView: this.tree.view,
      flushViews: () => this.tree.flush(),
      statusBar: () => this.statusBar.snapshot(),
      diagnostics: () => this.services().diagnostics.entries(),
      watchedPatterns: () => this.services().watchers.patterns,
      settings: () => this.settings.current,
      storeInput: (id, value) => this.inputs.store(id, value),
      onDidDiscover: this.discoveredEmitter.event,
      dashboard: () => this.dashboard.state,
      notificationsShown: (id) => this.services().notifier.shown.get(id) ?? 0,
      notificationGroups: () => this.services().notifier.shownGroups.map((group) => ({ message: group.message, ids: [...group.ids] })),
    };
  }

  /** What any other extension gets outside ExtensionMode.Test: read-only, redacted, no secret and no way to store one. */
  publicApi(): McpHealthPublicApi {
    const api = createPublicApi(this.registry);
    this.own(api);
    return api.value;
  }

  private async discoverOnce(): Promise<void> {
    if (this.disposing) return;
    const { diagnostics: diagnosticsView, watchers } = this.services();
    const settings = this.settings.current;
    const globalStorage = this.context.globalStorageUri.fsPath;
    const options: DiscoveryOptions = {
      workspaceFolders: workspaceFolderRefs(vscode.workspace.workspaceFolders).map((folder) => folder.path),
      userHome: os.homedir(),
      vscodeUserDir: this.vscodeUserDir(),
      globalStorageDir: path.dirname(globalStorage),
      platform: process.platform,
      env: process.env,
      includeUser: settings.discovery.includeUserConfigs,
      sources: settings.discovery.sources,
      inputs: await this.inputs.values(),
      workspaceTrusted: vscode.workspace.isTrusted,
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
      this.consentKey ??= await loadConsentKey(this.context.secrets, this.log.logger);
      // Before the gates are computed, so a user-level server allowed before the upgrade is not asked about again.
      await this.consentStore.adoptLegacy(servers);
      this.registry.setServers(servers, diagnostics);
      for (const id of this.disabledIds()) {
        if (this.registry.get(id)) {
          this.registry.setEnabled(id, false);
        }
      }
      diagnosticsView.update(diagnostics);
      watchers.update(candidateFiles(options));
      const files = result.sources.filter((source) => source.exists).length;
      this.log.logger.info(`discovered ${servers.length} server(s) in ${files} file(s); ${diagnostics.length} problem(s)`);
      this.consent.offer();
      await this.updateContextKeys();
    } catch (error) {
      this.log.logger.error(`discovery failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.discoveredEmitter.fire();
  }

  /** globalStorageUri is <user dir>/globalStorage/<extension id>: the profile's mcp.json sits in <user dir>. */
  private vscodeUserDir(): string {
    return path.dirname(path.dirname(this.context.globalStorageUri.fsPath));
  }

  private async updateContextKeys(): Promise<void> {
    const statuses = this.registry.list();
    await Promise.all([
      vscode.commands.executeCommand('setContext', 'mcpHealth.discovered', true),
      vscode.commands.executeCommand('setContext', 'mcpHealth.hasServers', statuses.length > 0),
      vscode.commands.executeCommand(
        'setContext',
        'mcpHealth.needsInput',
        statuses.some((s) => (s.config.missingInputs?.length ?? 0) > 0),
      ),
    ]);
  }

  private applySettings({ current, change }: SettingsChangeEvent): void {
    if (change.retime) {
      this.registry.updateSettings(current.monitor);
    }
    if (change.rerender) {
      this.statusBar.setVisibility(current.statusBar);
      // Not built yet: it reads the current setting when it is.
      this.deferred?.configLens.setEnabled(current.codeLens);
    }
    if (change.rediscover) {
      this.requestRediscovery('discovery settings changed');
    }
    if (change.metrics) {
      void this.metrics.apply(current.metricsListen, current.monitor.timeoutMs);
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
    // Built after dispose() began (a late command reaching services()): disposed at once, so nothing outlives us.
    if (this.disposing) disposable.dispose();
    return disposable;
  }

  /** Closes every connection and child; safe to call twice (deactivate, then the subscriptions). */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      for (const disposable of this.disposables.splice(0).reverse()) {
        try {
          disposable.dispose();
        } catch {
          // A view failing to dispose must not keep children alive.
        }
      }
      await Promise.all([this.registry.dispose(), this.metrics.closed(), this.deferred?.history.closed()]);
      // Only now, with our servers closed, may another window take the user-level servers over.
      await this.deferred?.shared.dispose();
    })();
    return this.disposing;
  }
}

/** A report the guards' schema refuses is polled again every 2 s: say so once per guard and problem, not every time. */
function onceEach(logger: { warn(message: string): void }): (line: string) => void {
  const said = new Set<string>();
  return (line) => {
    if (said.has(line) || said.size >= 100) return;
    said.add(line);
    logger.warn(line);
  };
}
