// Which of "Guard This Server" / "Unguard" a server's tree item and the palette's pick offer.

import { guardedName } from '../core/guarded';
import type { ServerStatus } from '../core/model';

/** A stdio entry with a command, not yet run through the guard (remote entries are not rewritten from the editor). */
export function isGuardable(status: Pick<ServerStatus, 'config'>): boolean {
  return status.config.transport === 'stdio' && Boolean(status.config.command) && guardedName(status.config) === null;
}

export function isGuarded(status: Pick<ServerStatus, 'config'>): boolean {
  return guardedName(status.config) !== null;
}
