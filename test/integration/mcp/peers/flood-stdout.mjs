#!/usr/bin/env node
// A handshake-era stdio server that answers `ping` with BYTES bytes of output and no newline: the framing must give
// up on it instead of buffering without bound. Usage: node flood-stdout.mjs BYTES
import { initializeResult, send, serveStdio } from '../../../fixtures/servers/lib/raw-stdio.mjs';

const floodBytes = Number(process.argv[2] ?? 4 * 1024 * 1024);

serveStdio((message) => {
  if (message.method === 'initialize') {
    send(initializeResult(message, 'flood-stdout'));
  } else if (message.method === 'ping') {
    process.stdout.write('{"jsonrpc":"2.0","result":"' + 'x'.repeat(floodBytes));
  } else if (message.id !== undefined) {
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
