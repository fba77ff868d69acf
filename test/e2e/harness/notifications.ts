import type { Locator, Page } from 'playwright-core';

/**
 * A workbench notification, as a toast or, when the workbench did not pop it up (headless Chromium without window
 * focus sometimes keeps it in the center), in the notification center the status bar bell opens: the same
 * notification with the same buttons.
 */
export async function findNotification(page: Page, message: RegExp, timeoutMs: number): Promise<Locator> {
  const item = page.locator('.notification-list-item', { hasText: message }).first();
  const started = Date.now();
  while (!(await item.isVisible())) {
    if (Date.now() > started + timeoutMs) throw new Error(`no notification ${message} within ${timeoutMs} ms`);
    const bell = page.locator('.part.statusbar .statusbar-item[id*="notifications" i]').first();
    const center = page.locator('.notifications-center.visible');
    if (Date.now() > started + 10_000 && !(await center.isVisible()) && (await bell.isVisible())) await bell.click();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return item;
}

/** Clicks a button of a notification, e.g. MCP Health's "Allow", as a user would. */
export async function clickNotificationButton(page: Page, message: RegExp, button: string, timeoutMs = 15_000): Promise<void> {
  const item = await findNotification(page, message, timeoutMs);
  await item
    .locator('.monaco-button', { hasText: new RegExp(`^${button}$`) })
    .first()
    .click();
}

/** MCP Health's consent question, whatever the count and files. */
export const consentQuestion = /MCP Health found \d+ servers? in .*\. Start watching (them|it)\?/;
