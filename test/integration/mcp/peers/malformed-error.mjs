#!/usr/bin/env node
// A handshake-era stdio server whose answer to `ping` is an error response without a usable error object
// (`"error": null`): the transport must drop it as garbage, never hand it on. Raw newline-delimited JSON-RPC, no SDK.
import { initializeResult, send, serveStdio } from '../../../fixtures/servers/lib/raw-stdio.mjs';

serveStdio((message) => {
  if (message.method === 'initialize') {
    send(initializeResult(message, 'malformed-error'));
  } else if (message.method === 'ping') {
    send({ jsonrpc: '2.0', id: message.id, error: null });
  } else if (message.id !== undefined) {
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
