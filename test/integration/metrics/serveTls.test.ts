// /probe of an HTTPS server reports its certificate's expiry: a certificate made with openssl for ten days, served on
// 127.0.0.1 by a TLS front of a real MCP server, trusted by `mcp-health serve` through NODE_EXTRA_CA_CERTS.
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTlsFront, type TlsFront } from '../../helpers/tlsFront';
import { sampleValue, startServe, type ServeProcess } from './serveProcess';

describe('mcp-health serve: TLS certificate expiry of an https target', { timeout: 120_000 }, () => {
  let front: TlsFront;
  let validTo: number;
  let serve: ServeProcess;

  before(async () => {
    front = await startTlsFront(10, 'mcp-health-serve-tls-');
    validTo = Date.parse(new crypto.X509Certificate(fs.readFileSync(front.certFile)).validTo);
    serve = await startServe([], { NODE_EXTRA_CA_CERTS: front.certFile });
  });

  after(async () => {
    await serve?.stop();
    await front.stop();
  });

  it("mcp_health_probe_tls_cert_expiry_timestamp_seconds is the certificate's notAfter", async () => {
    const body = await (await fetch(`${serve.base}/probe?target=${encodeURIComponent(front.url)}`)).text();
    assert.equal(sampleValue(body, 'mcp_health_probe_success'), 1, body);
    assert.equal(sampleValue(body, 'mcp_health_probe_tls_cert_expiry_timestamp_seconds'), Math.floor(validTo / 1000), body);
  });
});
