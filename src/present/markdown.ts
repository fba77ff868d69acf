// Escaping for text that comes from config files or servers and ends up inside trusted Markdown.

import { stripControlSequences } from '../core/controlText';

/** Escapes Markdown syntax and theme-icon syntax, so a server name cannot inject a link or a command. */
export function escapeMarkdown(text: string): string {
  // Newlines are folded before control characters are neutralised, so a CR of a CRLF folds with its LF.
  return stripControlSequences(text.replace(/\r?\n/g, ' ')).replace(/[\\`*_{}[\]()#+\-.!|<>~$]/g, (c) => `\\${c}`);
}

/**
 * A `command:` link target with JSON arguments, as VS Code expects them. Parentheses are encoded too: a raw `)` from a
 * server name would end the Markdown link early.
 */
export function commandUri(command: string, ...args: unknown[]): string {
  return args.length
    ? `command:${command}?${encodeURIComponent(JSON.stringify(args)).replace(/\(/g, '%28').replace(/\)/g, '%29')}`
    : `command:${command}`;
}

/**
 * A fenced code block that text cannot break out of: the fence is longer than any backtick run inside, so a server's
 * stderr holding ``` cannot end the block and continue as (trusted) Markdown.
 */
export function codeBlock(text: string, language = 'text'): string {
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  return `\n${fence}${language}\n${stripControlSequences(text)}\n${fence}\n`;
}
