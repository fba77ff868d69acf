// Text from servers and config files reaches terminals, tooltips and reports: control sequences in it could clear
// the screen, retitle the window or forge output. Every front end passes such text through here before showing it.

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

/** Removes escape sequences and makes every other control character (tab and newline excepted) visible and harmless. */
export function stripControlSequences(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(SEQUENCE, '').replace(CONTROL, '\uFFFD');
}
