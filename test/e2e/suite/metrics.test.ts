// mcpHealth.metrics.listen in a real extension host: the CLI's Prometheus endpoint, loaded lazily from dist/metrics.js.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { freePort } from '../../helpers/servers';
import { activateExtension, waitFor, waitForState } from './util';

async function scrape(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(url);
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

async function refused(url: string): Promise<boolean> {
  try {
    await fetch(url);
    return false;
  } catch {
    return true;
  }
}

export function defineMetricsTests(): void {
  describe('Prometheus metrics from the extension host', function () {
    const config = () => vscode.workspace.getConfiguration('mcpHealth');

    after(async () => {
      await config().update('metrics.listen', undefined, vscode.ConfigurationTarget.Global);
    });

    it('is off by default, and prom-client is neither loaded nor in the extension bundle', async function () {
      const { extension, api } = await activateExtension();
      assert.equal(api.settings().metricsListen, '');
      const loaded = Object.keys(require.cache).filter((file) => file.endsWith(path.join('dist', 'metrics.js')));
      assert.deepEqual(loaded, []);
      const bundle = fs.readFileSync(path.join(extension.extensionPath, 'dist', 'extension.js'), 'utf8');
      assert.ok(!bundle.includes('application/openmetrics-text'), 'prom-client is not bundled into dist/extension.js');
      assert.ok(fs.existsSync(path.join(extension.extensionPath, 'dist', 'metrics.js')));
    });

    it('serves the same series as the CLI once set, and stops serving when cleared', async function () {
      this.timeout(60_000);
      const { api } = await activateExtension();
      const everything = await waitForState(api, 'everything', ['up'], 30_000);
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/metrics`;
      await config().update('metrics.listen', `127.0.0.1:${port}`, vscode.ConfigurationTarget.Global);
      const body = await waitFor('the metrics endpoint', async () => {
        const text = await scrape(url);
        return text && /mcp_health_up\{server="everything",transport="stdio",[^}]*\} 1/.test(text) ? text : undefined;
      });
      assert.match(body, /mcp_health_build_info\{[^}]*front_end="vscode"\} 1/);
      // The histogram counts probes from the moment the endpoint starts: probe now rather than wait 30 s (through the
      // registry, not the Ping All command, whose status bar message would outlive this test).
      await api.registry.pingNow(everything.config.id);
      await waitFor('a probe in the histogram', async () =>
        /mcp_client_operation_duration_seconds_count\{server="everything",[^}]*mcp_method_name="ping"\} [1-9]/.test(
          (await scrape(url)) ?? '',
        ),
      );
      assert.match(body, /mcp_health_state\{server="broken",[^}]*state="config-error"\} 1/);
      assert.equal(await scrape(`http://127.0.0.1:${port}/healthz`), 'ok\n');

      await config().update('metrics.listen', undefined, vscode.ConfigurationTarget.Global);
      await waitFor('the port closed', () => refused(url));
    });
  });
}
