// The parts of one server's monitor, wired to each other (src/core/monitor/serverMonitor.ts keeps what is left:
// connecting and attaching a connection). Each part gets the scope and only the hooks it needs back into the monitor,
// so the wiring reads in one place instead of inside a constructor.

import type { ServerState, ServerError, ServerStatus } from '../model';
import type { MonitorEvent, MonitorMode } from '../monitorTypes';
import { ConnectionLifetime } from './connectionLifetime';
import { FailureCourse } from './failureCourse';
import { HealthRecord } from './healthRecord';
import { serverInventory, type InventoryTracker } from './inventoryTracker';
import { Keepalive, type DroppingVerdict } from './keepalive';
import { ReconnectSchedule } from './reconnectSchedule';
import type { MonitorContext, ServerScope } from './serverScope';

export interface ServerParts {
  readonly record: HealthRecord;
  readonly lifetime: ConnectionLifetime;
  readonly keepalive: Keepalive;
  readonly retries: ReconnectSchedule;
  readonly failures: FailureCourse;
  readonly inventory: InventoryTracker;
}

/** What the parts call back into the monitor for. */
export interface MonitorHooks {
  readonly id: () => string;
  readonly status: () => ServerStatus;
  readonly emit: (event: MonitorEvent) => void;
  readonly mode: () => MonitorMode;
  readonly disposed: () => boolean;
  readonly gated: () => boolean;
  readonly drop: (verdict: DroppingVerdict) => void;
  readonly reconnect: () => void;
}

export function serverParts(
  scope: ServerScope,
  context: MonitorContext,
  initial: { state: ServerState; error: ServerError | null },
  hooks: MonitorHooks,
): ServerParts {
  const record = new HealthRecord(initial.state, initial.error, { ...scope, status: hooks.status, emit: hooks.emit });
  const lifetime = new ConnectionLifetime({
    ...scope,
    connector: context.connector,
    connectSlots: context.connectSlots,
    startSlots: context.startSlots,
  });
  const retries = new ReconnectSchedule({
    ...scope,
    random: context.random,
    mode: hooks.mode,
    allowed: () => context.isStarted() && !hooks.disposed() && !hooks.gated(),
    setRetryAt: (wallTime) => record.setRetryAt(wallTime),
    announce: () => hooks.emit({ type: 'status', id: hooks.id(), status: hooks.status() }),
    reconnect: hooks.reconnect,
  });
  const keepalive = new Keepalive({
    ...scope,
    lifetime,
    record,
    mayProbe: () => context.isStarted() && !hooks.disposed(),
    disposed: hooks.disposed,
    alive: () => {
      if (record.noteAlive()) retries.resetBackoff();
    },
    drop: hooks.drop,
  });
  const failures = new FailureCourse({ ...scope, record, retries });
  const inventory = serverInventory(scope, (news) => hooks.emit({ ...news, id: hooks.id(), status: hooks.status() }));
  return { record, lifetime, keepalive, retries, failures, inventory };
}
