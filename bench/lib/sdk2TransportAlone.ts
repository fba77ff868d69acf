// SDK 2.x's Streamable HTTP transport with nothing on top: the floor of any client built on it (principle 1 binds
// ours to it), for the scale section's CPU and the probe section's latency.
import { Client, StreamableHTTPClientTransport, type JSONRPCMessage, type MessageExtraInfo } from '@modelcontextprotocol/client';
/** What a naive client needs of its SDK: connect, ping with a timeout, end the session. */
export interface NaiveClient {
  ping(timeoutMs: number): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * The floor of any client on SDK 2.x's Streamable HTTP transport, which principle 1 binds ours to: each ping is one
 * `transport.send` and its answer is matched by id in `onmessage`. No request layer, no timer, no verdict: whatever a
 * monitor adds, it adds to this. The handshake is the SDK client's (`connect`), so the session is the same as ours.
 */
export async function transportAlone(url: string, clientInfo: { name: string; version: string }): Promise<NaiveClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client(clientInfo, { capabilities: {} });
  await client.connect(transport);
  const waiting = new Map<number, () => void>();
  const sdkOnMessage = transport.onmessage as ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined;
  transport.onmessage = <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => {
    const id = 'id' in message && !('method' in message) ? message.id : undefined;
    const answered = typeof id === 'number' ? waiting.get(id) : undefined;
    if (!answered) return sdkOnMessage?.(message, extra);
    waiting.delete(id as number);
    answered();
  };
  let nextId = 1_500_000_000;
  return {
    ping: () =>
      new Promise<void>((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, resolve);
        transport.send({ jsonrpc: '2.0', id, method: 'ping' }).catch((error: unknown) => {
          waiting.delete(id);
          reject(error instanceof Error ? error : new Error(String(error)));
        });
      }),
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}
