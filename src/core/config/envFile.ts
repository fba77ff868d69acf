// The dotenv subset VS Code's `envFile` accepts: KEY=VALUE lines, `#` comments, optional `export`, quotes.

/** The most of an envFile read: KEY=VALUE lines, a megabyte is thousands of them. */
export const MAX_ENV_FILE_BYTES = 1024 * 1024;

export interface ParsedEnvFile {
  readonly values: Record<string, string>;
  /** 1-based lines that are neither blank, comment nor KEY=VALUE. */
  readonly invalidLines: number[];
}

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$/;

export function parseEnvFile(text: string): ParsedEnvFile {
  const values: Record<string, string> = {};
  const invalidLines: number[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (/^\s*(#|$)/.test(line)) continue;
    const match = LINE.exec(line);
    if (!match) {
      invalidLines.push(index + 1);
      continue;
    }
    values[match[1]] = unquote(match[2]);
  }
  return { values, invalidLines };
}

function unquote(raw: string): string {
  const quote = raw[0];
  if ((quote === '"' || quote === "'" || quote === '`') && raw.length >= 2) {
    const close = closingQuote(raw, quote);
    if (close > 0) {
      const inner = raw.slice(1, close);
      return quote === '"'
        ? inner
            .replace(/\\n/g, '\n')
            .replace(/\\r/g, '\r')
            .replace(/\\t/g, '\t')
            .replace(/\\(["\\])/g, '$1')
        : inner;
    }
  }
  // An unquoted value ends at a comment that follows whitespace.
  return raw.replace(/\s+#.*$/, '');
}

function closingQuote(raw: string, quote: string): number {
  for (let i = 1; i < raw.length; i++) {
    if (quote === '"' && raw[i] === '\\') i++;
    else if (raw[i] === quote) return i;
  }
  return -1;
}
