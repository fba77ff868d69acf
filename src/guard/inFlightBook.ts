// The guard's book of the client's requests in flight upstream. A client may have 10,000 of them out at once; an
// object per request (and a boxed number for its start time) survives V8's young-generation collections for as
// long as the request is out, and that survival is what makes V8 grow its young generation, a few MB of RSS the guard
// then keeps. Here a request costs a map entry to a small integer and a slot in flat arrays: nothing per request lives
// on the heap but the map's own entry.

import type { JsonRpcId } from './messages';

export interface InFlight {
  readonly method: string;
  readonly startedAt: number;
  /** The modern envelope the request came in, when the guard still has to learn the era from it. */
  readonly modern: { readonly version: string; readonly meta: Record<string, unknown> } | null;
}

const INITIAL_SLOTS = 64;

export class InFlightBook {
  private readonly slots = new Map<JsonRpcId, number>();
  private methods: string[] = [];
  private startedAt = new Float64Array(INITIAL_SLOTS);
  private modern: Array<InFlight['modern']> = [];
  /**
   * Slots given back, as a stack in a typed array: a JS array here, popped to empty and pushed again by every ping
   * of a one-at-a-time client, gave its backing store up and allocated a new one each time.
   */
  private free = new Int32Array(INITIAL_SLOTS);
  private freeCount = 0;
  private used = 0;

  get size(): number {
    return this.slots.size;
  }

  /** Books `id` (replacing an earlier request of the same id, as a Map would). */
  set(id: JsonRpcId, entry: InFlight): void {
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.freeCount > 0 ? this.free[--this.freeCount]! : this.used++;
      if (slot >= this.startedAt.length) {
        const grown = new Float64Array(this.startedAt.length * 2);
        grown.set(this.startedAt);
        this.startedAt = grown;
        const free = new Int32Array(grown.length);
        free.set(this.free.subarray(0, this.freeCount));
        this.free = free;
      }
      this.slots.set(id, slot);
    }
    this.methods[slot] = entry.method;
    this.startedAt[slot] = entry.startedAt;
    this.modern[slot] = entry.modern;
  }

  get(id: JsonRpcId): InFlight | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.entry(slot);
  }

  delete(id: JsonRpcId): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    this.slots.delete(id);
    this.modern[slot] = null;
    this.free[this.freeCount++] = slot;
    return true;
  }

  keys(): IterableIterator<JsonRpcId> {
    return this.slots.keys();
  }

  *[Symbol.iterator](): IterableIterator<[JsonRpcId, InFlight]> {
    for (const [id, slot] of this.slots) yield [id, this.entry(slot)];
  }

  /** Forgets every request and gives the grown arrays back. */
  clear(): void {
    this.slots.clear();
    this.methods = [];
    this.startedAt = new Float64Array(INITIAL_SLOTS);
    this.modern = [];
    this.free = new Int32Array(INITIAL_SLOTS);
    this.freeCount = 0;
    this.used = 0;
  }

  private entry(slot: number): InFlight {
    return { method: this.methods[slot]!, startedAt: this.startedAt[slot]!, modern: this.modern[slot] ?? null };
  }
}
