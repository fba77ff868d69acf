import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONSENT_STORAGE_KEY, CONSENT_STORE_VERSION, ConsentStore, parseConsentRecord, type ConsentStorage } from '../../../src/core/consent/consentStore';
import { definitionHash } from '../../../src/core/consent/definitionHash';
import type { Logger } from '../../../src/core/logger';
import { server } from '../monitor/harness';

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
  return { warnings, trace: none, debug: none, info: none, warn: (message) => warnings.push(message), error: (message) => warnings.push(message) };
}

void describe('definition hash', () => {
  const base = server('gh', { command: 'npx', args: ['-y', 'server-github'], env: { GITHUB_TOKEN: 'ghp_secret1' }, cwd: '/w' });

  void it('changes with what would run: command, args, cwd, env names, URL, header names', () => {
    const hash = definitionHash(base);
    assert.match(hash, /^[0-9a-f]{64}$/);
    for (const changed of [
      { ...base, command: 'node' },
      { ...base, args: ['-y', 'server-github', '--extra'] },
      { ...base, cwd: '/elsewhere' },
      { ...base, env: { GITHUB_TOKEN: 'ghp_secret1', NODE_OPTIONS: '--inspect' } },
      { ...base, envFile: '/w/.env' },
      { ...base, transport: 'http' as const, url: 'http://127.0.0.1:1/mcp' },
      { ...base, headers: { Authorization: 'Bearer x' } },
    ]) {
      assert.notEqual(definitionHash(changed), hash, JSON.stringify(changed));
    }
  });

  void it('does not depend on env or header values (a rotated token is the same definition) nor on name order', () => {
    assert.equal(definitionHash({ ...base, env: { GITHUB_TOKEN: 'ghp_rotated' } }), definitionHash(base));
    const a = server('h', { transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: { A: '1', Authorization: 'x' } });
    const b = { ...a, headers: { authorization: 'y', A: '2' } };
    assert.equal(definitionHash(a), definitionHash(b));
    assert.equal(definitionHash({ ...base, env: { B: '1', A: '2' } }), definitionHash({ ...base, env: { A: '3', B: '4' } }));
  });

  void it('ignores a cwd that only comes from the window (a user-level server in another folder is the same definition)', () => {
    const inWindow = (folder: string) => ({ ...base, cwd: folder, cwdFromWindow: true as const });
    assert.equal(definitionHash(inWindow('/ws1')), definitionHash(inWindow('/ws2')));
    assert.notEqual(definitionHash({ ...base, cwd: '/ws1' }), definitionHash({ ...base, cwd: '/ws2' }), 'a cwd set in the file still counts');
  });
});

void describe('consent store', () => {
  const a = server('a');
  const b = server('b');

  void it('remembers allowed definitions across instances and asks again when the definition changes', async () => {
    const storage = memory();
    const store = new ConsentStore(storage, recordingLogger());
    assert.equal(store.isAllowed(a), false);
    await store.allow([a, b]);
    const again = new ConsentStore(storage, recordingLogger());
    assert.equal(again.isAllowed(a), true);
    assert.equal(again.isAllowed({ ...a, args: ['a.js', '--changed'] }), false);
    await again.withdraw([a.id]);
    assert.equal(new ConsentStore(storage, recordingLogger()).isAllowed(a), false);
    assert.equal(new ConsentStore(storage, recordingLogger()).isAllowed(b), true);
    await again.reset();
    assert.deepEqual(storage.value, { version: CONSENT_STORE_VERSION, allowed: {} });
  });

  void it('ignores a corrupt or older-version store with one log line, and everything asks again', async () => {
    const valid = { version: CONSENT_STORE_VERSION, allowed: { [a.id]: definitionHash(a) } };
    const bad: unknown[] = [
      'garbage', 42, null, [valid], {},
      { version: 0, allowed: { [a.id]: definitionHash(a) } },
      { version: CONSENT_STORE_VERSION + 1, allowed: {} },
      { version: CONSENT_STORE_VERSION, allowed: [] },
      { version: CONSENT_STORE_VERSION, allowed: { [a.id]: 7 } },
      { version: CONSENT_STORE_VERSION, allowed: { [a.id]: 'yes' } },
    ];
    for (const raw of bad) {
      const logger = recordingLogger();
      const store = new ConsentStore(memory(raw), logger);
      assert.equal(store.isAllowed(a), false, JSON.stringify(raw));
      assert.equal(logger.warnings.length, 1, JSON.stringify(raw));
      assert.match(logger.warnings[0] ?? '', /consent decisions ignored .*asks for consent again/);
      assert.equal(parseConsentRecord(raw).ok, false);
    }
    const logger = recordingLogger();
    assert.equal(new ConsentStore(memory(valid), logger).isAllowed(a), true);
    assert.equal(new ConsentStore(memory(undefined), logger).isAllowed(a), false);
    assert.deepEqual(logger.warnings, [], 'a valid or never-written store logs nothing');
    // A store that was ignored is rewritten whole by the next decision.
    const storage = memory('garbage');
    await new ConsentStore(storage, recordingLogger()).allow([b]);
    assert.deepEqual(storage.value, { version: CONSENT_STORE_VERSION, allowed: { [b.id]: definitionHash(b) } });
  });

  void it('sees a decision another window stored in the shared storage, without being recreated', async () => {
    const shared = memory();
    const windowA = new ConsentStore(shared, recordingLogger());
    const logger = recordingLogger();
    const windowB = new ConsentStore(shared, logger);
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
    await new ConsentStore(storage, recordingLogger()).allow([server('s', { env: { API_KEY: secret }, headers: { Authorization: `Bearer ${secret}` } })]);
    assert.ok(!JSON.stringify(storage.value).includes(secret));
  });
});
