import * as path from 'node:path';

export interface DevelopmentPayload {
  readonly extensionDevelopmentPath: string;
  /** Only honoured when code-server runs with the smoke-test driver. */
  readonly extensionTestsPath?: string;
}

/**
 * The workbench URL opening `workspace` (a folder, or a .code-workspace file for multi-root). With a payload the
 * extension at extensionDevelopmentPath is loaded from disk as in an Extension Development Host.
 */
export function workbenchUrl(
  server: { readonly url: string; readonly port: number },
  workspace: string,
  payload?: DevelopmentPayload,
): string {
  const absolute = path.resolve(workspace);
  const params = new URLSearchParams();
  params.set(absolute.endsWith('.code-workspace') ? 'workspace' : 'folder', absolute);
  if (payload) {
    // Paths in the payload are URIs on the server side of the workbench, hence the vscode-remote authority.
    const remote = (p: string): string => `vscode-remote://127.0.0.1:${server.port}${path.resolve(p)}`;
    const entries: [string, string][] = [['extensionDevelopmentPath', remote(payload.extensionDevelopmentPath)]];
    if (payload.extensionTestsPath) entries.push(['extensionTestsPath', remote(payload.extensionTestsPath)]);
    entries.push(['skipWelcome', 'true']);
    params.set('payload', JSON.stringify(entries));
  }
  return `${server.url}/?${params.toString()}`;
}
