import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createHash, createHmac } from 'node:crypto';
import {
  CONSENT_STORAGE_KEY,
  CONSENT_STORE_VERSION,
  ConsentStore,
  parseConsentRecord,
  type ConsentStorage,
} from '../../../../src/core/consent/consentStore';
import {
  changedParts,
  definitionHash,
  definitionParts,
  legacyDefinitionHash,
  type ConsentKey,
} from '../../../../src/core/consent/definitionHash';
import type { Logger } from '../../../../src/core/logger';
import type { ServerConfig } from '../../../../src/core/model';
import { server } from '../monitor/harness';

const KEY: ConsentKey = Buffer.alloc(32, 7);
const OTHER_KEY: ConsentKey = Buffer.alloc(32, 9);
const hashOf = (config: ServerConfig, key: ConsentKey = KEY) => definitionHash(config, key);
const allowedEntry = (config: ServerConfig) => ({ hash: hashOf(config), parts: definitionParts(config, KEY) });

function memory(initial?: unknown): ConsentStorage & { value: unknown } {
  const store = {
    value: initial,
    get: (key: string) => (key === CONSENT_STORAGE_KEY ? store.value : undefined),
    update: (key: string, value: unknown) => {
      assert.equal(key, CONSENT_STORAGE_KEY);
      store.value = JSON.parse(JSON.stringify(value)) as unknown;
      return Promise.resolve();
    },
  };
  return store;
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const none = () => undefined;
  return {
    warnings,
    trace: none,
    debug: none,
    info: none,
    warn: (message) => warnings.push(message),
    error: (message) => warnings.push(message),
  };
}

void describe('definition hash', () => {
  const base = server('gh', {
    command: 'npx',
    args: ['-y', 'server-github'],
    env: { GITHUB_TOKEN: 'ghp_secret1', NODE_OPTIONS: '--max-old-space-size=512' },
    cwd: '/w',
  });

  void it('changes with what would run: command, args, cwd, env names and values, URL, header names', () => {
    const hash = hashOf(base);
    assert.match(hash, /^[0-9a-f]{64}$/);
    for (const changed of [
      { ...base, command: 'node' },
      { ...base, args: ['-y', 'server-github', '--extra'] },
      { ...base, cwd: '/elsewhere' },
      { ...base, env: { ...base.env, PYTHONPATH: '/x' } },
      { ...base, env: { ...base.env, NODE_OPTIONS: '--require ./x.js' } },
      { ...base, env: { ...base.env, GITHUB_TOKEN: 'ghp_other' } },
      { ...base, envFile: '/w/.env' },
      { ...base, transport: 'http' as const, url: 'http://127.0.0.1:1/mcp' },
      { ...base, headers: { Authorization: 'Bearer x' } },
    ]) {
      assert.notEqual(hashOf(changed), hash, JSON.stringify(changed));
    }
  });

  void it('a user-level file keeps consent when a secret-named value rotates, never when another value changes', () => {
    const user = server('gh', { ...base, scope: 'user' });
    assert.equal(hashOf({ ...user, env: { ...user.env, GITHUB_TOKEN: 'ghp_rotated' } }), hashOf(user));
    assert.notEqual(hashOf({ ...user, env: { ...user.env, NODE_OPTIONS: '--require ./x.js' } }), hashOf(user));
    assert.notEqual(hashOf({ ...user, env: { ...user.env, LD_PRELOAD: '/tmp/x.so' } }), hashOf(user));
  });

  void it('does not depend on header values nor on name order', () => {
    const a = server('h', { transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: { A: '1', Authorization: 'x' } });
    const b = { ...a, headers: { authorization: 'y', A: '2' } };
    assert.equal(hashOf(a), hashOf(b));
    assert.equal(hashOf({ ...base, env: { B: '1', A: '2' } }), hashOf({ ...base, env: { A: '2', B: '1' } }));
  });

  void it('is an HMAC under the installation key: another key gives other digests, and no part is a plain hash', () => {
    assert.notEqual(hashOf(base, OTHER_KEY), hashOf(base));
    const parts = definitionParts(base, KEY);
    const value = '--max-old-space-size=512';
    const plain = [value, JSON.stringify(value), JSON.stringify([2, 'env:NODE_OPTIONS', value])].map((text) =>
      createHash('sha256').update(text).digest('hex'),
    );
    for (const digest of Object.values(parts)) assert.ok(!plain.includes(digest), 'a plain SHA-256 of a value is stored');
    assert.equal(
      parts['env:NODE_OPTIONS'],
      createHmac('sha256', KEY)
        .update(JSON.stringify([2, 'env:NODE_OPTIONS', value]))
        .digest('hex'),
    );
  });

  void it('hashes an input as `${input:id}`, not the value the user supplied', () => {
    const written = { args: ['--token', '${input:token}'], env: { SECRET: '${input:token}' } };
    const supplied = { ...base, args: ['--token', 'tok-1'], env: { SECRET: 'tok-1' } };
    const waiting = { ...base, ...written, missingInputs: ['token'] };
    assert.equal(hashOf({ ...supplied, asWritten: written }), hashOf(waiting));
    assert.equal(hashOf({ ...base, args: ['--token', 'tok-2'], env: { SECRET: 'tok-2' }, asWritten: written }), hashOf(waiting));
  });

  void it('names what changed: an env value, an added variable, the arguments', () => {
    const before = definitionParts(base, KEY);
    assert.deepEqual(changedParts(before, definitionParts({ ...base, env: { ...base.env, NODE_OPTIONS: '--require ./x.js' } }, KEY)), [
      { kind: 'changed', part: 'env', name: 'NODE_OPTIONS' },
    ]);
    assert.deepEqual(
      changedParts(
        before,
        definitionParts({ ...base, args: ['x'], env: { NODE_OPTIONS: '--max-old-space-size=512', BASH_ENV: '/x' } }, KEY),
      ),
      [
        { kind: 'changed', part: 'args' },
        { kind: 'added', part: 'env', name: 'BASH_ENV' },
        { kind: 'removed', part: 'env', name: 'GITHUB_TOKEN' },
      ],
    );
    assert.deepEqual(changedParts(before, before), []);
  });

  void it('ignores a cwd that only comes from the window (a user-level server in another folder is the same definition)', () => {
    const inWindow = (folder: string) => ({ ...base, cwd: folder, cwdFromWindow: true as const });
    assert.equal(hashOf(inWindow('/ws1')), hashOf(inWindow('/ws2')));
    assert.notEqual(hashOf({ ...base, cwd: '/ws1' }), hashOf({ ...base, cwd: '/ws2' }), 'a cwd set in the file still counts');
  });
});

