// Mocha entry point with the `run()` contract of @vscode/test-electron; the same file runs inside code-server.
// Tests are bundled into this file, so each test module exports a function that declares its suites.
// The fixture opened trusted runs the full suite; opened in Restricted Mode it runs the restricted suite.

import Mocha from 'mocha';
import * as vscode from 'vscode';
import { defineCodeLensTests } from './codeLens.test';
import { defineExtensionTests } from './extension.test';
import { defineHistoryTests } from './history.test';
import { defineMetricsTests } from './metrics.test';
import { LineReporter } from './reporter';
import { defineRestrictedTests } from './restricted.test';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: LineReporter });
  mocha.suite.emit('pre-require', globalThis, 'mcp-health-e2e', mocha);
  if (vscode.workspace.isTrusted) {
    // Before the extension suite, which ends by deactivating the extension.
    defineMetricsTests();
    defineHistoryTests();
    defineCodeLensTests();
    defineExtensionTests();
  } else {
    defineRestrictedTests();
  }
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} end-to-end test(s) failed`)) : resolve()));
  });
}
