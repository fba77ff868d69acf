// The present layer says each failure cause in the user's language; the core decides which cause it is and keeps the
// English the CLI's --json and the log carry. With no bundle (the CLI) both must read word for word the same, for every
// cause id: a cause reworded in src/core/causes.ts without src/present/causeText.ts (or back) fails here.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { classifyFailure, type CauseId } from '../../../src/core/causes';
import type { ServerError, ServerState, TransportKind } from '../../../src/core/model';
import { causeText } from '../../../src/present/causeText';
import { status } from './fixtures';

const realStderr = (name: string) => readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'stderr', `${name}.txt`), 'utf8');

interface Case {
  readonly state?: ServerState;
  readonly error: ServerError | null;
  readonly transport?: TransportKind;
  readonly command?: string;
  readonly nonConformant?: boolean;
}

const down = (error: ServerError, more: Omit<Case, 'error'> = {}): Case => ({ state: 'down', error, ...more });
const http = (error: ServerError): Case => down(error, { transport: 'http' });

/** Every cause id, each with the facts that lead to each of its wordings. `Record<CauseId, …>`: a new id must be added. */
const CASES: Record<CauseId, readonly Case[]> = {
  'command-not-found': [
    down({ kind: 'unreachable', message: 'spawn npx ENOENT', code: 'ENOENT' }, { command: 'npx' }),
    down(
      { kind: 'unreachable', message: 'spawn mytool ENOENT', code: 'ENOENT', searchPath: '/usr/bin:/bin' },
      { command: '/opt/mytool.exe' },
    ),
  ],
  'permission-denied': [down({ kind: 'unreachable', message: 'spawn EACCES', code: 'EACCES' })],
  'exits-at-start': [
    down({ kind: 'exited', message: 'exited', exitCode: 1, phase: 'connect', stderrTail: realStderr('stripe-no-key') }),
    down({ kind: 'exited', message: 'exited', exitCode: 2, phase: 'connect', stderrTail: realStderr('python-argparse-required') }),
    down({ kind: 'exited', message: 'exited', exitCode: 1, phase: 'connect', stderrTail: realStderr('node-missing-file') }),
    down({ kind: 'exited', message: 'exited', signal: 'SIGKILL', phase: 'connect' }),
  ],
  crashed: [
    down({ kind: 'exited', message: 'exited', exitCode: 3 }),
    down({ kind: 'exited', message: 'exited' }),
    down({ kind: 'exited', message: 'exited', exitCode: 1, stderrTail: realStderr('python-module-not-found') }),
  ],
  'connection-refused': [http({ kind: 'unreachable', message: 'connect ECONNREFUSED', code: 'ECONNREFUSED' })],
  dns: [http({ kind: 'unreachable', message: 'getaddrinfo ENOTFOUND', code: 'ENOTFOUND' })],
  'tls-self-signed': [http({ kind: 'unreachable', message: 'self signed', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' })],
  'tls-unknown-ca': [http({ kind: 'unreachable', message: 'unknown ca', code: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' })],
  'tls-expired': [http({ kind: 'unreachable', message: 'expired', code: 'CERT_HAS_EXPIRED' })],
  'tls-host-mismatch': [http({ kind: 'unreachable', message: 'altname', code: 'ERR_TLS_CERT_ALTNAME_INVALID' })],
  tls: [
    http({ kind: 'unreachable', message: 'wrong version', code: 'EPROTO' }),
    http({ kind: 'unreachable', message: 'SSL routines failed' }),
  ],
  'oauth-required': [http({ kind: 'auth', message: 'unauthorized', httpStatus: 401, authenticate: 'Bearer realm="x"' })],
  unauthorized: [http({ kind: 'auth', message: 'unauthorized', httpStatus: 401 }), http({ kind: 'auth', message: 'needs a key' })],
  forbidden: [http({ kind: 'auth', message: 'forbidden', httpStatus: 403 })],
  'wrong-path': [http({ kind: 'unreachable', message: 'not found', httpStatus: 404 })],
  proxy: [
    http({ kind: 'unreachable', message: 'proxy auth', httpStatus: 407 }),
    http({ kind: 'unreachable', message: 'connect ECONNREFUSED', code: 'ECONNREFUSED', proxy: 'HTTPS_PROXY' }),
    http({ kind: 'timeout', message: 'no answer', proxy: 'HTTPS_PROXY' }),
    http({ kind: 'unreachable', message: 'socket hang up', proxy: 'HTTPS_PROXY' }),
  ],
  'server-error': [http({ kind: 'unreachable', message: 'bad gateway', httpStatus: 502 })],
  'era-mismatch': [down({ kind: 'protocol-violation', message: 'unsupported protocol version' }, { state: 'suspect' })],
  'ignores-ping': [down({ kind: 'timeout', message: 'ping never answered' }, { nonConformant: true })],
  'protocol-violation': [down({ kind: 'protocol-violation', message: 'non-empty pong' }, { state: 'suspect' })],
  timeout: [down({ kind: 'timeout', message: 'no answer' })],
  'needs-input': [
    { state: 'needs-input', error: null },
    { state: 'needs-input', error: { kind: 'input-required', message: 'input:key' } },
  ],
  config: [{ state: 'config-error', error: { kind: 'config', message: 'bad' } }],
  'sandbox-unavailable': [
    ...[
      'SANDBOX_UNSUPPORTED_OS',
      'SANDBOX_NO_BWRAP',
      'SANDBOX_BWRAP_FAILED',
      'SANDBOX_NO_SOCAT',
      'SANDBOX_NO_RIPGREP',
      'SANDBOX_NO_SANDBOX_EXEC',
      'SANDBOX_NO_RUNTIME',
      undefined,
    ].map((code): Case => ({
      state: 'sandbox-unavailable',
      error: { kind: 'sandbox', message: 'no sandbox here', ...(code ? { code } : {}) },
    })),
  ],
  unreachable: [down({ kind: 'unreachable', message: 'socket hang up' })],
};

void describe('causeText: the same words as the core for every cause (no bundle, as the CLI runs)', () => {
  for (const [id, cases] of Object.entries(CASES)) {
    void it(id, () => {
      for (const entry of cases) {
        const transport = entry.transport ?? 'stdio';
        const server = status('srv', {
          state: entry.state ?? 'down',
          lastError: entry.error,
          config: { transport, ...(transport === 'stdio' ? { command: entry.command ?? 'node' } : { url: 'https://h.example.test/mcp' }) },
        });
        const cause = classifyFailure({
          state: server.state,
          error: entry.error,
          transport,
          command: server.config.command,
          name: 'srv',
          nonConformant: entry.nonConformant,
        });
        assert.ok(cause, `no cause for ${JSON.stringify(entry)}`);
        assert.equal(cause.id, id, 'the case leads to the cause it is listed under');
        assert.deepEqual(causeText(cause, server), { id, summary: cause.summary, nextStep: cause.nextStep });
      }
    });
  }
});
