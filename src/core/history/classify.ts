// Which kind of time a state is for uptime. Only verified time counts: `up` is proven by an answered probe on that
// connection; a server reconnecting or verifying after a failure is not up; a server we do not try to reach (idle,
// disabled, untrusted, waiting for consent or input, broken config) is neither up nor down.

import type { ServerState } from '../model';

/** `pending`: up by its handshake only; becomes `up` from its start once a probe answers, `down` if it fails first. */
export type TimeClass = 'up' | 'pending' | 'down' | 'none';

export function classOf(state: ServerState, consecutiveFailures: number): TimeClass {
  switch (state) {
    case 'up':
      return 'pending';
    case 'down':
    case 'gave-up':
    case 'suspect':
    case 'auth-required':
    case 'verifying':
      return 'down';
    case 'starting':
    case 'connecting':
      // The first connect says nothing yet; a reconnect after a failure is part of that outage.
      return consecutiveFailures > 0 ? 'down' : 'none';
    default:
      return 'none';
  }
}
