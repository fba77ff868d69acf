// Driving VS Code's quick input from outside, as a user does: the command palette and a pick list.
import type { Page } from 'playwright-core';

const VISIBLE_MS = 10_000;

/**
 * Runs a command by its palette title (F1, type, wait for the row, Enter). A palette closed under the typing (focus
 * taken by a view or a notification that opened meanwhile) is opened once more, as a user would press F1 again.
 */
export async function runCommand(page: Page, title: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    try {
      await pick(page, title, `>${title}`);
      return;
    } catch (error) {
      if (attempt === 2 || (error as Error).name !== 'TimeoutError') throw error;
      await page.keyboard.press('Escape');
    }
  }
}

/** Chooses the row labelled `label` in an open quick pick, typing `filter` (default: the label) first. */
export async function pick(page: Page, label: string, filter = label): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: VISIBLE_MS });
  await input.fill(filter, { timeout: VISIBLE_MS });
  await page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ state: 'visible', timeout: VISIBLE_MS });
  await page.keyboard.press('Enter');
}
