#!/usr/bin/env node
// Records the argv it received, verbatim, in the file named by ARGV_FILE, then serves as the tiny stdio server: a test
// proves arguments with shell syntax arrive as literal strings and nothing ran them.
import { writeFileSync } from 'node:fs';

writeFileSync(process.env.ARGV_FILE, JSON.stringify(process.argv.slice(2)));
await import('./tiny-stdio.mjs');
