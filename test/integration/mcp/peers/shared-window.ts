// One "editor window" for the shared-servers test: a real registry and connector behind SharedServers.
// Usage: node --import tsx shared-window.ts CHANNEL_PATH SERVERS_JSON
// stdin: "list" prints the statuses as one JSON line, "ping ID" / "reconnect ID" act on one server (as the commands
// do), "quit" closes the servers, then the channel, then exits.
// stdout: "role leader|follower" on every role change, "list [...]" answers.
import { createInterface } from 'node:readline';
import { systemClock } from '../../../../src/core/clock';
import type { ServerConfig } from '../../../../src/core/model';
import { createRegistry } from '../../../../src/core/monitor';
import { defaultMonitorSettings } from '../../../../src/core/monitorTypes';
import { createNodeConnector } from '../../../../src/mcp';
import { SharedServers } from '../../../../src/mcp/sharedServers';

const [channelPath, serversJson] = process.argv.slice(2);
const servers = JSON.parse(serversJson ?? '[]') as ServerConfig[];
const logger = {
  trace: () => undefined,
  debug: (message: string) => process.stderr.write(`[${process.pid}] debug ${message}\n`),
  info: (message: string) => process.stderr.write(`[${process.pid}] ${message}\n`),
  warn: (message: string) => process.stderr.write(`[${process.pid}] WARN ${message}\n`),
  error: (message: string) => process.stderr.write(`[${process.pid}] ERROR ${message}\n`),
};
const registry = createRegistry({
  connector: createNodeConnector({ logger }),
  clock: systemClock,
  logger,
  settings: defaultMonitorSettings,
});
registry.setServers(servers, []);
const shared = new SharedServers({
  path: channelPath!,
  registry,
  covers: (config) => config.source.scope === 'user',
  label: 'another window',
  logger,
  onRoleChange: (role) => process.stdout.write(`role ${role}\n`),
  reapGraceMs: 1_000,
});

async function main(): Promise<void> {
  await shared.start();
  registry.start();
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'list') {
      const list = registry.list().map((s) => ({ id: s.config.id, state: s.state, pid: s.pid, elsewhere: s.watchedElsewhere ?? null }));
      process.stdout.write(`list ${JSON.stringify(list)}\n`);
    } else if (line.startsWith('ping ')) {
      const results = await registry.pingNow(line.slice(5));
      process.stdout.write(`ping ${JSON.stringify([...results.values()])}\n`);
    } else if (line.startsWith('reconnect ')) {
      await registry.reconnect(line.slice(10));
      process.stdout.write('reconnected\n');
    } else if (line === 'quit') {
      break;
    }
  }
  // The order a window closes in: its servers first, then the channel (followers are told, the path is freed).
  await registry.dispose();
  await shared.dispose();
  process.exit(0);
}

void main();
