// `mcpHealth.metrics.listen`: the CLI's Prometheus endpoint, served from the extension host for one developer.
// prom-client and OpenTelemetry live in dist/metrics.js, required only when the setting is on, so the extension
// bundle does not carry them.

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../core/logger';
import type { MonitorRegistry } from '../core/monitorTypes';
import { formatListenAddress, parseListenAddress } from '../metrics/listenAddress';
import type * as MetricsModule from '../metrics';

export interface MetricsEndpointDeps {
  readonly registry: MonitorRegistry;
  readonly extensionPath: string;
  readonly version: string;
  readonly logger: Logger;
}

export class MetricsEndpoint implements vscode.Disposable {
  private exporter: MetricsModule.MetricsExporter | undefined;
  /** Changes are applied one after the other: a port is released before it is bound again. */
  private queue: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(private readonly deps: MetricsEndpointDeps) {}

  /** Starts, moves or stops the endpoint; `listen` empty stops it. */
  apply(listen: string, timeoutMs: number): Promise<void> {
    this.queue = this.queue.then(() => this.applyNow(listen, timeoutMs));
    return this.queue;
  }

  /** The address being served, for tests and the log. */
  get address(): string | undefined {
    return this.exporter?.address ? formatListenAddress(this.exporter.address) : undefined;
  }

  private async applyNow(listen: string, timeoutMs: number): Promise<void> {
    await this.stop();
    if (listen === '' || this.disposed) return;
    const address = parseListenAddress(listen);
    if (typeof address === 'string') {
      this.fail(`mcpHealth.metrics.listen: ${address}`);
      return;
    }
    const metrics = this.load();
    try {
      // OTLP stays a CLI feature: an editor's environment is not where a fleet's collector is configured.
      this.exporter = await metrics.startMetrics({
        registry: this.deps.registry,
        listen: address,
        build: { version: this.deps.version, frontEnd: 'vscode' },
        timeoutMs,
        env: {},
      });
      if (this.disposed) {
        await this.stop();
        return;
      }
      this.deps.logger.info(`serving Prometheus metrics on http://${this.address}/metrics`);
    } catch (error) {
      this.fail(metrics.isMetricsListenError(error) ? error.message : vscode.l10n.t('metrics endpoint failed: {0}', String(error)));
    }
  }

  private load(): typeof MetricsModule {
    // A computed path: esbuild leaves this require alone, so the module stays out of dist/extension.js.
    const file = path.join(this.deps.extensionPath, 'dist', 'metrics.js');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file) as typeof MetricsModule;
  }

  private fail(message: string): void {
    this.deps.logger.error(message);
    void vscode.window.showWarningMessage(vscode.l10n.t('MCP Health: {0}', message));
  }

  private async stop(): Promise<void> {
    const exporter = this.exporter;
    this.exporter = undefined;
    await exporter?.close();
  }

  /** Closes the port; deactivate awaits `closed()`. */
  dispose(): void {
    this.disposed = true;
    this.queue = this.queue.then(() => this.stop());
  }

  closed(): Promise<void> {
    return this.queue;
  }
}
