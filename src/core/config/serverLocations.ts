// Where each server of one config text is declared, by the same id discovery gives it. The editor asks this only for
// an unsaved buffer (the saved file's places come with discovery); it runs the format's own parser, never a second one.

import type { ConfigFormat, ConfigScope } from '../model';
import type { Position } from './lineIndex';
import { parseConfigText } from './parse';
import type { VariableSources } from './types';

export interface LocateContext extends VariableSources {
  readonly scope: ConfigScope;
  readonly folder?: string;
}

/**
 * Server id -> 1-based position of its key. A server the parser had to drop (a broken entry) keeps the place its
 * diagnostic names, under the id the registry lists it by (`${file}#${name}`), so its lens stays on its entry.
 */
export function locateServers(text: string, file: string, format: ConfigFormat, context: LocateContext): ReadonlyMap<string, Position> {
  const parsed = parseConfigText(text, file, format, context);
  const places = new Map<string, Position>();
  for (const server of parsed.servers) {
    places.set(server.id, { line: server.source.line, column: server.source.column });
  }
  const loadedNames = new Set(parsed.servers.map((server) => server.name));
  // Error diagnostics first: the registry lists a broken server at its first error, as gate.ts brokenServers does.
  const named = parsed.diagnostics.filter((diagnostic) => diagnostic.serverName !== undefined && !loadedNames.has(diagnostic.serverName));
  for (const diagnostic of [...named.filter((d) => d.severity === 'error'), ...named.filter((d) => d.severity !== 'error')]) {
    const id = `${file}#${diagnostic.serverName as string}`;
    if (!places.has(id)) places.set(id, { line: diagnostic.line, column: diagnostic.column });
  }
  return places;
}
