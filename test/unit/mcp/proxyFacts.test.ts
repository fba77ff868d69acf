// Which proxy variables are reported beside a failure: only when a proxy can be in the way of that url.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proxyVariables } from '../../../src/mcp/failureFacts';

describe('proxyVariables', () => {
  const env = { HTTPS_PROXY: 'http://user:pa55@proxy.corp:3128', NO_PROXY: 'internal.corp,.svc' };

  it('names the variables, with proxy credentials masked', () => {
    assert.equal(
      proxyVariables(new URL('https://mcp.example.com/mcp'), env),
      'HTTPS_PROXY=http://***@proxy.corp:3128 NO_PROXY=internal.corp,.svc',
    );
  });

  it('says nothing for loopback, NO_PROXY hosts and suffixes, or without a proxy variable', () => {
    assert.equal(proxyVariables(new URL('http://127.0.0.1:8080/mcp'), env), undefined);
    assert.equal(proxyVariables(new URL('http://localhost/mcp'), env), undefined);
    assert.equal(proxyVariables(new URL('https://internal.corp/mcp'), env), undefined);
    assert.equal(proxyVariables(new URL('https://api.internal.corp/mcp'), env), undefined);
    assert.equal(proxyVariables(new URL('https://tools.svc/mcp'), env), undefined);
    assert.equal(proxyVariables(new URL('https://mcp.example.com/mcp'), { NO_PROXY: 'x' }), undefined);
    assert.equal(proxyVariables(new URL('https://mcp.example.com/mcp'), { ...env, NO_PROXY: '*' }), undefined);
  });
});
