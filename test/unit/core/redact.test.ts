import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  describeTarget,
  isSecretName,
  makeRedactor,
  MASK,
  redactEnv,
  redactHeaders,
  redactText,
  redactUrl,
  urlCredential,
} from '../../../src/core/redact';

void describe('isSecretName', () => {
  void it('matches credential-like names in any case', () => {
    for (const name of [
      'GITHUB_TOKEN',
      'api_key',
      'ApiKey',
      'X-API-Key',
      'CLIENT_SECRET',
      'DB_PASSWORD',
      'passwd',
      'Authorization',
      'Proxy-Authorization',
      'Cookie',
      'Set-Cookie',
      'SESSION_ID',
      'bearer',
      'AWS_CREDENTIALS',
      'private_key',
    ]) {
      assert.ok(isSecretName(name), name);
    }
  });

  void it('leaves ordinary names alone', () => {
    for (const name of ['PATH', 'HOME', 'PWD', 'NODE_ENV', 'PORT', 'LOG_LEVEL', 'Content-Type', 'Accept', 'X-Team']) {
      assert.ok(!isSecretName(name), name);
    }
  });
});

void describe('redactEnv and redactHeaders', () => {
  void it('masks secret-named env values and known secret values under any name', () => {
    assert.deepEqual(redactEnv({ GITHUB_TOKEN: 'ghp_abc', PORT: '3000', DB: 'hunter22', URL: 'https://x/?q=hunter22' }, ['hunter22']), {
      GITHUB_TOKEN: '***',
      PORT: '3000',
      DB: '***',
      URL: 'https://x/?q=***',
    });
    assert.deepEqual(redactEnv(undefined), {});
  });

  void it('keeps the auth scheme of a credential header', () => {
    assert.deepEqual(
      redactHeaders({
        Authorization: 'Bearer eyJhbGciOi.abc',
        'proxy-authorization': 'Basic dXNlcjpwYXNz',
        Cookie: 'sid=abc; theme=dark',
        'X-API-Key': 'k-123456',
        Accept: 'application/json',
      }),
      {
        Authorization: 'Bearer ***',
        'proxy-authorization': 'Basic ***',
        Cookie: '***',
        'X-API-Key': '***',
        Accept: 'application/json',
      },
    );
  });
});

void describe('redactUrl', () => {
  void it('masks userinfo passwords, lone usernames and secret query values, and nothing else', () => {
    assert.equal(redactUrl('https://user:pa55word@host.test:8443/mcp?x=1'), 'https://user:***@host.test:8443/mcp?x=1');
    assert.equal(redactUrl('https://ghp_tokenonly@github.test/mcp'), 'https://***@github.test/mcp');
    assert.equal(
      redactUrl('https://host.test/mcp?api_key=abc&region=eu&access_token=xyz#frag'),
      'https://host.test/mcp?api_key=***&region=eu&access_token=***#frag',
    );
    assert.equal(redactUrl('https://host.test/mcp?q=%20a%20b&Token=1'), 'https://host.test/mcp?q=%20a%20b&Token=***');
    assert.equal(redactUrl('http://127.0.0.1:3001/mcp'), 'http://127.0.0.1:3001/mcp');
    assert.equal(redactUrl('not a url?password=x'), 'not a url?password=***');
  });
});

void describe('redactText', () => {
  void it('replaces every known secret of four characters or more, longest first, and its URL-encoded form', () => {
    const secrets = ['abc', 's3cret', 's3cret-and-more', 'a b/c?'];
    assert.equal(
      redactText('s3cret-and-more then s3cret twice s3cret; abc stays; a b/c? and a%20b%2Fc%3F', secrets),
      '*** then *** twice ***; abc stays; *** and ***',
    );
    assert.equal(redactText('nothing here', []), 'nothing here');
  });
});

void describe('describeTarget', () => {
  void it('shows a stdio command with its arguments, credentials masked', () => {
    assert.equal(
      describeTarget({
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'server', '--api-key', 'k-1', '--token=t-2', '--port', '80', 'my file.txt', 'https://u:p4ss@h/x'],
        secretValues: [],
      }),
      'npx -y server --api-key *** --token=*** --port 80 "my file.txt" https://u:***@h/x',
    );
  });

  void it('masks known secret values appearing in arguments', () => {
    assert.equal(
      describeTarget({ transport: 'stdio', command: 'run', args: ['--db=postgres://x:hunter22@db'], secretValues: ['hunter22'] }),
      'run --db=postgres://x:***@db',
    );
  });

  void it('shows a remote server as its redacted URL', () => {
    assert.equal(describeTarget({ transport: 'http', url: 'https://h.test/mcp?key=abc' }), 'https://h.test/mcp?key=***');
    assert.equal(
      describeTarget({ transport: 'sse', url: 'https://h.test/sse/tok-9876', secretValues: ['tok-9876'] }),
      'https://h.test/sse/***',
    );
  });
});

void describe('the one redactor', () => {
  const secret = 'p@ss w0rd/+&"x';
  const spellings: readonly [string, string][] = [
    ['raw', secret],
    ['encodeURIComponent', encodeURIComponent(secret)],
    ['encodeURI', encodeURI(secret)],
    ['form', new URLSearchParams({ v: secret }).toString().slice(2)],
    [
      'URL userinfo',
      (() => {
        const url = new URL('http://example.invalid/');
        url.password = secret;
        return url.password;
      })(),
    ],
    ['JSON', JSON.stringify(secret).slice(1, -1)],
  ];
  for (const [name, spelling] of spellings) {
    void it(`masks the ${name} spelling with the one mask`, () => {
      assert.equal(makeRedactor([secret])(`before ${spelling} after`), `before ${MASK} after`);
    });
  }

  void it('masks the decoded form of a secret configured percent-encoded', () => {
    assert.equal(makeRedactor(['p%40ssword'])('got p@ssword and p%40ssword'), `got ${MASK} and ${MASK}`);
  });

  void it('masks a secret containing another whole, skips values under four characters, then runs the general redactor', () => {
    const redact = makeRedactor(['abcd', 'abcdefgh', 'xy'], (text) => text.replace('tail', 'TAIL'));
    assert.equal(redact('abcdefgh abcd xy tail'), `${MASK} ${MASK} xy TAIL`);
    assert.equal(MASK, '***');
  });

  void it('masks a URL password holding a raw @ whole, in the URL and as reported by the URL parser', () => {
    const raw = 'https://user:p@ss@w0rd@example.invalid/mcp';
    assert.equal(urlCredential(raw), 'p@ss@w0rd');
    assert.equal(redactUrl(raw), 'https://user:***@example.invalid/mcp');
    const redact = makeRedactor([urlCredential(raw) ?? '']);
    assert.equal(redact(`connect to ${new URL(raw).href} failed`), 'connect to https://user:***@example.invalid/mcp failed');
  });
});

void describe('the one redactor with many secrets', () => {
  void it("masks each of thousands of secrets (a window holds every server's), leftmost and longest first", () => {
    const secrets = Array.from({ length: 5_000 }, (_, index) => `tok-${index.toString(36)}-${'x'.repeat(index % 7)}Z`);
    const redact = makeRedactor(secrets);
    for (const index of [0, 1, 777, 4_999]) {
      assert.equal(redact(`a ${secrets[index]} b`), `a ${MASK} b`);
    }
    assert.equal(makeRedactor(['abcd', 'abcdefgh', 'cdef'])('abcdefgh abcdef cdefab'), `${MASK} ${MASK}ef ${MASK}ab`);
    assert.equal(redact('tok-'), 'tok-', 'a prefix alone is no secret');
  });
});
