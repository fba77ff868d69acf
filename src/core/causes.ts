// Why a server is not up, as a cause the user can act on, with one next step each. A pure table: structured facts
// (error codes, HTTP status, the WWW-Authenticate challenge, exit code) first, message text only as a last resort.

import type { CauseFix, CauseId, FailureCause } from './causeTypes';
import type { ServerError, ServerState, TransportKind } from './model';
import { stderrFinding, type StderrFinding } from './stderrCause';
import { sandboxNextStep } from './sandbox';

export type { CauseFix, CauseId, FailureCause } from './causeTypes';

export interface CauseInput {
  readonly state: ServerState;
  readonly error: ServerError | null;
  readonly transport: TransportKind;
  readonly command?: string;
  /** The server's name, for a next step that names what to change in its entry. */
  readonly name?: string;
  readonly nonConformant?: boolean;
}

/** States that need no explanation: healthy, or not contacted by choice. */
const QUIET_STATES: ReadonlySet<ServerState> = new Set(['up', 'idle', 'starting', 'connecting', 'disabled', 'untrusted']);

/** What to install for a launcher command: one table for these words and their translation (src/present/causeText.ts). */
export const LAUNCHERS: Readonly<Record<string, string>> = {
  npx: 'Node.js (npx comes with npm)',
  node: 'Node.js',
  uvx: 'uv (uvx comes with it)',
  uv: 'uv',
  docker: 'Docker',
  python: 'Python',
  python3: 'Python',
  deno: 'Deno',
  bun: 'Bun',
};

const TLS_CODES: Readonly<Record<string, CauseId>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'tls-self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'tls-self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls-unknown-ca',
  UNABLE_TO_GET_ISSUER_CERT: 'tls-unknown-ca',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'tls-unknown-ca',
  CERT_UNTRUSTED: 'tls-unknown-ca',
  CERT_HAS_EXPIRED: 'tls-expired',
  CERT_NOT_YET_VALID: 'tls-expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'tls-host-mismatch',
  HOSTNAME_MISMATCH: 'tls-host-mismatch',
  ERR_SSL_WRONG_VERSION_NUMBER: 'tls',
  EPROTO: 'tls',
};

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL']);

export function baseName(command: string): string {
  const last = command.split(/[\\/]/).pop() ?? command;
  return last.replace(/\.(exe|cmd|bat)$/i, '');
}

function exitWords(error: ServerError): string {
  if (error.signal) return `was killed by ${error.signal}`;
  return error.exitCode !== undefined && error.exitCode !== null ? `exited with code ${error.exitCode}` : 'exited';
}

function cause(id: CauseId, summary: string, nextStep: string, fix?: CauseFix): FailureCause {
  return fix ? { id, summary, nextStep, fix } : { id, summary, nextStep };
}

/**
 * What the stderr asks for, in the words of this server's entry. An environment variable wins over a flag that
 * would do the same: a value in "env" is masked in every output, one in "args" is not.
 */
function stderrStep(finding: StderrFinding | null, serverName: string | undefined): { nextStep: string; fix: CauseFix } | null {
  if (!finding) return null;
  const entry = serverName ? `"${serverName}"` : 'the server';
  if (finding.envVar)
    return { nextStep: `Set ${finding.envVar} in the "env" of ${entry} in its config file`, fix: { key: 'env', name: finding.envVar } };
  if (finding.flag)
    return { nextStep: `Add ${finding.flag} to the "args" of ${entry} in its config file`, fix: { key: 'args', name: finding.flag } };
  if (finding.file)
    return {
      nextStep: `Check that ${finding.file} exists, or fix the path in the "args" or "cwd" of ${entry} in its config file`,
      fix: { key: 'args', name: finding.file },
    };
  return null;
}

function tlsCause(id: CauseId, error: ServerError): FailureCause {
  switch (id) {
    case 'tls-self-signed':
      return cause(
        id,
        'TLS: the server presents a self-signed certificate',
        'Use a certificate from a trusted CA, or add its CA to NODE_EXTRA_CA_CERTS for the client',
      );
    case 'tls-unknown-ca':
      return cause(
        id,
        'TLS: the certificate was issued by an unknown CA',
        'Add the issuing CA to NODE_EXTRA_CA_CERTS, or install the full certificate chain on the server',
      );
    case 'tls-expired':
      return cause(
        id,
        'TLS: the server certificate has expired (or is not valid yet)',
        'Renew the server certificate, and check the clocks of both machines',
      );
    case 'tls-host-mismatch':
      return cause(
        id,
        'TLS: the certificate does not name this host',
        "Use the host name the certificate was issued for in the server's url",
      );
    default:
      return cause(
        'tls',
        `TLS handshake failed${error.code ? ` (${error.code})` : ''}`,
        'Check that the url uses https:// only for a TLS endpoint, and the TLS versions both sides accept',
      );
  }
}

