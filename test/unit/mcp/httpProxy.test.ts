// The pure half of the proxy support: reading the proxy variables and telling loopback hosts, no sockets.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLoopbackHost, proxyEnvironment } from '../../../src/mcp/httpProxy';

void describe('proxy settings from the environment', () => {
  void it('reads lower case first, then upper case; no proxy at all is null', () => {
    assert.equal(proxyEnvironment({}), null);
    assert.equal(proxyEnvironment({ NO_PROXY: 'x' }), null);
    assert.deepEqual(proxyEnvironment({ HTTPS_PROXY: 'http://a:1', https_proxy: 'http://b:2', NO_PROXY: 'c' }), {
      httpProxy: undefined,
      httpsProxy: 'http://b:2',
      noProxy: 'c',
    });
    assert.deepEqual(proxyEnvironment({ HTTP_PROXY: 'http://a:1', no_proxy: 'd' }), {
      httpProxy: 'http://a:1',
      httpsProxy: undefined,
      noProxy: 'd',
    });
  });

  void it('knows loopback', () => {
    for (const host of ['localhost', 'LOCALHOST', 'api.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1'])
      assert.ok(isLoopbackHost(host), host);
    for (const host of ['example.invalid', '10.0.0.1', '128.0.0.1', 'localhost.example.invalid']) assert.ok(!isLoopbackHost(host), host);
  });
});
