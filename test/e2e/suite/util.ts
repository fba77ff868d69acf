// Polling helpers for a suite that watches real processes: every wait is bounded and says what it waited for.

import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { ServerStatus } from '../../../src/core/model';
import type { McpHealthApi } from '../../../src/vscode/api';
import { waitFor } from '../../helpers/wait';

export { isAlive } from '../../helpers/processes';
export { sleep, waitFor } from '../../helpers/wait';

export const EXTENSION_ID = 'mcp-health.mcp-health';

export async function activateExtension(): Promise<{ extension: vscode.Extension<McpHealthApi>; api: McpHealthApi }> {
  const extension = vscode.extensions.getExtension<McpHealthApi>(EXTENSION_ID);
  if (!extension) {
    throw new Error(`extension ${EXTENSION_ID} is not loaded`);
  }
  const api = await extension.activate();
  return { extension, api };
}

export function byName(api: McpHealthApi, name: string): ServerStatus | undefined {
  return api.registry.list().find((status) => status.config.name === name);
}

export function waitForState(api: McpHealthApi, name: string, states: readonly string[], timeoutMs = 20_000): Promise<ServerStatus> {
  return waitFor(
    `${name} in state ${states.join('|')} (now ${byName(api, name)?.state ?? 'absent'})`,
    () => {
      const status = byName(api, name);
      return status && states.includes(status.state) ? status : undefined;
    },
    timeoutMs,
  );
}

export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    throw new Error('the suite needs the fixture workspace open');
  }
  return folder.uri.fsPath;
}

/** Direct children of a process, from /proc (Linux): what deactivate must leave empty. */
export function childPids(pid: number): number[] {
  const taskDir = `/proc/${pid}/task`;
  if (!fs.existsSync(taskDir)) {
    return [];
  }
  const pids: number[] = [];
  for (const task of fs.readdirSync(taskDir)) {
    const text = fs.readFileSync(`${taskDir}/${task}/children`, 'utf8').trim();
    pids.push(...text.split(/\s+/).filter(Boolean).map(Number));
  }
  return pids;
}

export function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
