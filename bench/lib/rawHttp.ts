// Bare HTTP POSTs of a ping to an existing session: the floor our HTTP probe is compared with.
import { Agent, request } from 'node:http';

export interface SessionTarget {
  readonly url: string;
  readonly sessionId: string;
  readonly protocolVersion: string;
}

function headersFor(target: SessionTarget): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': target.sessionId,
    'mcp-protocol-version': target.protocolVersion,
  };
}

function pingBody(id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
}

/** Same HTTP stack as the SDK (global fetch), none of its layers. */
export async function fetchPing(target: SessionTarget, id: number): Promise<void> {
  const response = await fetch(target.url, { method: 'POST', headers: headersFor(target), body: pingBody(id) });
  const message = (await response.json()) as { id?: unknown; result?: unknown };
  if (!response.ok || message.id !== id || message.result === undefined) throw new Error(`raw fetch ping ${id} failed: ${response.status}`);
}

const keepAliveAgent = new Agent({ keepAlive: true, maxSockets: 1 });

/** node:http with a keep-alive agent: the cheapest exchange Node can do. */
export function httpRequestPing(target: SessionTarget, id: number): Promise<void> {
  const body = pingBody(id);
  return new Promise((resolve, reject) => {
    const req = request(
      target.url,
      { method: 'POST', agent: keepAliveAgent, headers: { ...headersFor(target), 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown };
          if (res.statusCode !== 200 || message.id !== id) reject(new Error(`raw http ping ${id} failed: ${res.statusCode}`));
          else resolve();
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export function closeRawHttp(): void {
  keepAliveAgent.destroy();
}
