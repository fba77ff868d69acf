#!/usr/bin/env node
// A careless stdio server: prints its argv and every environment variable, one short line each, to stderr and (as
// non-JSON lines) to stdout, then dies. Everything it was given must still reach no log, view or output in clear.
const lines = [`argv ${process.argv.slice(2).join(' ')}`, ...Object.entries(process.env).map(([name, value]) => `env ${name}=${value}`)];
process.stdout.write(`${lines.join('\n')}\n`);
process.stderr.write(`${lines.join('\n')}\n`);
setTimeout(() => process.exit(1), 300);
