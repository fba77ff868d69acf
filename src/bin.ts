// The `mcp-health` command (dist/cli.js). A guard lives as long as its client's session, one per guarded server, so
// `mcp-health guard` loads only the lean dist/guard.js; every other command loads the full CLI (dist/main.js).

import * as path from 'node:path';
import { runEntry } from './cli/runEntry';

type Entry = { main(argv: readonly string[]): Promise<number> };

const argv = process.argv.slice(2);
const guard = argv[0] === 'guard';
// Computed paths, so that the bundler leaves the two bundles apart instead of inlining both here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const entry = require(path.join(__dirname, guard ? 'guard.js' : 'main.js')) as Entry;
runEntry(entry.main, guard ? argv.slice(1) : argv);
