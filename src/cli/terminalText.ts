// What the CLI puts in a table cell or a watch line: the shared control-text filter. Printing itself (and JSON) goes
// through src/cli/output.ts, which filters again, whatever the caller did.

import { stripControlSequences } from '../core/controlText';
import { cliJson } from './output';

export const terminalSafe = stripControlSequences;

/** The CLI's --json text: see cliJson. */
export const terminalSafeJson = cliJson;
