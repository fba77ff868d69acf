#!/usr/bin/env node
// A handshake-era stdio server of the kind older SDKs build: any request before `initialize` other than ping makes
// it exit (code 1). Raw newline-delimited JSON-RPC, no SDK, so its behaviour is exactly this file.
import { createInterface } from 'node:readline';

let initialized = false;
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
    initialized = true;
    send({
      jsonrpc: '2.0',
      id: message.id,
      result: { protocolVersion: message.params.protocolVersion, capabilities: {}, serverInfo: { name: 'exit-on-discover', version: '1.0.0' } },
    });
  } else if (message.method === 'ping') {
    send({ jsonrpc: '2.0', id: message.id, result: {} });
  } else if (!initialized && message.id !== undefined) {
    process.stderr.write(`exit-on-discover: ${message.method} before initialize, exiting\n`);
    process.exit(1);
  } else if (message.id !== undefined) {
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
process.stdin.on('end', () => process.exit(0));
