// Feeds the history from the registry's events: every probe outcome and state change of every server this process
// monitors. A server mirrored from another window or run by a guard is recorded where it runs, not here (the
// registry sends no probe or state events for it).

import type { ServerConfig } from '../model';
import type { MonitorRegistry, Unsubscribe } from '../monitorTypes';
import type { HistoryRecorder, ServerIdentity } from './recorder';

export function identityOf(config: ServerConfig): ServerIdentity {
  return { key: config.id, name: config.name, file: config.source.file };
}

export function recordHistory(registry: Pick<MonitorRegistry, 'onEvent' | 'list'>, recorder: HistoryRecorder): Unsubscribe {
  for (const status of registry.list()) recorder.state(identityOf(status.config), status.state, status.consecutiveFailures, false);
  return registry.onEvent((event) => {
    switch (event.type) {
      case 'state':
        recorder.state(identityOf(event.status.config), event.to, event.status.consecutiveFailures, event.from !== event.to);
        break;
      case 'probe':
        recorder.probe(identityOf(event.status.config), event.result);
        break;
      case 'wake':
        recorder.unobserved(event.suspension.wallFrom, event.suspension.wallTo);
        break;
      case 'servers': {
        const listed = new Set(registry.list().map((status) => status.config.id));
        for (const key of recorder.openKeys()) if (!listed.has(key)) recorder.stop(key);
        break;
      }
      default:
        break;
    }
  });
}
