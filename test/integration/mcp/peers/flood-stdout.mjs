#!/usr/bin/env node
// A handshake-era stdio server that answers `ping` with BYTES bytes of output and no newline: the framing must give
// up on it instead of buffering without bound. Usage: node flood-stdout.mjs BYTES
import { createInterface } from 'node:readline';

const floodBytes = Number(process.argv[2] ?? 4 * 1024 * 1024);
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
      result: { protocolVersion: message.params.protocolVersion, capabilities: {}, serverInfo: { name: 'flood-stdout', version: '1.0.0' } },
    });
  } else if (message.method === 'ping') {
    process.stdout.write('{"jsonrpc":"2.0","result":"' + 'x'.repeat(floodBytes));
  } else if (message.id !== undefined) {
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
process.stdin.on('end', () => process.exit(0));
