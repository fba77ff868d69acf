// Races for a channel path: waits until START_AT (epoch ms), calls listenChannel, prints "bound" or "held", keeps a
// bound channel open until stdin closes. Usage: node --import tsx channel-racer.ts PATH START_AT
import { listenChannel } from '../../../../src/mcp/localChannel';

const [path, startAt] = process.argv.slice(2);
setTimeout(
  () => {
    listenChannel(path!).then(
      (server) => {
        process.stdout.write(server ? 'bound\n' : 'held\n');
        process.stdin.resume();
        process.stdin.once('end', () => void server?.dispose().then(() => process.exit(0)));
      },
      (error: unknown) => {
        process.stdout.write(`error ${String(error)}\n`);
        process.exit(1);
      },
    );
  },
  Math.max(0, Number(startAt) - Date.now()),
);
