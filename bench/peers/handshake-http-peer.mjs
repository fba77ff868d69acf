#!/usr/bin/env node
// The cheapest honest Streamable HTTP MCP server we could write, so that 1000 sessions cost the peer almost nothing and
// the bench measures the client. Handshake era only: initialize (session id), notifications/initialized, ping, DELETE.
// JSON responses, never SSE; GET gets 405, so no client keeps a standby stream open.
// It runs as its own process so its CPU is never counted against the monitor being measured.
// Usage: node handshake-http-peer.mjs [--port N] [--tools N]   (prints "LISTENING <port>" once bound to 127.0.0.1)
// --tools N declares the tools capability and lists N tools with a description and a schema each (deep-check bench).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const MAX_BODY_BYTES = 64 * 1024;
const MAX_SESSIONS = 20_000;
// A forgotten peer must not outlive the bench by much.
const MAX_LIFETIME_MS = 30 * 60_000;

const portFlag = process.argv.indexOf('--port');
const port = portFlag === -1 ? 0 : Number(process.argv[portFlag + 1]);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`bad --port\n`);
  process.exit(2);
}

const toolsFlag = process.argv.indexOf('--tools');
const toolCount = toolsFlag === -1 ? 0 : Number(process.argv[toolsFlag + 1]);
if (!Number.isInteger(toolCount) || toolCount < 0) {
  process.stderr.write(`bad --tools\n`);
  process.exit(2);
}
const TOOLS = Array.from({ length: toolCount }, (_, i) => ({
  name: `tool_${i}`,
  description: `Tool number ${i}: looks something up in the bench's imaginary catalogue and returns what it found.`,
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string', description: 'what to look for' }, limit: { type: 'number' } },
    required: ['query'],
  },
  annotations: { readOnlyHint: true },
}));
const CAPABILITIES = toolCount > 0 ? { tools: {} } : {};

const sessions = new Set();
// How the client uses HTTP: many TCP connections per request means keep-alive is not being reused.
const stats = { connections: 0, requests: 0 };

const server = createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/debug/sessions' && req.method === 'GET') return sendJson(res, 200, [...sessions]);
  if (path === '/debug/stats' && req.method === 'GET') return sendJson(res, 200, { ...stats, sessions: sessions.size });
  stats.requests++;
  if (path !== '/mcp') return sendError(res, 404, null, -32601, `no MCP endpoint at ${path}`);
  if (req.method === 'GET') {
    res.writeHead(405, { Allow: 'POST, DELETE' }).end();
    return;
  }
  const sessionId = req.headers['mcp-session-id'];
  if (req.method === 'DELETE') {
    if (typeof sessionId !== 'string' || !sessions.delete(sessionId)) return sendError(res, 404, null, -32001, 'Session not found');
    res.writeHead(200).end();
    return;
  }
  if (req.method !== 'POST') return sendError(res, 405, null, -32000, 'Method not allowed');
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return sendError(res, 406, null, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  }
  readBody(req, (body) => {
    if (body === undefined) return sendError(res, 413, null, -32600, 'body too large');
    let message;
    try {
      message = JSON.parse(body);
    } catch {
      return sendError(res, 400, null, -32700, 'Parse error');
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      return sendError(res, 400, null, -32600, 'Invalid Request: single JSON-RPC messages only');
    }
    handleMessage(message, typeof sessionId === 'string' ? sessionId : undefined, res);
  });
});

function handleMessage(message, sessionId, res) {
  const id = message.id ?? null;
  if (message.method === 'initialize') {
    if (sessions.size >= MAX_SESSIONS) return sendError(res, 503, id, -32000, 'too many sessions');
    const newSession = randomUUID();
    sessions.add(newSession);
    const requested = message.params?.protocolVersion;
    const protocolVersion = SUPPORTED_VERSIONS.includes(requested) ? requested : SUPPORTED_VERSIONS[0];
    return sendJson(
      res,
      200,
      { jsonrpc: '2.0', id, result: { protocolVersion, capabilities: CAPABILITIES, serverInfo: { name: 'bench-peer', version: '1.0.0' } } },
      { 'mcp-session-id': newSession },
    );
  }
  // Like the SDK 1.x servers: no session means "not initialized" (400); an unknown one means "start again" (404).
  if (sessionId === undefined) return sendError(res, 400, id, -32000, 'Bad Request: Server not initialized');
  if (!sessions.has(sessionId)) return sendError(res, 404, id, -32001, 'Session not found');
  if (message.id === undefined) {
    res.writeHead(202).end();
    return;
  }
  if (message.method === 'ping') return sendJson(res, 200, { jsonrpc: '2.0', id, result: {} });
  if (message.method === 'tools/list') return sendJson(res, 200, { jsonrpc: '2.0', id, result: { tools: TOOLS } });
  return sendError(res, 200, id, -32601, `Method not found: ${message.method}`);
}

function readBody(req, done) {
  const chunks = [];
  let size = 0;
  let tooLarge = false;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) tooLarge = true;
    else chunks.push(chunk);
  });
  req.on('end', () => done(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
}

function sendJson(res, status, body, extraHeaders = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...extraHeaders });
  res.end(text);
}

function sendError(res, status, id, code, message) {
  sendJson(res, status, { jsonrpc: '2.0', id, error: { code, message } });
}

server.on('connection', () => stats.connections++);
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${server.address().port}\n`);
});
server.on('error', (error) => {
  process.stderr.write(`handshake-http-peer: ${error.message}\n`);
  process.exit(1);
});
setTimeout(() => process.exit(0), MAX_LIFETIME_MS).unref();
