// The days left on an HTTPS server's certificate while it is up, read for real: a certificate made with openssl for
// ten days, served on 127.0.0.1 by a TLS front of a real MCP server (fault-server over Streamable HTTP), checked by
// the CLI the way a user runs it, with the certificate trusted through NODE_EXTRA_CA_CERTS.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readPeerCertificate } from '../../../src/mcp/peerCertificate';
import { runCli } from '../../helpers/cli';
import { startTlsFront, type TlsFront } from '../../helpers/tlsFront';

interface Report {
  name: string;
  state: string;
  certificate: { validTo: string; daysLeft: number; warning: boolean; text: string } | null;
}

describe('certificate expiry of an HTTPS server that is up', { timeout: 120_000 }, () => {
  let front: TlsFront;
  let dir: string;
  let certFile: string;
  let frontPort: number;

  before(async () => {
    front = await startTlsFront(10, 'mcp-health-cert-');
    ({ dir, certFile, port: frontPort } = front);
  });

  after(async () => {
    await front.stop();
  });

  function writeConfig(name: string): string {
    const file = path.join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify({ servers: { secure: { type: 'http', url: `https://127.0.0.1:${frontPort}/mcp` } } }, null, 2));
    return file;
  }

  it('check --json reports 10 days left and a warning; the table says so', async () => {
    const config = writeConfig('json');
    const env = { NODE_EXTRA_CA_CERTS: certFile };
    const run = await runCli(['check', '--config', config, '--json'], { cwd: dir, env });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const [report] = (JSON.parse(run.stdout) as { servers: Report[] }).servers;
    assert.equal(report.state, 'up');
    assert.equal(report.certificate?.daysLeft, 10);
    assert.equal(report.certificate?.warning, true);
    assert.match(report.certificate?.text ?? '', /^certificate expires in 10 days \(\d{4}-\d{2}-\d{2}\)$/);
    const expected = new Date(readPeerDate(certFile)).toISOString();
    assert.equal(report.certificate?.validTo, expected, "the date is the certificate's own notAfter");

    const table = await runCli(['check', '--config', config], { cwd: dir, env });
    assert.equal(table.code, 0, table.stderr + table.stdout);
    assert.match(table.stdout, /warning: certificate expires in 10 days/);
  });

  it("reads with the session's trust only, skips a proxied URL, and never throws", async () => {
    const url = new URL(`https://127.0.0.1:${frontPort}/mcp`);
    const before = front.handshakes();
    // This test process was not started with the certificate in NODE_EXTRA_CA_CERTS: the session would refuse it.
    assert.equal(await readPeerCertificate(url), null);
    assert.equal(front.handshakes(), before + 1, 'it did try, once');
    assert.equal(await readPeerCertificate(url, { proxied: true }), null);
    assert.equal(await readPeerCertificate(new URL(`http://127.0.0.1:${front.backendPort}/mcp`)), null);
    assert.equal(front.handshakes(), before + 1, 'no handshake for a proxied or plain-HTTP URL');
    const aborted = new AbortController();
    aborted.abort();
    assert.equal(await readPeerCertificate(url, { signal: aborted.signal }), null);
  });
});

/** notAfter as openssl prints it, parsed the way Node parses `valid_to`. */
function readPeerDate(certFile: string): number {
  const line = execFileSync('openssl', ['x509', '-noout', '-enddate', '-in', certFile], { encoding: 'utf8' }).trim();
  return Date.parse(line.replace(/^notAfter=/, ''));
}
