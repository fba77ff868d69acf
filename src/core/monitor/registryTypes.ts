// What a registry is built from and what it offers beyond MonitorRegistry, apart from its implementation (registry.ts)
// so the front ends and tests can name them without importing the registry's parts.

import type { Clock } from '../clock';
import type { Connector } from '../connection';
import type { GuardReports } from '../guardReport';
import type { Logger } from '../logger';
import type { ServerConfig } from '../model';
import type { MonitorRegistry, MonitorSettings } from '../monitorTypes';
import type { StatusSource } from './statusSource';

export interface RegistryDeps {
  readonly connector: Connector;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly settings: MonitorSettings;
  /** [0, 1) like Math.random; injected so backoff jitter is testable. */
  readonly random?: () => number;
  /** Masks secrets in everything the monitor logs or exposes (error messages, stderr). */
  readonly redact?: (text: string) => string;
  /** False in an untrusted workspace: workspace-scope servers are listed as `untrusted` and never started. */
  readonly workspaceTrusted?: boolean;
  /** How many servers may be connecting at once (default MAX_CONCURRENT_CONNECTS). */
  readonly maxConcurrentConnects?: number;
  /** How many stdio servers may run their first start at once (the front end's concurrentStartsFor(cores)). */
  readonly maxConcurrentStarts?: number;
  /**
   * Whether the user allowed this server's definition; a server without consent is listed as `needs-consent` and
   * never contacted. Absent (the CLI): running the command is the user's request, everything is allowed.
   */
  readonly consent?: (config: ServerConfig) => boolean;
  /**
   * Running guards' reports, for entries whose command is `mcp-health guard ...`: such an entry is never started (a
   * second copy of the server) and shows its guard's figures. Absent: shown as "guard not running". Disposed with
   * the registry.
   */
  readonly guards?: GuardReports;
}

export interface TrustAwareRegistry extends MonitorRegistry {
  /** Workspace trust changed: false parks workspace-scope servers in `untrusted` (closing them), true releases them. */
  setTrusted(workspaceAllowed: boolean): void;
  isTrusted(): boolean;
  /** Consent decisions changed: every server is gated again (allowed ones start, withdrawn ones close). */
  refreshGates(): void;
  /**
   * Another process runs the servers this source covers: they are closed here and listed with its status; user
   * actions on them are forwarded. Null takes them back (they connect here again if monitoring has started).
   */
  setStatusSource(source: StatusSource | null): void;
}
