// ServerConfig values as discovery would produce them, for servers the bench starts itself.
import type { ServerConfig } from '../../src/core/model';
import { faultServerScript } from './paths';

const benchSource = { file: '/bench/mcp.json', line: 1, column: 1, format: 'vscode', scope: 'workspace' } as const;

export function stdioFaultServer(name: string, fault = 'none'): ServerConfig {
  return {
    id: `${benchSource.file}#${name}`,
    name,
    source: benchSource,
    transport: 'stdio',
    command: process.execPath,
    args: [faultServerScript, '--transport', 'stdio', '--fault', fault],
  };
}

export function httpServer(name: string, url: string): ServerConfig {
  return { id: `${benchSource.file}#${name}`, name, source: benchSource, transport: 'http', url };
}
