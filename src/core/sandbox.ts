// A sandboxed server's policy as @vscode/sandbox-runtime takes it, built the way VS Code builds it (McpSandboxService
// in microsoft/vscode: the server's own lists, plus `~/.npm` and the server's cwd writable, plus npm's registry
// reachable), and what to tell the user when the sandbox cannot be set up. Pure: the registry host is passed in.

import type { SandboxPolicy } from './model';

/** The settings file `srt --settings` reads (SandboxRuntimeConfig of @vscode/sandbox-runtime). */
export interface SandboxRuntimeConfig {
  readonly network: { readonly allowedDomains: string[]; readonly deniedDomains: string[] };
  readonly filesystem: { readonly allowWrite: string[]; readonly denyRead: string[]; readonly denyWrite: string[] };
}

/** Written for every sandboxed server, as VS Code does: npm's cache, so `npx` can unpack what it downloads. */
export const DEFAULT_ALLOW_WRITE: readonly string[] = ['~/.npm'];

/**
 * @param cwd the directory the server runs in (VS Code adds it to allowWrite)
 * @param defaultDomains the hosts VS Code allows for every sandboxed server (npm's default registry)
 */
export function sandboxRuntimeConfig(
  policy: SandboxPolicy,
  cwd: string | undefined,
  defaultDomains: readonly string[],
): SandboxRuntimeConfig {
  const trimmed = cwd?.trim();
  return {
    network: {
      allowedDomains: unique([...policy.network.allowedDomains, ...defaultDomains]),
      deniedDomains: [...policy.network.deniedDomains],
    },
    filesystem: {
      allowWrite: unique([...policy.filesystem.allowWrite, ...DEFAULT_ALLOW_WRITE, ...(trimmed ? [trimmed] : [])]),
      denyRead: [...policy.filesystem.denyRead],
      denyWrite: [...policy.filesystem.denyWrite],
    },
  };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.filter((value) => value.length > 0))];
}

/** Why a sandbox could not be set up; the `code` of the `sandbox` ServerError. */
export type SandboxProblem =
  | 'SANDBOX_UNSUPPORTED_OS'
  | 'SANDBOX_NO_BWRAP'
  | 'SANDBOX_BWRAP_FAILED'
  | 'SANDBOX_NO_SOCAT'
  | 'SANDBOX_NO_RIPGREP'
  | 'SANDBOX_NO_SANDBOX_EXEC'
  | 'SANDBOX_NO_RUNTIME'
  | 'SANDBOX_RUNTIME_ERROR';

/** The one thing to do next for each problem: what to install, or how to make it work. */
export function sandboxNextStep(problem: string | undefined): string {
  switch (problem as SandboxProblem | undefined) {
    case 'SANDBOX_UNSUPPORTED_OS':
      return 'VS Code\'s MCP sandbox runs on Linux and macOS only: run this server there, or remove "sandboxEnabled" if you accept running it unsandboxed';
    case 'SANDBOX_NO_BWRAP':
      return 'Install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)';
    case 'SANDBOX_BWRAP_FAILED':
      return 'Allow unprivileged user namespaces, which bubblewrap needs (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0), or run where they are allowed';
    case 'SANDBOX_NO_SOCAT':
      return 'Install socat, which the sandbox uses for its network proxy (apt install socat; macOS: brew install socat)';
    case 'SANDBOX_NO_RIPGREP':
      return 'Install ripgrep (apt install ripgrep; macOS: brew install ripgrep) so that rg is on the PATH';
    case 'SANDBOX_NO_SANDBOX_EXEC':
      return "macOS' /usr/bin/sandbox-exec is missing: the sandbox cannot run on this system";
    case 'SANDBOX_NO_RUNTIME':
      return 'Reinstall MCP Health: its copy of @vscode/sandbox-runtime (dist/sandbox/srt.mjs) is missing';
    default:
      return "Read the sandbox runtime's message in the log and fix what it names; the server is not started without its sandbox";
  }
}

/** A policy given as JSON (the guard's `--sandbox`): the same shape as the block, every list optional; else why not. */
export function policyFromJson(text: string): SandboxPolicy | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'is not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a JSON object';
  const lists = (key: string, names: readonly string[]): Record<string, string[]> | string => {
    const section = (value as Record<string, unknown>)[key] ?? {};
    if (typeof section !== 'object' || section === null || Array.isArray(section)) return `"${key}" must be an object`;
    const result: Record<string, string[]> = {};
    for (const name of names) {
      const list = (section as Record<string, unknown>)[name] ?? [];
      if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) return `"${key}.${name}" must be an array of strings`;
      result[name] = list;
    }
    return result;
  };
  const filesystem = lists('filesystem', ['allowWrite', 'denyRead', 'denyWrite']);
  const network = lists('network', ['allowedDomains', 'deniedDomains']);
  if (typeof filesystem === 'string') return filesystem;
  if (typeof network === 'string') return network;
  return {
    filesystem: { allowWrite: filesystem.allowWrite!, denyRead: filesystem.denyRead!, denyWrite: filesystem.denyWrite! },
    network: { allowedDomains: network.allowedDomains!, deniedDomains: network.deniedDomains! },
  };
}
