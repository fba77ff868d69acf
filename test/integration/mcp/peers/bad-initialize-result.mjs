#!/usr/bin/env node
// A handshake-era stdio server whose `initialize` result is not an object: `node bad-initialize-result.mjs null|string`.
// Raw newline-delimited JSON-RPC, no SDK: the client must call it a protocol violation at once.
import { send, serveStdio } from '../../../fixtures/servers/lib/raw-stdio.mjs';

const result = process.argv[2] === 'string' ? 'ok' : null;

serveStdio((message) => {
  if (message.method === 'initialize') send({ jsonrpc: '2.0', id: message.id, result });
  else if (message.id !== undefined) send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
});
