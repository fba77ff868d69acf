// Escaping for text that comes from config files or servers and ends up inside trusted Markdown.

/** Escapes Markdown syntax and theme-icon syntax, so a server name cannot inject a link or a command. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~$]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

/**
 * A `command:` link target with JSON arguments, as VS Code expects them. Parentheses are encoded too: a raw `)` from a
 * server name would end the Markdown link early.
 */
export function commandUri(command: string, ...args: unknown[]): string {
  return args.length ? `command:${command}?${encodeURIComponent(JSON.stringify(args)).replace(/\(/g, '%28').replace(/\)/g, '%29')}` : `command:${command}`;
}
