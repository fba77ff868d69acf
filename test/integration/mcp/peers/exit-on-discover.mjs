#!/usr/bin/env node
// A handshake-era stdio server of the kind older SDKs build: any request before `initialize` other than ping makes
// it exit (code 1). Raw newline-delimited JSON-RPC, no SDK, so its behaviour is exactly this file.
import { initializeResult, send, serveStdio } from '../../../fixtures/servers/lib/raw-stdio.mjs';

let initialized = false;

serveStdio((message) => {
  if (message.method === 'initialize') {
    initialized = true;
    send(initializeResult(message, 'exit-on-discover'));
  } else if (message.method === 'ping') {
    send({ jsonrpc: '2.0', id: message.id, result: {} });
  } else if (!initialized && message.id !== undefined) {
    process.stderr.write(`exit-on-discover: ${message.method} before initialize, exiting\n`);
    process.exit(1);
  } else if (message.id !== undefined) {
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