void describe('consent store', () => {
  const a = server('a');
  const b = server('b');

  void it('remembers allowed definitions across instances and asks again when the definition changes', async () => {
    const storage = memory();
    const store = new ConsentStore(storage, recordingLogger(), () => KEY);
    assert.equal(store.isAllowed(a), false);
    await store.allow([a, b]);
    const again = new ConsentStore(storage, recordingLogger(), () => KEY);
    assert.equal(again.isAllowed(a), true);
    assert.equal(again.isAllowed({ ...a, args: ['a.js', '--changed'] }), false);
    await again.withdraw([a.id]);
    assert.equal(new ConsentStore(storage, recordingLogger(), () => KEY).isAllowed(a), false);
    assert.equal(new ConsentStore(storage, recordingLogger(), () => KEY).isAllowed(b), true);
    await again.reset();
    assert.deepEqual(storage.value, { version: CONSENT_STORE_VERSION, allowed: {} });
  });

  void it('ignores a corrupt or older-version store with one log line, and everything asks again', async () => {
    const valid = { version: CONSENT_STORE_VERSION, allowed: { [a.id]: allowedEntry(a) } };
    const bad: unknown[] = [
      'garbage',
      42,
      null,
      [valid],
      {},
      { version: 0, allowed: { [a.id]: hashOf(a) } },
      { version: CONSENT_STORE_VERSION + 1, allowed: {} },
      { version: CONSENT_STORE_VERSION, allowed: [] },
      { version: CONSENT_STORE_VERSION, allowed: { [a.id]: 7 } },
      { version: CONSENT_STORE_VERSION, allowed: { [a.id]: 'yes' } },
      { version: CONSENT_STORE_VERSION, allowed: { [a.id]: hashOf(a) } },
      { version: CONSENT_STORE_VERSION, allowed: { [a.id]: { hash: hashOf(a), parts: { command: 'x' } } } },
      { version: 1, allowed: { [a.id]: 'yes' } },
    ];
    for (const raw of bad) {
      const logger = recordingLogger();
      const store = new ConsentStore(memory(raw), logger, () => KEY);
      assert.equal(store.isAllowed(a), false, JSON.stringify(raw));
      assert.equal(logger.warnings.length, 1, JSON.stringify(raw));
      assert.match(logger.warnings[0] ?? '', /consent decisions ignored .*asks for consent again/);
      assert.equal(parseConsentRecord(raw).ok, false);
    }
    const logger = recordingLogger();
    assert.equal(new ConsentStore(memory(valid), logger, () => KEY).isAllowed(a), true);
    assert.equal(new ConsentStore(memory(undefined), logger, () => KEY).isAllowed(a), false);
    assert.deepEqual(logger.warnings, [], 'a valid or never-written store logs nothing');
    // A store that was ignored is rewritten whole by the next decision.
    const storage = memory('garbage');
    await new ConsentStore(storage, recordingLogger(), () => KEY).allow([b]);
    assert.deepEqual(storage.value, { version: CONSENT_STORE_VERSION, allowed: { [b.id]: allowedEntry(b) } });
  });

  void it('sees a decision another window stored in the shared storage, without being recreated', async () => {
    const shared = memory();
    const windowA = new ConsentStore(shared, recordingLogger(), () => KEY);
    const logger = recordingLogger();
    const windowB = new ConsentStore(shared, logger, () => KEY);
    assert.equal(windowB.isAllowed(a), false);
    await windowA.allow([a]);
    assert.equal(windowB.isAllowed(a), true);
    await windowB.withdraw([a.id]);
    assert.equal(windowA.isAllowed(a), false);
    shared.value = 'garbage';
    assert.equal(windowB.isAllowed(a), false);
    assert.equal(windowB.isAllowed(b), false);
    assert.equal(logger.warnings.length, 1, 'a corrupt store is reported once, not once per server');
  });

  void it('keeps no env or header value in what it stores', async () => {
    const storage = memory();
    const secret = 'sk-live-0123456789abcdef';
    await new ConsentStore(storage, recordingLogger(), () => KEY).allow([
      server('s', { env: { API_KEY: secret }, headers: { Authorization: `Bearer ${secret}` } }),
    ]);
    assert.ok(!JSON.stringify(storage.value).includes(secret));
  });

  void it('keeps no value and no plain hash of one in what it stores, and says what changed', async () => {
    const storage = memory();
    const secret = 'sk-live-0123456789abcdef';
    const config = server('s', {
      env: { API_KEY: secret, NODE_OPTIONS: '--max-old-space-size=512' },
      headers: { Authorization: `Bearer ${secret}` },
    });
    const store = new ConsentStore(storage, recordingLogger(), () => KEY);
    assert.equal(store.changes(config), null, 'never allowed: new, not changed');
    await store.allow([config]);
    const stored = JSON.stringify(storage.value);
    assert.ok(!stored.includes(secret) && !stored.includes('max-old-space'));
    assert.ok(!stored.includes(createHash('sha256').update(secret).digest('hex')));
    const changed = { ...config, env: { ...config.env, NODE_OPTIONS: '--require ./x.js' } };
    assert.equal(store.isAllowed(changed), false);
    assert.deepEqual(store.changes(changed), [{ kind: 'changed', part: 'env', name: 'NODE_OPTIONS' }]);
    assert.equal(new ConsentStore(storage, recordingLogger(), () => OTHER_KEY).isAllowed(config), false, 'another installation key');
  });

  void it('allows nothing before the key is loaded', async () => {
    const storage = memory();
    await new ConsentStore(storage, recordingLogger(), () => KEY).allow([a]);
    const locked = new ConsentStore(storage, recordingLogger(), () => undefined);
    assert.equal(locked.isAllowed(a), false);
    await assert.rejects(locked.allow([a]));
  });

  void it('carries version-1 decisions over for user-level servers only, then sees their later changes', async () => {
    const user = server('u', { scope: 'user', env: { NODE_OPTIONS: '--max-old-space-size=512' } });
    const workspace = server('w', { env: { NODE_OPTIONS: '--max-old-space-size=512' } });
    const storage = memory({
      version: 1,
      allowed: { [user.id]: legacyDefinitionHash(user), [workspace.id]: legacyDefinitionHash(workspace) },
    });
    const logger = recordingLogger();
    const store = new ConsentStore(storage, logger, () => KEY);
    assert.deepEqual(logger.warnings, [], 'a version-1 store is read, not rejected');
    assert.equal(store.isAllowed(user), true);
    assert.equal(store.isAllowed(workspace), false, 'workspace servers ask once after the upgrade');
    assert.equal(store.isAllowed({ ...user, args: ['changed'] }), false);
    await store.adoptLegacy([user, workspace]);
    assert.deepEqual(storage.value, {
      version: CONSENT_STORE_VERSION,
      allowed: { [user.id]: allowedEntry(user) },
      legacy: { [workspace.id]: legacyDefinitionHash(workspace) },
    });
    const after = new ConsentStore(storage, recordingLogger(), () => KEY);
    assert.equal(after.isAllowed(user), true);
    assert.equal(after.isAllowed({ ...user, env: { NODE_OPTIONS: '--require ./x.js' } }), false, 'adopted with its values: a change asks');
    await after.reset();
    assert.deepEqual(storage.value, { version: CONSENT_STORE_VERSION, allowed: {} });
  });
});
