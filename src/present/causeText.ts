// The words of a failure cause, translated. The core decides which cause it is (src/core/causes.ts: the id and its
// facts); this file says it in the user's language. The English source strings are the core's own, word for word, so
// the CLI (which runs with no bundle) prints what it always printed; test/unit/present/causeText.test.ts holds the two
// to each other for every cause id.

import * as l10n from '@vscode/l10n';
import { baseName, LAUNCHERS, type CauseId, type FailureCause } from '../core/causes';
import type { ServerError, ServerStatus } from '../core/model';
import type { SandboxProblem } from '../core/sandbox';
import { stderrFinding } from '../core/stderrCause';

export interface CauseText {
  readonly id: CauseId;
  readonly summary: string;
  readonly nextStep: string;
}

/** The cause in the user's language; the core's English for an id this file does not know yet (a newer core). */
export function causeText(cause: FailureCause, status: Pick<ServerStatus, 'config' | 'lastError'>): CauseText {
  // needs-input is the one cause without an error; the rest read their facts from it.
  const error = status.lastError ?? { kind: 'input-required', message: '' };
  const text = translated(cause.id, error, status.config.command, status.config.name);
  return text ? { id: cause.id, ...text } : { id: cause.id, summary: cause.summary, nextStep: cause.nextStep };
}

type Words = { summary: string; nextStep: string };

function translated(id: CauseId, error: ServerError, command: string | undefined, serverName: string): Words | null {
  switch (id) {
    case 'needs-input':
      return {
        summary: l10n.t('A ${input:} variable has no value yet'),
        nextStep: l10n.t('Supply the value (MCP Health: Supply Input…) or set it in your MCP client'),
      };
    case 'sandbox-unavailable':
      return { summary: error.message, nextStep: sandboxStep(error.code) };
    case 'config':
      return { summary: l10n.t('The server entry in the config file is invalid'), nextStep: l10n.t('Fix the entry at the line shown') };
    case 'command-not-found': {
      const name = command ? baseName(command) : l10n.t('the command');
      const launcher = LAUNCHERS[name.toLowerCase()];
      return {
        summary:
          error.searchPath !== undefined
            ? l10n.t('Command "{0}" was not found on the PATH it saw ({1})', name, error.searchPath)
            : l10n.t('Command "{0}" was not found', name),
        nextStep: launcher
          ? l10n.t('Install {0}, or give the full path of "{1}" as the command', launcher, name)
          : l10n.t('Install "{0}", or give its full path as the command', name),
      };
    }
    case 'permission-denied':
      return {
        summary: l10n.t('Permission denied when starting or reaching the server'),
        nextStep: l10n.t('Make the command executable (chmod +x) or run it through its interpreter'),
      };
    case 'tls-self-signed':
      return {
        summary: l10n.t('TLS: the server presents a self-signed certificate'),
        nextStep: l10n.t('Use a certificate from a trusted CA, or add its CA to NODE_EXTRA_CA_CERTS for the client'),
      };
    case 'tls-unknown-ca':
      return {
        summary: l10n.t('TLS: the certificate was issued by an unknown CA'),
        nextStep: l10n.t('Add the issuing CA to NODE_EXTRA_CA_CERTS, or install the full certificate chain on the server'),
      };
    case 'tls-expired':
      return {
        summary: l10n.t('TLS: the server certificate has expired (or is not valid yet)'),
        nextStep: l10n.t('Renew the server certificate, and check the clocks of both machines'),
      };
    case 'tls-host-mismatch':
      return {
        summary: l10n.t('TLS: the certificate does not name this host'),
        nextStep: l10n.t("Use the host name the certificate was issued for in the server's url"),
      };
    case 'tls':
      return {
        summary: error.code ? l10n.t('TLS handshake failed ({0})', error.code) : l10n.t('TLS handshake failed'),
        nextStep: l10n.t('Check that the url uses https:// only for a TLS endpoint, and the TLS versions both sides accept'),
      };
    case 'dns':
      return { summary: l10n.t('The host name does not resolve'), nextStep: l10n.t('Check the host in the url, and your DNS or VPN') };
    case 'connection-refused':
      return {
        summary: l10n.t('Nothing is listening at that host and port'),
        nextStep: l10n.t('Start the server, or fix the port in the url'),
      };
    case 'oauth-required':
      return {
        summary: l10n.t('The server asks for OAuth sign-in (HTTP 401 with a Bearer challenge)'),
        nextStep: l10n.t('Sign in through your MCP client (it runs the OAuth flow), or put a token in the server\'s "headers"'),
      };
    case 'unauthorized':
      return error.httpStatus === 401
        ? {
            summary: l10n.t('The server refuses the request without credentials (HTTP 401)'),
            nextStep: l10n.t('Add the credentials it expects to the server\'s "headers" (e.g. Authorization)'),
          }
        : {
            summary: l10n.t('The server asks for credentials'),
            nextStep: l10n.t('Add the credentials it expects to the server\'s "headers"'),
          };
    case 'forbidden':
      return {
        summary: l10n.t('The credentials were refused (HTTP 403)'),
        nextStep: l10n.t('Check that the token in "headers" is valid and allowed to use this server'),
      };
    case 'wrong-path':
      return {
        summary: l10n.t('Nothing answers MCP at this url (HTTP {0})', error.httpStatus ?? ''),
        nextStep: l10n.t('Check the path in the url (often /mcp, or /sse for legacy servers)'),
      };
    case 'proxy':
      return proxyWords(error);
    case 'server-error':
      return {
        summary: l10n.t('The server failed (HTTP {0})', error.httpStatus ?? ''),
        nextStep: l10n.t("Look at the server's own logs; it may be starting or overloaded"),
      };
    case 'exits-at-start':
    case 'crashed':
      return exitWords(id, error, serverName);
    case 'ignores-ping':
      return {
        summary: l10n.t('The server ignores ping but answers other requests'),
        nextStep: l10n.t("Nothing to do here: it is watched with tools/list instead; report the bug to the server's authors"),
      };
    case 'era-mismatch':
      return {
        summary: l10n.t('Client and server share no protocol version'),
        nextStep: l10n.t('Update the server (or pin a protocol version it supports)'),
      };
    case 'protocol-violation':
      return {
        summary: l10n.t('The server answers, but not as the MCP protocol says'),
        nextStep: l10n.t('Update the server; report the message in the log to its authors'),
      };
    case 'timeout':
      return {
        summary: l10n.t('The server did not answer in time'),
        nextStep: l10n.t('Check whether it is stuck or overloaded; raise the timeout if it is just slow'),
      };
    case 'unreachable':
      return { summary: l10n.t('The server could not be reached'), nextStep: l10n.t('Check the url or command, and that the server runs') };
    default:
      return null;
  }
}

