// The one fetch an HTTP connection's transports use: the connector's own (the CLI's proxy-aware one) or else the
// global `fetch`, looked up on every request because VS Code replaces it with one that follows its proxy settings.
// Every request passes through unchanged. On the way back it notes what the SDK does not tell: the last 401's
// WWW-Authenticate challenge (for the cause of a failed connect), and for each POST whether the reply is an event
// stream (so a probe knows whether its request is over once the SDK has read the reply: see probeRelease.ts).

import type { FetchLike } from '@modelcontextprotocol/client';

/** Called with each POST's body, as the SDK serialised it, and whether its reply is an event stream. */
export type PostReplyListener = (body: unknown, eventStream: boolean) => void;

export class ObservedFetch {
  lastChallenge: string | undefined;
  private postReplies: PostReplyListener | null = null;

  constructor(private readonly inner?: FetchLike) {}

  onPostReply(listener: PostReplyListener): void {
    this.postReplies = listener;
  }

  // Not async: on the probe path, one promise fewer per request.
  readonly fetch = (url: string | URL, init?: RequestInit): Promise<Response> =>
    (this.inner ? this.inner(url, init) : fetch(url, init)).then((response) => this.observe(init, response));

  private observe(init: RequestInit | undefined, response: Response): Response {
    if (response.status === 401) this.lastChallenge = response.headers.get('www-authenticate') ?? undefined;
    if (this.postReplies && init?.method === 'POST') {
      this.postReplies(init.body, /^\s*text\/event-stream/i.test(response.headers.get('content-type') ?? ''));
    }
    return response;
  }
}
