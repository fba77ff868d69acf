// Driving VS Code's quick input from outside, as a user does: the command palette and a pick list.
import type { Page } from 'playwright-core';

const VISIBLE_MS = 10_000;

/** Runs a command by its palette title (F1, type, wait for the row, Enter). */
export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  await pick(page, title, `>${title}`);
}

/** Chooses the row labelled `label` in an open quick pick, typing `filter` (default: the label) first. */
export async function pick(page: Page, label: string, filter = label): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: VISIBLE_MS });
  await input.fill(filter);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ state: 'visible', timeout: VISIBLE_MS });
  await page.keyboard.press('Enter');
}
