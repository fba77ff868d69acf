// Polling helpers for a suite that watches real processes: every wait is bounded and says what it waited for.

import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { ServerStatus } from '../../../src/core/model';
import type { McpHealthApi } from '../../../src/vscode/api';

export const EXTENSION_ID = 'mcp-health.mcp-health';

export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) {
        return value;
      }
    } catch (error) {
      last = error;
    }
    await sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

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
  return waitFor(`${name} in state ${states.join('|')} (now ${byName(api, name)?.state ?? 'absent'})`, () => {
    const status = byName(api, name);
    return status && states.includes(status.state) ? status : undefined;
  }, timeoutMs);
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

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie is gone for every purpose but the process table.
    return !/^\S+\s+\(.*\)\s+Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
