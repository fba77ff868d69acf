#!/usr/bin/env node
// Usage: node counting-launcher.mjs COUNT_FILE SCRIPT [ARGS...]
// Appends its pid to COUNT_FILE, then runs SCRIPT in this same process (no extra process layer), so a test can
// count how many times a connector spawned a server.
import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [countFile, script, ...args] = process.argv.slice(2);
if (!countFile || !script) {
  process.stderr.write('usage: counting-launcher.mjs COUNT_FILE SCRIPT [ARGS...]\n');
  process.exit(2);
}
appendFileSync(countFile, `${process.pid}\n`);
const target = resolve(script);
process.argv = [process.argv[0], target, ...args];
await import(pathToFileURL(target).href);
