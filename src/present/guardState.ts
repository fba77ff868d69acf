// Which of "Guard This Server" / "Unguard" a server's tree item and the palette's pick offer.

import { guardedName } from '../core/guarded';
import type { ServerStatus } from '../core/model';

/**
 * A stdio entry with a command, not yet run through the guard (remote entries are not rewritten from the editor).
 * Not a sandboxed one: the rewritten entry keeps `sandboxEnabled`, so VS Code would sandbox the guard (its status
 * socket, its restarts) instead of the server, and the guard's stable copy has no sandbox runtime of its own.
 */
export function isGuardable(status: Pick<ServerStatus, 'config'>): boolean {
  return (
    status.config.transport === 'stdio' &&
    Boolean(status.config.command) &&
    guardedName(status.config) === null &&
    status.config.sandbox === undefined
  );
}

export function isGuarded(status: Pick<ServerStatus, 'config'>): boolean {
  return guardedName(status.config) !== null;
}
