#!/usr/bin/env node
// The cheapest handshake-era stdio MCP server there is: no SDK to load, so hundreds of spawns stay fast.
// Answers initialize, ping ({}), tools/list (empty); any other request gets -32601. Exits on stdin EOF.
import { createInterface } from 'node:readline';

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const lifetime = setTimeout(() => process.exit(0), 120_000);
lifetime.unref();

createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id === undefined || typeof message.method !== 'string') return;
  switch (message.method) {
    case 'initialize':
      return send({
        id: message.id,
        result: {
          protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'tiny-stdio', version: '1.0.0' },
        },
      });
    case 'ping':
      return send({ id: message.id, result: {} });
    case 'tools/list':
      return send({ id: message.id, result: { tools: [] } });
    default:
      return send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
  }
});
process.stdin.on('end', () => process.exit(0));
