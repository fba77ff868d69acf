// Text from servers and config files reaches a terminal: control sequences in it could clear the screen, retitle
// the window or forge output. Everything printed as a table or watch line passes through here; JSON gets its own.

/** CSI (ESC [ or the one-byte C1 CSI) and its parameters, OSC/DCS/APC/PM/SOS strings up to BEL or ST, other ESC pairs. */
const SEQUENCE = new RegExp(
  [
    '(?:\\x1b\\[|\\x9b)[\\x20-\\x3f]*[\\x40-\\x7e]?',
    '(?:\\x1b[\\]PX^_]|[\\x90\\x98\\x9d\\x9e\\x9f])[^\\x07\\x1b\\x9c]*(?:\\x07|\\x1b\\\\|\\x9c)?',
    '\\x1b[\\x20-\\x7e]?',
  ].join('|'),
  'g',
);
/** C0 except tab and newline, DEL and C1: shown as U+FFFD so a reader sees something was there. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Removes escape sequences and makes every other control character visible and harmless. */
export function terminalSafe(text: string): string {
  return text.replace(SEQUENCE, '').replace(CONTROL, '\uFFFD');
}

/**
 * JSON.stringify escapes C0 but leaves DEL and C1 (U+0080-U+009F) raw, and U+009B is a CSI to many terminals.
 * Escaping them keeps the document's values identical.
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(/[\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
