// When a probe's own HTTP request needs a signal to cut it, and when it can go out the way the SDK's own requests do,
// without one. Streamable HTTP sends each probe as a POST whose reply may be an event stream, and a server may keep
// that stream open after the answer (the transport only SHOULD close it): each such probe would hold a socket for
// good. A signal per request cuts it, but costs about a fifth of a probe's CPU (an AbortController, the SDK's
// AbortSignal.any over its own signal, the abort). So a connection starts by giving its probes a signal, and stops
// once its server has ended a reply by itself (a JSON answer read whole, an event stream closed). A reply left open
// after its answer, or a probe that timed out without a signal, brings the signals back for the rest of the
// connection: at most the requests of one grace period are ever left to the server (or to the connection's close,
// which cuts everything).

/** The reason every release gives: built once, where a bare abort() would build a DOMException with a stack each time. */
const RELEASED = new DOMException('released', 'AbortError');

/**
 * How long after its answer a reply stream may still be open before the server counts as one that keeps them open.
 * Servers close it as they send the answer; a probe sent right after the previous one must not be mistaken for it.
 */
export const OPEN_REPLY_GRACE_MS = 500;

/** One probe's (or listing's) request, as far as releasing it goes. */
export interface ReleasableRequest {
  /** null: sent without a signal of its own, as the SDK sends its own requests. */
  readonly controller: AbortController | null;
  /** Whether the reply is an event stream, once its headers are in (observedFetch.ts); null before. */
  eventStream: boolean | null;
  /** When the answer was routed to the probe (performance.now()), or null. */
  answeredAt: number | null;
  /**
   * The request is over without our help: the event stream ended, the send failed, or send() resolved on a reply that
   * is not an event stream (the SDK reads those whole before it resolves; with an event stream it resolves before the
   * answer, and only the stream's end says it is over).
   */
  ended: boolean;
}

export class ProbeRelease {
  private unsignalled = false;
  /** Set once an unsignalled request was left open: signals for the rest of the connection. */
  private revoked = false;
  /** Unsignalled requests not yet over: the ones a server could be keeping open. */
  private watched: ReleasableRequest[] = [];

  /** A new request; `alwaysSignalled` for the rare ones (listings) that are not worth going without. */
  begin(alwaysSignalled = false): ReleasableRequest {
    if (this.watched.length > 0) this.reviewWatched();
    const signalFree = this.unsignalled && !alwaysSignalled;
    const request: ReleasableRequest = {
      controller: signalFree ? null : new AbortController(),
      eventStream: null,
      answeredAt: null,
      ended: false,
    };
    if (signalFree) this.watched.push(request);
    return request;
  }

  /** The probe is settled (answered, timed out, failed). A tick later whatever is still open of a signalled one is cut. */
  settled(request: ReleasableRequest): void {
    if (request.controller) {
      // A tick later: a whole reply has been read to its end by then, and a request that is over is not aborted at
      // all, which keeps its socket for the next probe.
      setImmediate(release, this, request);
    } else if (request.answeredAt === null && !request.ended) {
      // Timed out with nothing to cut it: it stays with the server until the connection closes; the next get a signal.
      this.revoke();
    }
  }

  /** The tick after settled(). */
  releaseNow(request: ReleasableRequest): void {
    const controller = request.controller;
    if (!controller) return;
    // One reply ended by itself is enough: a server that keeps a later one open is caught by the grace above.
    if (request.ended) this.unsignalled = !this.revoked;
    else controller.abort(RELEASED);
  }

  /** Drops the requests that are over; one answered longer than the grace ago and still open revokes. */
  private reviewWatched(): void {
    const now = performance.now();
    const open: ReleasableRequest[] = [];
    for (const request of this.watched) {
      if (request.ended) continue;
      if (request.answeredAt !== null && now - request.answeredAt > OPEN_REPLY_GRACE_MS) return this.revoke();
      open.push(request);
    }
    this.watched = open;
  }

  private revoke(): void {
    this.revoked = true;
    this.unsignalled = false;
    this.watched = [];
  }
}

function release(policy: ProbeRelease, request: ReleasableRequest): void {
  policy.releaseNow(request);
}
