import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCliArgs } from '../../../src/cli/args';
import { formatListenAddress, parseListenAddress } from '../../../src/metrics/listenAddress';

void describe('metrics listen address', () => {
  void it('reads HOST:PORT, [IPv6]:PORT, :PORT and PORT; the default host is loopback', () => {
    assert.deepEqual(parseListenAddress('0.0.0.0:9464'), { host: '0.0.0.0', port: 9464 });
    assert.deepEqual(parseListenAddress('localhost:1'), { host: 'localhost', port: 1 });
    assert.deepEqual(parseListenAddress('[::1]:9464'), { host: '::1', port: 9464 });
    assert.deepEqual(parseListenAddress(':9464'), { host: '127.0.0.1', port: 9464 });
    assert.deepEqual(parseListenAddress('9464'), { host: '127.0.0.1', port: 9464 });
    assert.deepEqual(parseListenAddress('127.0.0.1:0'), { host: '127.0.0.1', port: 0 });
  });

  void it('rejects what is not an address, with the value quoted', () => {
    for (const bad of ['', 'localhost', '127.0.0.1:', '127.0.0.1:http', '::1:9464', 'a b:1', '1.2.3.4:-1']) {
      const result = parseListenAddress(bad);
      assert.equal(typeof result, 'string', bad);
    }
    assert.match(parseListenAddress('127.0.0.1:65536') as string, /between 0 and 65535/);
  });

  void it('formats IPv6 hosts in brackets', () => {
    assert.equal(formatListenAddress({ host: '::1', port: 9 }), '[::1]:9');
    assert.equal(formatListenAddress({ host: '127.0.0.1', port: 9 }), '127.0.0.1:9');
  });

  void it('--metrics is a watch option', () => {
    const options = parseCliArgs(['watch', '--metrics', ':9464']);
    assert.ok(options !== 'help');
    assert.deepEqual(options.metrics, { host: '127.0.0.1', port: 9464 });
    const none = parseCliArgs(['watch']);
    assert.ok(none !== 'help');
    assert.equal(none.metrics, undefined);
    assert.throws(() => parseCliArgs(['list', '--metrics', ':9464']), /applies to watch only/);
    assert.throws(() => parseCliArgs(['watch', '--metrics', 'nope']), /--metrics: expected HOST:PORT/);
  });
});
