// The one rule for a probe's answer, as the monitor's connection (src/mcp/mcpConnection.ts) and the guard's keepalive
// (src/guard/keepalive.ts) both apply it: each row is pinned for classifyReply and for the guard's reading of it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProbeMethod } from '../../../src/core/model';
import { classifyReply, describeWrongAnswer, type JsonRpcReply } from '../../../src/core/probeReply';
import { wrongAnswer } from '../../../src/guard/keepalive';

interface Row {
  readonly name: string;
  readonly method: ProbeMethod;
  readonly reply: JsonRpcReply;
  readonly outcome: 'ok' | 'error-reply' | 'non-empty';
  readonly detail?: string;
}

const rows: readonly Row[] = [
  { name: 'an empty pong', method: 'ping', reply: { result: {} }, outcome: 'ok' },
  { name: 'a pong with a lone _meta (the schema allows it)', method: 'ping', reply: { result: { _meta: { a: 1 } } }, outcome: 'ok' },
  { name: 'a non-empty pong', method: 'ping', reply: { result: { status: 'ok' } }, outcome: 'non-empty', detail: 'result {"status":"ok"}' },
  { name: 'a pong that is not an object', method: 'ping', reply: { result: 'pong' }, outcome: 'non-empty', detail: 'result "pong"' },
  {
    name: 'an error to a ping, whatever its code',
    method: 'ping',
    reply: { error: { code: -32603, message: 'boom' } },
    outcome: 'error-reply',
    detail: 'error -32603: boom',
  },
  {
    name: 'a DiscoverResult',
    method: 'server/discover',
    reply: { result: { supportedVersions: ['2026-07-28'], capabilities: {} } },
    outcome: 'ok',
  },
  {
    name: 'a discover answer without supportedVersions is no DiscoverResult',
    method: 'server/discover',
    reply: { result: { capabilities: {} } },
    outcome: 'non-empty',
    detail: 'result without supportedVersions {"capabilities":{}}',
  },
  {
    name: 'a discover answer that is not an object',
    method: 'server/discover',
    reply: { result: null },
    outcome: 'non-empty',
    detail: 'result without supportedVersions null',
  },
  {
    name: 'an error to server/discover',
    method: 'server/discover',
    reply: { error: { code: -32601, message: 'no' } },
    outcome: 'error-reply',
    detail: 'error -32601: no',
  },
  { name: 'any result to the fallback proves the loop runs', method: 'tools/list', reply: { result: { tools: [] } }, outcome: 'ok' },
];

void describe('classifyReply: one verdict on an answer for the monitor and the guard', () => {
  for (const row of rows) {
    void it(`${row.method}: ${row.name} -> ${row.outcome}`, () => {
      const judged = classifyReply(row.method, row.reply);
      assert.deepEqual(judged, row.outcome === 'ok' ? { outcome: 'ok' } : { outcome: row.outcome, detail: row.detail });
      if (row.method === 'ping' || row.method === 'server/discover') {
        const guard = wrongAnswer(row.method, row.reply);
        assert.equal(
          guard,
          row.outcome === 'ok' ? null : `answered the keepalive ${row.method} with ${row.detail}`,
          'the guard reads the same verdict',
        );
      }
    });
  }

  void it('names a wrong answer the way the monitor reports it', () => {
    assert.equal(describeWrongAnswer('ping', 'non-empty', 'result {"x":1}'), 'ping answered with a non-empty result: result {"x":1}');
    assert.equal(
      describeWrongAnswer('ping', 'error-reply', 'error -32603: boom'),
      'ping answered with a JSON-RPC error: error -32603: boom',
    );
    assert.equal(
      describeWrongAnswer('server/discover', 'non-empty', undefined),
      'server/discover answered with a result the protocol does not allow',
    );
  });
});
