import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostAllowed, parseAllowList, parseTarget, type AllowList } from '../../../../src/metrics/probe/allowList';
import { probeBudget } from '../../../../src/metrics/probe/serveHttp';
import { protocolVersionLabel } from '../../../../src/metrics/probe/probeMetrics';

const list = (entries: string[]): AllowList => {
  const parsed = parseAllowList(entries);
  assert.notEqual(typeof parsed, 'string', String(parsed));
  return parsed as AllowList;
};
const allowed = (target: string, allow: AllowList | null) => hostAllowed(new URL(target), allow);

void describe('probe targets', () => {
  void it('only http and https URLs, without credentials: stdio and anything runnable are refused', () => {
    assert.equal(parseTarget('https://mcp.example.internal/mcp').ok, true);
    assert.equal(parseTarget('http://127.0.0.1:8080/mcp').ok, true);
    for (const bad of [
      null,
      '',
      'npx -y @modelcontextprotocol/server-everything',
      'stdio:node server.js',
      'file:///etc/passwd',
      'ws://h/mcp',
      'ftp://h/',
    ]) {
      const verdict = parseTarget(bad);
      assert.equal(verdict.ok, false, String(bad));
    }
    const withCredentials = parseTarget('https://user:token@h/mcp');
    assert.equal(withCredentials.ok, false);
    assert.ok(!withCredentials.ok && !withCredentials.reason.includes('token'));
  });

  void it('without an allow-list every http(s) host may be probed', () => {
    assert.equal(allowed('https://anything.example/mcp', null), true);
  });

  void it('host names match exactly or below a *. entry, case-insensitively', () => {
    const allow = list(['mcp.example.internal', '*.fleet.example']);
    assert.equal(allowed('https://MCP.example.internal/mcp', allow), true);
    assert.equal(allowed('https://a.b.fleet.example/mcp', allow), true);
    assert.equal(allowed('https://fleet.example/mcp', allow), false);
    assert.equal(allowed('https://evil-mcp.example.internal/mcp', allow), false);
    assert.equal(allowed('https://mcp.example.internal.evil.com/mcp', allow), false);
    assert.equal(allowed('http://127.0.0.1/mcp', allow), false);
  });

  void it('addresses match the CIDR ranges and single addresses, IPv4 and IPv6', () => {
    const allow = list(['10.0.0.0/8', '127.0.0.1', 'fd00::/8']);
    assert.equal(allowed('http://10.1.2.3/mcp', allow), true);
    assert.equal(allowed('http://127.0.0.1:9000/mcp', allow), true);
    assert.equal(allowed('http://127.0.0.2/mcp', allow), false);
    assert.equal(allowed('http://[fd12::1]/mcp', allow), true);
    assert.equal(allowed('http://[::1]/mcp', allow), false);
    assert.equal(allowed('http://169.254.169.254/latest', allow), false);
  });

  void it('ranges match address targets only: a host name must be on a name entry (nothing is resolved)', () => {
    const allow = list(['127.0.0.0/8']);
    assert.equal(allowed('http://127.0.0.1/mcp', allow), true);
    assert.equal(allowed('http://localhost/mcp', allow), false);
    assert.equal(allowed('http://localhost/mcp', list(['127.0.0.0/8', 'localhost'])), true);
  });

  void it('refuses entries that are none of a name, an address or a range', () => {
    for (const bad of ['10.0.0.0/40', 'http://h/', 'a b', '*', '*.']) assert.equal(typeof parseAllowList([bad]), 'string', bad);
  });

  void it('the probe ends before the scraper stops waiting', () => {
    assert.equal(probeBudget(5000, undefined), 5000);
    assert.equal(probeBudget(5000, '10'), 5000);
    assert.equal(probeBudget(5000, '2'), 1500);
    assert.equal(probeBudget(5000, '0.1'), 100);
    assert.equal(probeBudget(5000, 'x'), 5000);
  });

  void it('a protocol version label is a date or "other": a server cannot write into it', () => {
    assert.equal(protocolVersionLabel('2025-06-18'), '2025-06-18');
    assert.equal(protocolVersionLabel('"}\nmcp_health_probe_success 1'), 'other');
    assert.equal(protocolVersionLabel(null), '');
  });
});
