import * as fs from 'node:fs';
import * as path from 'node:path';

/*
 * Screenshot protocol between a suite running in the extension host and the harness driving the browser:
 * 1. runSuite starts code-server with MCP_HEALTH_E2E_SCREENSHOTS=<screenshots dir> in its environment, which the
 *    extension host inherits.
 * 2. The suite prints `[[screenshot:NAME]]` (NAME: letters, digits, `.`, `_`, `-`) with console.log; the extension
 *    host's console reaches the page console, where the harness sees it.
 * 3. The harness saves the page as <dir>/NAME.png, written under a temp name and renamed, so the file appearing means done.
 * 4. The suite waits for that file (requestScreenshot below does 2 and 4) before changing the UI again.
 * Outside runSuite (e.g. test-electron) the variable is unset and requestScreenshot returns false at once.
 */

export const screenshotsDirEnv = 'MCP_HEALTH_E2E_SCREENSHOTS';

const markerPattern = /\[\[screenshot:([A-Za-z0-9._-]+)\]\]/;

export function screenshotMarker(name: string): string {
  if (!/^[A-Za-z0-9._-]+$/.test(name)) {
    throw new Error(`invalid screenshot name ${JSON.stringify(name)}`);
  }
  return `[[screenshot:${name}]]`;
}

export function parseScreenshotRequest(consoleText: string): string | undefined {
  return markerPattern.exec(consoleText)?.[1];
}

/** For suites: asks the harness for a screenshot and waits until it is on disk. True when one was taken. */
export async function requestScreenshot(name: string, timeoutMs = 10_000): Promise<boolean> {
  const dir = process.env[screenshotsDirEnv];
  const marker = screenshotMarker(name);
  if (!dir) return false;
  const file = path.join(dir, `${name}.png`);
  fs.rmSync(file, { force: true });
  console.log(marker);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (fs.existsSync(file)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`harness did not save screenshot ${file} within ${timeoutMs} ms`);
}