/** The same order as the core's: a refused connection, then HTTP 407, then a timeout, else unreachable. */
function proxyWords(error: ServerError): Words {
  const proxy = error.proxy ?? '';
  if (error.code === 'ECONNREFUSED' || /connection refused/i.test(error.message)) {
    return {
      summary: l10n.t('The connection was refused; proxy variables are set ({0})', proxy),
      nextStep: l10n.t('Check that the proxy runs, or list the host in NO_PROXY'),
    };
  }
  if (error.httpStatus === 407)
    return {
      summary: l10n.t('A proxy asks for credentials (HTTP 407)'),
      nextStep: l10n.t('Give the proxy credentials, or list the host in NO_PROXY'),
    };
  if (error.kind === 'timeout')
    return {
      summary: l10n.t('No answer in time; proxy variables are set ({0})', proxy),
      nextStep: l10n.t('Check the proxy, or list the host in NO_PROXY'),
    };
  return {
    summary: l10n.t('The server could not be reached; proxy variables are set ({0})', proxy),
    nextStep: l10n.t('Check the proxy, or list the host in NO_PROXY'),
  };
}

/** `The server exited with code 1 while starting: <the stderr line>`, and what that line asks for. */
function exitWords(id: 'exits-at-start' | 'crashed', error: ServerError, serverName: string): Words {
  const how = error.signal
    ? l10n.t('was killed by {0}', error.signal)
    : error.exitCode !== undefined && error.exitCode !== null
      ? l10n.t('exited with code {0}', error.exitCode)
      : l10n.t('exited');
  const finding = stderrFinding(error.stderrTail);
  const tail = finding ? `: ${finding.line}` : '';
  const summary = id === 'exits-at-start' ? l10n.t('The server {0} while starting', how) + tail : l10n.t('The server {0}', how) + tail;
  const entry = serverName ? `"${serverName}"` : l10n.t('the server');
  const nextStep = finding?.envVar
    ? l10n.t('Set {0} in the "env" of {1} in its config file', finding.envVar, entry)
    : finding?.flag
      ? l10n.t('Add {0} to the "args" of {1} in its config file', finding.flag, entry)
      : finding?.file
        ? l10n.t('Check that {0} exists, or fix the path in the "args" or "cwd" of {1} in its config file', finding.file, entry)
        : id === 'exits-at-start'
          ? l10n.t('Run the same command in a terminal to see its full error output')
          : l10n.t("Look at the server's stderr in the log; it is restarted with backoff");
  return { summary, nextStep };
}

function sandboxStep(problem: string | undefined): string {
  switch (problem as SandboxProblem | undefined) {
    case 'SANDBOX_UNSUPPORTED_OS':
      return l10n.t(
        'VS Code\'s MCP sandbox runs on Linux and macOS only: run this server there, or remove "sandboxEnabled" if you accept running it unsandboxed',
      );
    case 'SANDBOX_NO_BWRAP':
      return l10n.t('Install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)');
    case 'SANDBOX_BWRAP_FAILED':
      return l10n.t(
        'Allow unprivileged user namespaces, which bubblewrap needs (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0), or run where they are allowed',
      );
    case 'SANDBOX_NO_SOCAT':
      return l10n.t('Install socat, which the sandbox uses for its network proxy (apt install socat; macOS: brew install socat)');
    case 'SANDBOX_NO_RIPGREP':
      return l10n.t('Install ripgrep (apt install ripgrep; macOS: brew install ripgrep) so that rg is on the PATH');
    case 'SANDBOX_NO_SANDBOX_EXEC':
      return l10n.t("macOS' /usr/bin/sandbox-exec is missing: the sandbox cannot run on this system");
    case 'SANDBOX_NO_RUNTIME':
      return l10n.t('Reinstall MCP Health: its copy of @vscode/sandbox-runtime (dist/sandbox/srt.mjs) is missing');
    default:
      return l10n.t("Read the sandbox runtime's message in the log and fix what it names; the server is not started without its sandbox");
  }
}
