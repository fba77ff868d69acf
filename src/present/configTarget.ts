// Where Open Config puts the cursor: at the key the server's cause is about (`env` for a variable its stderr asked
// for, `args` for a flag or a path), else at the server's own entry.

import type { KeyPosition, ServerStatus } from '../core/model';

export function configTarget(status: ServerStatus): KeyPosition {
  const source = status.config.source;
  const key = status.state === 'up' ? undefined : status.cause?.fix?.key;
  return (key !== undefined ? source.keys?.[key] : undefined) ?? { line: source.line, column: source.column };
}
