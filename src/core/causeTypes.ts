// The vocabulary of causes (why a server is not up), apart from the table that finds them (causes.ts): a status
// carries its cause, so model.ts needs these types, and this file needs nothing.

export type CauseId =
  | 'command-not-found'
  | 'permission-denied'
  | 'exits-at-start'
  | 'crashed'
  | 'connection-refused'
  | 'dns'
  | 'tls-self-signed'
  | 'tls-unknown-ca'
  | 'tls-expired'
  | 'tls-host-mismatch'
  | 'tls'
  | 'oauth-required'
  | 'unauthorized'
  | 'forbidden'
  | 'wrong-path'
  | 'proxy'
  | 'server-error'
  | 'era-mismatch'
  | 'ignores-ping'
  | 'protocol-violation'
  | 'timeout'
  | 'needs-input'
  | 'config'
  | 'sandbox-unavailable'
  | 'unreachable';

export interface FailureCause {
  readonly id: CauseId;
  /** What is wrong, in a few words the user can act on. */
  readonly summary: string;
  /** The one thing to do next. */
  readonly nextStep: string;
  /** The key of the server's entry the next step is about, so Open Config can go there. */
  readonly fix?: CauseFix;
}

export interface CauseFix {
  readonly key: 'env' | 'args';
  /** The environment variable, flag or file the server's stderr named. */
  readonly name: string;
}
