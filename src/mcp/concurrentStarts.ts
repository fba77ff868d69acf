// How many stdio servers may run their first start at once on this machine: the core's rule over the parallelism
// Node reports (the cores this process may use, which a container's CPU limit narrows).

import * as os from 'node:os';
import { concurrentStartsFor } from '../core/monitor/connectSlots';

export function concurrentStarts(): number {
  return concurrentStartsFor(typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
}
