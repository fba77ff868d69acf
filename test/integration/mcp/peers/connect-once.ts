// Connects once to each URL given and prints one JSON line per URL: `{"url","ok"}` or `{"url","kind","message"}`.
// Run in a child process when the test needs the process started with a different trust store (NODE_EXTRA_CA_CERTS).
import { ConnectError } from '../../../../src/core/connection';
import { createNodeConnector } from '../../../../src/mcp';
import { httpServer } from '../support';

async function main(): Promise<void> {
  const connector = createNodeConnector();
  for (const url of process.argv.slice(2)) {
    try {
      const connection = await connector.connect(httpServer('once', url), { timeoutMs: 10_000 });
      await connection.close();
      process.stdout.write(`${JSON.stringify({ url, ok: true })}\n`);
    } catch (error) {
      const kind = error instanceof ConnectError ? error.kind : 'thrown';
      process.stdout.write(`${JSON.stringify({ url, kind, message: error instanceof Error ? error.message : String(error) })}\n`);
    }
  }
  connector.dispose?.();
}

void main();
