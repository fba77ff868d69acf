// The floor of any stdio proxy that understands what it carries: a bare pipe relay (pipe-relay.mjs) that also frames
// each direction into lines, parses every message and books each request until its answer, the least a proxy must
// do to know which requests are open (the guard does that and more: keepalive, the status channel, id rewriting).
// The bytes are forwarded as they came, before they are read, so the latency is the bare relay's.
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const open = new Map();

function framer(onMessage) {
  let rest = null;
  return (chunk) => {
    const data = rest ? Buffer.concat([rest, chunk]) : chunk;
    let start = 0;
    for (let newline = data.indexOf(10); newline !== -1; newline = data.indexOf(10, start)) {
      try {
        onMessage(JSON.parse(data.toString('utf8', start, newline)));
      } catch {
        // not a message: forwarded all the same
      }
      start = newline + 1;
    }
    rest = start < data.length ? data.subarray(start) : null;
  };
}

const fromClient = framer((message) => {
  if (message && typeof message.method === 'string' && message.id !== undefined) open.set(message.id, message.method);
});
const fromServer = framer((message) => {
  if (message && message.method === undefined && message.id !== undefined) open.delete(message.id);
});
process.stdin.on('data', (chunk) => {
  child.stdin.write(chunk);
  fromClient(chunk);
});
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  fromServer(chunk);
});
process.stdin.on('end', () => child.stdin.end());
child.on('exit', (code) => process.exit(code ?? 1));
