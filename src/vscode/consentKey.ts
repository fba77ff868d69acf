// The per-installation key consent digests are made with (HMAC-SHA-256), kept in VS Code's SecretStorage (the OS
// keychain), never in globalState beside the digests: without it a stored digest says nothing about a value.

import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';
import type { ConsentKey } from '../core/consent/definitionHash';
import type { Logger } from '../core/logger';

const SECRET_KEY = 'mcpHealth.consentKey';
const KEY_BYTES = 32;

function decode(stored: string | undefined): ConsentKey | undefined {
  if (stored === undefined || !/^[A-Za-z0-9+/]{43}=$/.test(stored)) return undefined;
  const key = Buffer.from(stored, 'base64');
  return key.length === KEY_BYTES ? key : undefined;
}

/**
 * The stored key, or a new random one stored now. Read back after storing: when two windows start at once the last
 * write wins, and both then use it. Without a working secret store, a key for this session only (decisions made now
 * ask again after a restart; nothing is started unasked).
 */
export async function loadConsentKey(secrets: vscode.SecretStorage, logger: Logger): Promise<ConsentKey> {
  try {
    const existing = decode(await secrets.get(SECRET_KEY));
    if (existing) return existing;
    await secrets.store(SECRET_KEY, randomBytes(KEY_BYTES).toString('base64'));
    const stored = decode(await secrets.get(SECRET_KEY));
    if (stored) return stored;
    throw new Error('the stored key did not read back');
  } catch (error) {
    logger.warn(
      `consent key not available from the secret store (${error instanceof Error ? error.message : String(error)}): consent given now lasts for this session only`,
    );
    return randomBytes(KEY_BYTES);
  }
}
