// `list` / `check` / `watch` and servers whose entry runs through `mcp-health guard`: they are never started here
// (that would be a second copy of the server); the running guard's own status is shown instead.

import { guardedName } from '../core/guarded';
import { guardLine, type GuardReport } from '../core/guardReport';
import type { ServerConfig } from '../core/model';
import { readGuardStatuses } from '../mcp/guardClient';
import { terminalSafe } from './terminalText';

export interface GuardedServer {
  readonly server: ServerConfig;
  readonly guardName: string;
}

export function splitGuarded(servers: readonly ServerConfig[]): { monitored: ServerConfig[]; guarded: GuardedServer[] } {
  const monitored: ServerConfig[] = [];
  const guarded: GuardedServer[] = [];
  for (const server of servers) {
    const guardName = guardedName(server);
    if (guardName === null) monitored.push(server);
    else guarded.push({ server, guardName });
  }
  return { monitored, guarded };
}

/** One line per guarded entry, with the figures of every running guard of that name (one per client using it). */
export async function describeGuarded(
  guarded: readonly GuardedServer[],
  read: () => Promise<readonly GuardReport[]> = readGuardStatuses,
): Promise<string[]> {
  if (guarded.length === 0) return [];
  const statuses = await read();
  const lines = ['', 'Guarded (run by mcp-health guard in your client; not started here):'];
  for (const { server, guardName } of guarded) {
    const running = statuses.filter((status) => status.name === guardName);
    // The name comes from a config file and the guard's line carries the upstream's own error text: one line each.
    const name = oneLine(server.name);
    if (running.length === 0) {
      lines.push(`  ${name}  guarded, no running guard (its client has not started it)`);
      continue;
    }
    for (const status of running) lines.push(`  ${name}  ${oneLine(guardLine(status))}`);
  }
  return lines;
}

function oneLine(text: string): string {
  return terminalSafe(text.replace(/\s+/g, ' '));
}

export { guardLine };