function httpCause(error: ServerError): FailureCause | null {
  const status = error.httpStatus;
  if (status === 401) {
    if (error.authenticate && /^\s*bearer\b/i.test(error.authenticate)) {
      return cause(
        'oauth-required',
        'The server asks for OAuth sign-in (HTTP 401 with a Bearer challenge)',
        'Sign in through your MCP client (it runs the OAuth flow), or put a token in the server\'s "headers"',
      );
    }
    return cause(
      'unauthorized',
      'The server refuses the request without credentials (HTTP 401)',
      'Add the credentials it expects to the server\'s "headers" (e.g. Authorization)',
    );
  }
  if (status === 403) {
    return cause(
      'forbidden',
      'The credentials were refused (HTTP 403)',
      'Check that the token in "headers" is valid and allowed to use this server',
    );
  }
  if (status === 404 || status === 405) {
    return cause(
      'wrong-path',
      `Nothing answers MCP at this url (HTTP ${status})`,
      'Check the path in the url (often /mcp, or /sse for legacy servers)',
    );
  }
  if (status === 407) {
    return cause('proxy', 'A proxy asks for credentials (HTTP 407)', 'Give the proxy credentials, or list the host in NO_PROXY');
  }
  if (status !== undefined && status >= 500) {
    return cause('server-error', `The server failed (HTTP ${status})`, "Look at the server's own logs; it may be starting or overloaded");
  }
  return null;
}

/** Null for states that need no cause (up, idle, connecting, disabled, untrusted). */
export function classifyFailure(input: CauseInput): FailureCause | null {
  const { state, error } = input;
  if (QUIET_STATES.has(state)) return null;
  if (state === 'needs-input')
    return cause(
      'needs-input',
      'A ${input:} variable has no value yet',
      'Supply the value (MCP Health: Supply Input…) or set it in your MCP client',
    );
  if (!error) return null;
  if (state === 'sandbox-unavailable' || error.kind === 'sandbox') {
    return cause('sandbox-unavailable', error.message, sandboxNextStep(error.code));
  }
  if (state === 'config-error' || error.kind === 'config') {
    return cause('config', 'The server entry in the config file is invalid', 'Fix the entry at the line shown');
  }
  const code = error.code;
  const text = error.message;

  if (code === 'ENOENT' || (input.transport === 'stdio' && /command not found|ENOENT/.test(text))) {
    const name = input.command ? baseName(input.command) : 'the command';
    const launcher = LAUNCHERS[name.toLowerCase()];
    const where = error.searchPath !== undefined ? ` on the PATH it saw (${error.searchPath})` : '';
    return cause(
      'command-not-found',
      `Command "${name}" was not found${where}`,
      launcher
        ? `Install ${launcher}, or give the full path of "${name}" as the command`
        : `Install "${name}", or give its full path as the command`,
    );
  }
  if (code === 'EACCES' || code === 'EPERM' || /permission denied|EACCES/.test(text)) {
    return cause(
      'permission-denied',
      'Permission denied when starting or reaching the server',
      'Make the command executable (chmod +x) or run it through its interpreter',
    );
  }
  if (code && code in TLS_CODES) return tlsCause(TLS_CODES[code], error);
  if (!code && /certificate|self[- ]signed|SSL|TLS/i.test(text) && input.transport !== 'stdio') return tlsCause('tls', error);
  if (code && DNS_CODES.has(code)) {
    return cause('dns', 'The host name does not resolve', 'Check the host in the url, and your DNS or VPN');
  }
  if (code === 'ECONNREFUSED' || /connection refused/i.test(text)) {
    if (error.proxy)
      return cause(
        'proxy',
        `The connection was refused; proxy variables are set (${error.proxy})`,
        'Check that the proxy runs, or list the host in NO_PROXY',
      );
    return cause('connection-refused', 'Nothing is listening at that host and port', 'Start the server, or fix the port in the url');
  }
  const http = httpCause(error);
  if (http) return http;
  if (error.kind === 'auth') {
    return cause('unauthorized', 'The server asks for credentials', 'Add the credentials it expects to the server\'s "headers"');
  }
  if (error.kind === 'exited') {
    const finding = stderrFinding(error.stderrTail);
    const tail = finding ? `: ${finding.line}` : '';
    const step = stderrStep(finding, input.name);
    if (error.phase === 'connect') {
      return cause(
        'exits-at-start',
        `The server ${exitWords(error)} while starting${tail}`,
        step?.nextStep ?? 'Run the same command in a terminal to see its full error output',
        step?.fix,
      );
    }
    return cause(
      'crashed',
      `The server ${exitWords(error)}${tail}`,
      step?.nextStep ?? "Look at the server's stderr in the log; it is restarted with backoff",
      step?.fix,
    );
  }
  if (input.nonConformant && /never answered/.test(text)) {
    return cause(
      'ignores-ping',
      'The server ignores ping but answers other requests',
      "Nothing to do here: it is watched with tools/list instead; report the bug to the server's authors",
    );
  }
  if (error.kind === 'protocol-violation') {
    if (/-32022|protocol version|unsupported version|era/i.test(text)) {
      return cause(
        'era-mismatch',
        'Client and server share no protocol version',
        'Update the server (or pin a protocol version it supports)',
      );
    }
    return cause(
      'protocol-violation',
      'The server answers, but not as the MCP protocol says',
      'Update the server; report the message in the log to its authors',
    );
  }
  if (error.kind === 'timeout') {
    if (error.proxy)
      return cause('proxy', `No answer in time; proxy variables are set (${error.proxy})`, 'Check the proxy, or list the host in NO_PROXY');
    return cause(
      'timeout',
      'The server did not answer in time',
      'Check whether it is stuck or overloaded; raise the timeout if it is just slow',
    );
  }
  if (error.proxy)
    return cause(
      'proxy',
      `The server could not be reached; proxy variables are set (${error.proxy})`,
      'Check the proxy, or list the host in NO_PROXY',
    );
  return cause('unreachable', 'The server could not be reached', 'Check the url or command, and that the server runs');
}
