// The cause table: one row per cause a user can act on, from the structured facts a failure carries.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyFailure, type CauseId, type CauseInput } from '../../../src/core/causes';
import type { ServerError } from '../../../src/core/model';

interface Row {
  readonly name: string;
  readonly input: Partial<CauseInput> & { error: ServerError | null };
  readonly id: CauseId | null;
  readonly summary?: RegExp;
  readonly nextStep?: RegExp;
}

const down = (error: ServerError, extra: Partial<CauseInput> = {}) => ({ state: 'down' as const, error, ...extra });

const rows: Row[] = [
  {
    name: 'npx missing, with the PATH the server saw',
    input: down(
      {
        kind: 'unreachable',
        message: 'Cannot start "npx": command not found (ENOENT)',
        code: 'ENOENT',
        searchPath: '/usr/bin:/bin',
        phase: 'connect',
      },
      { command: 'npx' },
    ),
    id: 'command-not-found',
    summary: /"npx" was not found on the PATH it saw \(\/usr\/bin:\/bin\)/,
    nextStep: /Install Node\.js/,
  },
  {
    name: 'uvx missing',
    input: down({ kind: 'unreachable', message: 'x', code: 'ENOENT' }, { command: '/opt/bin/uvx' }),
    id: 'command-not-found',
    nextStep: /Install uv/,
  },
  {
    name: 'docker missing',
    input: down({ kind: 'unreachable', message: 'x', code: 'ENOENT' }, { command: 'docker' }),
    id: 'command-not-found',
    nextStep: /Install Docker/,
  },
  {
    name: 'not executable',
    input: down({ kind: 'unreachable', message: 'x', code: 'EACCES' }, { command: './server.sh' }),
    id: 'permission-denied',
    nextStep: /chmod \+x/,
  },
  {
    name: 'exits at start with code and stderr tail',
    input: down({
      kind: 'exited',
      message: 'Process exited with code 3 while connecting',
      exitCode: 3,
      stderrTail: 'booting\nError: GITHUB_TOKEN is not set\n',
      phase: 'connect',
    }),
    id: 'exits-at-start',
    summary: /exited with code 3 while starting: Error: GITHUB_TOKEN is not set/,
  },
  {
    name: 'crash after running',
    input: down({ kind: 'exited', message: 'Process was killed by SIGSEGV', signal: 'SIGSEGV', phase: 'session' }),
    id: 'crashed',
    summary: /killed by SIGSEGV/,
  },
  {
    name: 'refused',
    input: down(
      { kind: 'unreachable', message: 'http://127.0.0.1:9/mcp: connection refused (ECONNREFUSED)', code: 'ECONNREFUSED' },
      { transport: 'http' },
    ),
    id: 'connection-refused',
  },
  {
    name: 'refused behind a proxy',
    input: down({ kind: 'unreachable', message: 'x', code: 'ECONNREFUSED', proxy: 'HTTPS_PROXY=http://proxy:3128' }, { transport: 'http' }),
    id: 'proxy',
    nextStep: /NO_PROXY/,
  },
  { name: 'DNS', input: down({ kind: 'unreachable', message: 'host not found', code: 'ENOTFOUND' }, { transport: 'http' }), id: 'dns' },
  {
    name: 'self-signed',
    input: down({ kind: 'unreachable', message: 'fetch failed', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }, { transport: 'http' }),
    id: 'tls-self-signed',
    nextStep: /NODE_EXTRA_CA_CERTS/,
  },
  {
    name: 'unknown CA',
    input: down({ kind: 'unreachable', message: 'fetch failed', code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }, { transport: 'http' }),
    id: 'tls-unknown-ca',
  },
  {
    name: 'expired',
    input: down({ kind: 'unreachable', message: 'fetch failed', code: 'CERT_HAS_EXPIRED' }, { transport: 'http' }),
    id: 'tls-expired',
    summary: /expired/,
  },
  {
    name: 'host mismatch',
    input: down({ kind: 'unreachable', message: 'x', code: 'ERR_TLS_CERT_ALTNAME_INVALID' }, { transport: 'http' }),
    id: 'tls-host-mismatch',
  },
  {
    name: '401 with a Bearer challenge: OAuth',
    input: {
      state: 'auth-required',
      transport: 'http',
      error: {
        kind: 'auth',
        message: 'HTTP 401',
        httpStatus: 401,
        authenticate: 'Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"',
      },
    },
    id: 'oauth-required',
    nextStep: /sign in through your MCP client/i,
  },
  {
    name: '401 without a challenge',
    input: { state: 'auth-required', transport: 'http', error: { kind: 'auth', message: 'HTTP 401', httpStatus: 401 } },
    id: 'unauthorized',
  },
  {
    name: '403',
    input: { state: 'auth-required', transport: 'http', error: { kind: 'auth', message: 'HTTP 403', httpStatus: 403 } },
    id: 'forbidden',
  },
  {
    name: '404 on the url',
    input: down({ kind: 'unreachable', message: 'answered HTTP 404', httpStatus: 404 }, { transport: 'http' }),
    id: 'wrong-path',
    nextStep: /path/,
  },
  {
    name: '407 from a proxy',
    input: down({ kind: 'protocol-violation', message: 'HTTP 407', httpStatus: 407 }, { transport: 'http' }),
    id: 'proxy',
  },
  { name: '503', input: down({ kind: 'unreachable', message: 'HTTP 503', httpStatus: 503 }, { transport: 'http' }), id: 'server-error' },
  {
    name: 'era mismatch',
    input: down({ kind: 'protocol-violation', message: 'Server protocol version is not supported: 1999-01-01' }),
    id: 'era-mismatch',
  },
  {
    name: 'ignores ping but answers tools/list',
    input: {
      state: 'suspect',
      transport: 'stdio',
      nonConformant: true,
      error: { kind: 'protocol-violation', message: 'ping is never answered, but tools/list is: probing with tools/list' },
    },
    id: 'ignores-ping',
  },
  {
    name: 'other violation',
    input: {
      state: 'suspect',
      transport: 'stdio',
      error: { kind: 'protocol-violation', message: 'ping answered with a non-empty result' },
    },
    id: 'protocol-violation',
  },
  { name: 'timeout', input: down({ kind: 'timeout', message: 'no answer to ping within 5000 ms', phase: 'probe' }), id: 'timeout' },
  {
    name: 'needs input',
    input: { state: 'needs-input', transport: 'stdio', error: { kind: 'input-required', message: 'x' } },
    id: 'needs-input',
  },
  { name: 'config error', input: { state: 'config-error', transport: 'stdio', error: { kind: 'config', message: 'bad' } }, id: 'config' },
  { name: 'up needs no cause', input: { state: 'up', transport: 'stdio', error: { kind: 'exited', message: 'old crash' } }, id: null },
  { name: 'disabled needs no cause', input: { state: 'disabled', transport: 'stdio', error: null }, id: null },
];

describe('classifyFailure', () => {
  for (const row of rows) {
    it(row.name, () => {
      const found = classifyFailure({ state: 'down', transport: 'stdio', ...row.input });
      assert.equal(found?.id ?? null, row.id);
      if (row.summary) assert.match(found!.summary, row.summary);
      if (row.nextStep) assert.match(found!.nextStep, row.nextStep);
      if (found) assert.ok(found.nextStep.length > 0);
    });
  }

  it('prefers the error code to the message text', () => {
    const found = classifyFailure({
      state: 'down',
      transport: 'http',
      error: { kind: 'unreachable', message: 'connection refused (certificate)', code: 'CERT_HAS_EXPIRED' },
    });
    assert.equal(found?.id, 'tls-expired');
  });
});
