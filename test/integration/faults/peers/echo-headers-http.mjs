#!/usr/bin/env node
// A careless Streamable HTTP server: handshake works, but every ping is refused with an error that quotes the
// request's credentials back. Binds 127.0.0.1 only; prints `LISTENING <port>`; exits after 120 s at the latest.
import { createServer } from 'node:http';

const sessionId = 'echo-session';
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    if (req.method !== 'POST') return void res.writeHead(405).end();
    let message;
    try {
      message = JSON.parse(body);
    } catch {
      return void res.writeHead(400).end();
    }
    const reply = (status, payload, headers = {}) => {
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...payload }));
    };
    if (message.id === undefined) return void res.writeHead(202).end();
    if (message.method === 'initialize') {
      return reply(200, { result: { protocolVersion: message.params?.protocolVersion ?? '2025-06-18', capabilities: {}, serverInfo: { name: 'echo-headers', version: '1.0.0' } } }, { 'Mcp-Session-Id': sessionId });
    }
    if (message.method === 'ping') {
      const quoted = `Authorization: ${req.headers.authorization}; Cookie: ${req.headers.cookie}; X-API-Key: ${req.headers['x-api-key']}`;
      return reply(200, { error: { code: -32603, message: `refused, you sent ${quoted}` } });
    }
    return reply(400, { error: { code: -32000, message: 'Bad Request: Server not initialized' } });
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`LISTENING ${server.address().port}\n`));
setTimeout(() => process.exit(0), 120_000).unref();
