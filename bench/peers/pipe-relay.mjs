// The floor of any stdio proxy written in Node: a second process that pipes bytes both ways and does nothing else (no
// framing, no inspection, no keepalive). Whatever a guard costs above this is its own work; up to this is the extra
// process hop itself (two more pipe transits and a wake-up per message).
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.on('exit', (code) => process.exit(code ?? 1));
