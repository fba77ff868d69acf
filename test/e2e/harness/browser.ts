import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { chromiumExecutable } from './paths';

export interface Workbench {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Closes the browser and removes its profile dir. Safe to call twice. */
  close(): Promise<void>;
}

// Flags measured on these machines: no sandbox as root, no GPU, and nothing that phones home.
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchWorkbenchBrowser(viewport = { width: 1400, height: 900 }): Promise<Workbench> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumExecutable,
      headless: true,
      args: chromiumArgs,
      viewport,
    });
  } catch (error) {
    fs.rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  let closed = false;
  return {
    context,
    page,
    async close() {
      if (closed) return;
      closed = true;
      await context.close().catch(() => undefined);
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Offline, the workbench keeps trying the extension gallery, telemetry, update and sign-in hosts, and its chat features
// log their idle state; none of that says anything about the extension under test.
const offlineNoise = [
  /ERR_NAME_NOT_RESOLVED|ERR_INTERNET_DISCONNECTED|ERR_CONNECTION_REFUSED|ERR_ADDRESS_UNREACHABLE|ERR_TIMED_OUT/,
  /Failed to fetch|Failed to load resource/,
  /marketplace|gallery|open-vsx|vscode-cdn|vscode-unpkg|telemetry|update\.code|api\.github\.com|vsassets|vscode-sync/i,
  /authentication provider '[^']+' to register/,
  /\[(AgentHost|AgentHost:remote|ChatModelSelection|AccountPolicyGate|reconnection-grace-time|Service Worker)\]/,
  /^Creating a socket |^Updating additional builtin extensions cache|^Creation of workbench contribution/,
  /web worker extension host is started in a same-origin iframe|allow-scripts and allow-same-origin/,
];

export function isOfflineNoise(text: string): boolean {
  return offlineNoise.some((pattern) => pattern.test(text));
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/**
 * Applies console printf directives (%c styles are dropped) as a devtools console would. The workbench's logger puts
 * its own "%c LEVEL" format first and passes the extension host's format string and arguments after it, so a
 * styled first argument is followed by a second round of formatting.
 */
export function formatConsoleArgs(args: readonly unknown[]): string {
  if (args.length === 0) return '';
  const [first, ...rest] = args;
  if (typeof first !== 'string') return args.map(stringify).join(' ');
  const remaining = [...rest];
  const formatted = first.replace(/%([csdifoOj%])/g, (directive, kind: string) => {
    if (kind === '%') return '%';
    if (remaining.length === 0) return directive;
    const value = remaining.shift();
    if (kind === 'c') return '';
    if (kind === 'd' || kind === 'i') return String(Math.trunc(Number(value)));
    if (kind === 'f') return String(Number(value));
    return stringify(value);
  });
  if (remaining.length === 0) return formatted;
  const tail = first.startsWith('%c') ? formatConsoleArgs(remaining) : remaining.map(stringify).join(' ');
  return `${formatted} ${tail}`;
}

// The workbench's log service prefixes every message with a styled level; INFO is where extension host output lands.
function withoutInfoLevel(text: string): string {
  return text.replace(/^ ?INFO /, '');
}

export interface ConsoleForwarding {
  /** Resolves when every message seen so far has been written. */
  flush(): Promise<void>;
  stop(): void;
}

/** Forwards the page console to `write` line by line (prefixed), in order, dropping offline noise. */
export function forwardConsole(page: Page, prefix: string, write: (line: string) => void): ConsoleForwarding {
  let queue = Promise.resolve();
  const emit = (text: string): void => {
    if (isOfflineNoise(text)) return;
    for (const line of text.split('\n')) write(`${prefix}${line}`);
  };
  const onConsole = (message: ConsoleMessage): void => {
    // Argument values must be fetched asynchronously; chaining keeps the original order.
    const values = Promise.all(
      message.args().map((arg) =>
        // Errors serialize to {}: take their stack inside the page instead.
        arg.evaluate((value: unknown) => (value instanceof Error ? (value.stack ?? String(value)) : value)).catch(() => '<unserializable>'),
      ),
    );
    queue = queue.then(async () => {
      const args = await values.catch(() => [message.text()]);
      emit(withoutInfoLevel(formatConsoleArgs(args.length ? args : [message.text()])));
    });
  };
  const onPageError = (error: Error): void => {
    queue = queue.then(() => emit(`pageerror: ${error.message}`));
  };
  page.on('console', onConsole);
  page.on('pageerror', onPageError);
  return {
    flush: () => queue,
    stop() {
      page.off('console', onConsole);
      page.off('pageerror', onPageError);
    },
  };
}

/** Resolves once the workbench has rendered its status bar, i.e. the UI is laid out and usable. */
export async function waitForWorkbench(page: Page, timeoutMs: number): Promise<void> {
  await page.locator('.monaco-workbench .part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
}
