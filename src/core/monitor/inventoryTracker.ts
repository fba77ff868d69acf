// One server's inventory and tool baseline: lists once per connection (never on the keepalive path), compares the
// tools with the accepted baseline and says when they drifted, once per distinct tool set. Beside the listing, the
// same once-per-connection step reads an HTTPS server's certificate (the connection knows how; src/mcp).

import type { Clock } from '../clock';
import type { Connection } from '../connection';
import type { CertificateFacts } from '../model';
import { collectInventory } from '../inventory/collect';
import { describeDrift, diffTools } from '../inventory/drift';
import type { Inventory, ToolDrift, ToolsBaseline } from '../inventory/types';
import type { InventorySettings } from '../monitorTypes';
import { say, type ServerScope } from './serverScope';

export interface InventoryListener {
  listed(inventory: Inventory): void;
  drifted(drift: ToolDrift, summary: string): void;
}

/** What a monitored server's tracker announces, as the server's events. */
export type InventoryNews = { readonly type: 'inventory' } | { readonly type: 'tools-changed'; readonly drift: ToolDrift };

/** The tracker of one monitored server: what it finds is logged (redacted) and announced. */
export function serverInventory(scope: ServerScope, announce: (news: InventoryNews) => void): InventoryTracker {
  return new InventoryTracker(scope.clock, {
    listed: (inventory) => {
      if (inventory.problems.length) say(scope, 'warn', `listing incomplete: ${inventory.problems.join('; ')}`);
      announce({ type: 'inventory' });
    },
    drifted: (drift, summary) => {
      say(scope, 'warn', `tools changed since the accepted baseline: ${summary}`);
      announce({ type: 'tools-changed', drift });
    },
  });
}

const NO_LIST_CAPABILITIES = { tools: false, prompts: false, resources: false };

export class InventoryTracker {
  private current: Inventory | null = null;
  private baseline: ToolsBaseline | null = null;
  private drift: ToolDrift | null = null;
  /** The tool-set hash last announced as drift, so a reconnect to the same drifted set is not announced again. */
  private announcedHash: string | null = null;
  private running: Promise<void> | null = null;
  private cert: CertificateFacts | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly listener: InventoryListener,
  ) {}

  get inventory(): Inventory | null {
    return this.current;
  }

  /** The certificate read on the current connection; null before it was read, or for a connection without one. */
  get certificate(): CertificateFacts | null {
    return this.cert;
  }

  get currentDrift(): ToolDrift | null {
    return this.drift;
  }

  get accepted(): ToolsBaseline | null {
    return this.baseline;
  }

  /** Resolves once the listing under way (if any) settled. */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Starts the listing of a fresh connection; `isCurrent` turns false when that connection is gone. */
  start(connection: Connection, settings: InventorySettings, isCurrent: () => boolean): void {
    // A certificate belongs to one connection: the next one may reach another server behind the same name.
    this.cert = null;
    const certificate = connection.certificate
      ? connection.certificate().then(
          (facts) => {
            if (isCurrent()) this.cert = facts;
          },
          () => undefined,
        )
      : Promise.resolve();
    if (!settings.enabled || !connection.request) {
      this.track(certificate);
      return;
    }
    const request = connection.request.bind(connection);
    const listing = collectInventory(
      { request },
      connection.listCapabilities ?? NO_LIST_CAPABILITIES,
      settings,
      () => this.clock.monotonic(),
      () => this.clock.wall(),
    );
    // Announced together, so the one `inventory` event that follows the listing carries the certificate too.
    this.track(
      Promise.all([listing, certificate]).then(([inventory]) => {
        if (isCurrent()) this.accept(inventory);
      }),
    );
  }

  private track(work: Promise<void>): void {
    const run: Promise<void> = work.finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
  }

  /** A baseline from storage or a file (null forgets it: the next complete listing becomes the baseline). */
  setBaseline(baseline: ToolsBaseline | null): void {
    this.baseline = baseline;
    this.announcedHash = null;
    this.drift = baseline && this.current?.tools && this.current.complete ? diffTools(baseline, this.current.tools) : null;
  }

  /** The user accepts what the server lists now as the new baseline. */
  acceptCurrent(): ToolsBaseline | null {
    const tools = this.current?.tools;
    if (!tools || !this.current?.complete) return null;
    this.baseline = tools;
    this.drift = null;
    this.announcedHash = null;
    return tools;
  }

  private accept(inventory: Inventory): void {
    this.current = inventory;
    const tools = inventory.tools;
    // An incomplete listing would look like removed tools: drift is only judged on a whole list.
    if (tools && inventory.complete) {
      // The first whole list seen is the baseline until the user accepts another (trust on first use).
      this.baseline ??= tools;
      this.drift = diffTools(this.baseline, tools);
    }
    this.listener.listed(inventory);
    const drift = this.drift;
    if (drift && tools && drift.currentHash !== this.announcedHash) {
      this.announcedHash = drift.currentHash;
      this.listener.drifted(drift, describeDrift(drift));
    } else if (!drift) {
      this.announcedHash = null;
    }
  }
}
