// Settings shared by every connect the Node connector makes.

import type { Logger } from '../core/logger';
import type { ClientIdentity } from './session';

export interface ConnectorSettings {
  readonly logger: Logger;
  readonly clientInfo: ClientIdentity;
  readonly stderrBufferBytes: number;
  /** Bound on one stdout line (one message) of a stdio server. */
  readonly maxLineBytes: number;
  readonly killGraceMs: number;
  readonly stdinCloseGraceMs: number;
  /** Bound on the DELETE that ends an HTTP session at close. */
  readonly terminateSessionMs: number;
}
