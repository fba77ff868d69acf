// The one ServerConfig builder for tests: a stdio server declared in a workspace's .vscode/mcp.json unless told otherwise.
import type { ServerConfig, SourceRef } from '../../src/core/model';

export const DEFAULT_SOURCE: SourceRef = {
  file: '/work/ws/.vscode/mcp.json',
  line: 3,
  column: 5,
  format: 'vscode',
  scope: 'workspace',
  folder: '/work/ws',
};

/** A user-level file (no workspace folder) at line 1, column 1: the source the integration tiers declare servers in. */
export function userSource(file: string): SourceRef {
  return { file, line: 1, column: 1, format: 'vscode', scope: 'user' };
}

export type ServerConfigOverrides = Partial<Omit<ServerConfig, 'source'>> & { readonly source?: Partial<SourceRef> };

/**
 * `name` gives the id (`<file>#<name>`); `source` fields override DEFAULT_SOURCE one by one; a user-level source has
 * no folder unless one is given, and `folder: undefined` leaves it out too. A stdio server without a command runs `node <name>.js`; an http or sse one gets no command.
 */
export function serverConfig(name: string, overrides: ServerConfigOverrides = {}): ServerConfig {
  const { source: sourceOverrides = {}, ...rest } = overrides;
  const { folder: defaultFolder, ...defaults } = DEFAULT_SOURCE;
  const scope = sourceOverrides.scope ?? defaults.scope;
  const { folder, ...source }: SourceRef = { ...defaults, ...(scope === 'workspace' ? { folder: defaultFolder } : {}), ...sourceOverrides };
  const transport = rest.transport ?? 'stdio';
  const launch = transport === 'stdio' ? { command: 'node', args: [`${name}.js`] } : {};
  return {
    id: `${source.file}#${name}`,
    name,
    source: folder === undefined ? source : { ...source, folder },
    transport,
    ...launch,
    ...rest,
  };
}
