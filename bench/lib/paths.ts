import { join, resolve } from 'node:path';

export const repoRoot = resolve(__dirname, '..', '..');
export const benchRoot = join(repoRoot, 'bench');
export const httpPeerScript = join(benchRoot, 'peers', 'handshake-http-peer.mjs');
export const faultServerScript = join(repoRoot, 'test', 'fixtures', 'servers', 'fault-server.mjs');
export const buildDir = join(benchRoot, '.build');
export const resultsDir = join(benchRoot, 'results');
