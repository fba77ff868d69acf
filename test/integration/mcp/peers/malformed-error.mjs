#!/usr/bin/env node
// A handshake-era stdio server whose answer to `ping` is an error response without a usable error object
// (`"error": null`): the transport must drop it as garbage, never hand it on. Raw newline-delimited JSON-RPC, no SDK.
import { createInterface } from 'node:readline';

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
setTimeout(() => process.exit(0), 120_000).unref();

createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.method === 'initialize') {
    send({
      jsonrpc: '2.0',
      id: message.id,
      result: { protocolVersion: message.params.protocolVersion, capabilities: {}, serverInfo: { name: 'malformed-error', version: '1.0.0' } },
    });
  } else if (message.method === 'ping') {
    send({ jsonrpc: '2.0', id: message.id, error: null });
  } else if (message.id !== undefined) {
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
process.stdin.on('end', () => process.exit(0));
