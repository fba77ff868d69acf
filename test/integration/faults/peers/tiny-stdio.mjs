#!/usr/bin/env node
// The cheapest handshake-era stdio MCP server there is: no SDK to load, so hundreds of spawns stay fast.
// Answers initialize, ping ({}), tools/list (empty); any other request gets -32601. Exits on stdin EOF.
import { initializeResult, send, serveStdio } from '../../../fixtures/servers/lib/raw-stdio.mjs';

serveStdio((message) => {
  if (message.id === undefined || typeof message.method !== 'string') return;
  switch (message.method) {
    case 'initialize':
      return send(initializeResult(message, 'tiny-stdio', { tools: {} }));
    case 'ping':
      return send({ jsonrpc: '2.0', id: message.id, result: {} });
    case 'tools/list':
      return send({ jsonrpc: '2.0', id: message.id, result: { tools: [] } });
    default:
      return send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
  }
});
