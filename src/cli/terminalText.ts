// What the CLI prints to a terminal: tables and watch lines through the shared control-text filter, JSON with C1
// escaped as well.

import { stripControlSequences } from '../core/controlText';

export const terminalSafe = stripControlSequences;

/**
 * JSON.stringify escapes C0 but leaves DEL and C1 (U+0080-U+009F) raw, and U+009B is a CSI to many terminals.
 * Escaping them keeps the document's values identical.
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(/[\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
