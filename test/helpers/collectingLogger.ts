// A Logger that keeps every line as "level message", for tests that assert on what was logged.

import type { Logger } from '../../src/core/logger';

export interface CollectingLogger extends Logger {
  readonly lines: string[];
}

export function collectingLogger(): CollectingLogger {
  const lines: string[] = [];
  const add = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { lines, trace: add('trace'), debug: add('debug'), info: add('info'), warn: add('warn'), error: add('error') };
}
