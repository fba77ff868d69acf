// The guard routes lines by a scan of the raw bytes instead of JSON.parse: on every input it must reach the verdict
// JSON.parse + classify() reaches (kind, id, method, failed), including lines that are not JSON at all, and for a
// batch (a non-empty array) the verdict on each of its elements.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify } from '../../../src/guard/messages';
import { routeLine, routeScanned, withTopId, type Message, type Route } from '../../../src/guard/routeLine';

/** The reference: what the guard routed by when it parsed every line. */
function expected(raw: Buffer): Route {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return { kind: 'other' };
  }
  if (Array.isArray(parsed)) return parsed.length === 0 ? { kind: 'other' } : { kind: 'batch', items: parsed.map(routeOf) };
  return routeOf(parsed);
}

function routeOf(parsed: unknown): Message {
  const message = classify(parsed);
  switch (message.kind) {
    case 'request':
      return { kind: 'request', id: message.id, method: message.method };
    case 'notification':
      return { kind: 'notification', method: message.method };
    case 'response':
      return { kind: 'response', id: message.id, failed: message.error !== undefined };
    case 'other':
      return { kind: 'other' };
  }
}

function same(text: string | Buffer): void {
  const raw = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const want = expected(raw);
  // A short line is routed by JSON.parse, a long one by the scan: both must agree with the reference on every input.
  for (const [how, got] of [
    ['routed', routeLine(raw)],
    ['scanned', routeScanned(raw)],
  ] as const) {
    assert.deepEqual(got, want, `${how}, for ${JSON.stringify(raw.toString('utf8'))}`);
    // -0 and 0 are the same id to the guard's books, but the value forwarded in an error answer must be the same too.
    const pairs: Array<[Route, Route]> =
      got.kind === 'batch' && want.kind === 'batch' ? got.items.map((item, i) => [item, want.items[i]!]) : [[got, want]];
    for (const [one, other] of pairs)
      if ('id' in one && 'id' in other) assert.ok(Object.is(one.id, other.id), `${how}: id of ${raw.toString('utf8')}`);
  }
}

const SHAPES = [
  // requests, notifications, responses as clients and servers write them
  '{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
  '{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"echo","arguments":{"id":7,"method":"x"}}}\n',
  '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"x"}}\n',
  '{"result":{},"jsonrpc":"2.0","id":5}\n',
  '{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"no"}}\n',
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}\n',
  '{"jsonrpc":"2.0","id":"mcp-health-guard:probe-1","result":{}}\n',
  // nested "id", "method", "result", "error" keys must not be taken for the top-level ones
  '{"jsonrpc":"2.0","id":2,"result":{"id":"inner","method":"inner","error":{"code":1}}}\n',
  '{"jsonrpc":"2.0","result":{"content":[{"id":9}]},"id":"outer"}\n',
  '{"params":{"id":1},"method":"notifications/progress","jsonrpc":"2.0"}\n',
  '{"jsonrpc":"2.0","id":3,"result":null}\n',
  '{"jsonrpc":"2.0","id":3,"error":null}\n',
  '{"jsonrpc":"2.0","id":3,"error":"text"}\n',
  '{"jsonrpc":"2.0","id":3,"error":[1]}\n',
  '{"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1}}\n',
  '{"jsonrpc":"2.0","id":3}\n',
  '{"jsonrpc":"2.0","method":5,"id":1,"result":{}}\n',
  '{"jsonrpc":"2.0","method":null,"id":1}\n',
  '{"jsonrpc":"2.0","method":"m","id":null}\n',
  '{"jsonrpc":"2.0","method":"m","id":true}\n',
  '{"jsonrpc":"2.0","method":"m","id":{"a":1}}\n',
  '{"jsonrpc":"2.0","method":"m","id":[1]}\n',
  // ids of every numeric spelling
  '{"id":0,"method":"m"}',
  '{"id":-0,"method":"m"}',
  '{"id":-1,"method":"m"}',
  '{"id":1.0,"method":"m"}',
  '{"id":1.5,"method":"m"}',
  '{"id":1e2,"method":"m"}',
  '{"id":1E+2,"method":"m"}',
  '{"id":1e-2,"method":"m"}',
  '{"id":1e400,"method":"m"}',
  '{"id":-1e400,"method":"m"}',
  '{"id":123456789012345,"method":"m"}',
  '{"id":1234567890123456789,"method":"m"}',
  '{"id":9007199254740993,"method":"m"}',
  '{"id":01,"method":"m"}',
  '{"id":1.,"method":"m"}',
  '{"id":.5,"method":"m"}',
  '{"id":+1,"method":"m"}',
  '{"id":1e,"method":"m"}',
  '{"id":-,"method":"m"}',
  // string ids and methods with escapes, unicode, odd characters
  '{"id":"1","method":"m"}',
  '{"id":"","method":""}',
  '{"id":"\\u0031","method":"\\u0070ing"}',
  '{"id":"a\\"b","method":"x\\\\y"}',
  '{"id":"caf\u00e9 \u{1F600}","method":"x/\\u00e9t\\u00e9"}',
  '{"id":"\\/","method":"\\b\\f\\n\\r\\t"}',
  '{"id":"\\x","method":"m"}',
  '{"id":"\\u12","method":"m"}',
  '{"id":"\\u12G4","method":"m"}',
  '{"id":"tab\there","method":"m"}',
  '{"id":"\u2028","method":"m"}',
  // keys spelled with escapes, duplicate keys (JSON.parse keeps the last)
  '{"\\u0069d":4,"m\\u0065thod":"ping"}',
  '{"id":1,"id":"two","method":"m"}',
  '{"method":"a","method":7,"id":1}',
  '{"method":7,"method":"a","id":1}',
  '{"id":1,"result":{},"id":null}',
  '{"error":{"code":1},"error":"x","id":1}',
  '{"error":"x","error":{"code":1},"id":1}',
  '{"ids":1,"methods":"m","results":1}',
  '{"i":1,"d":2,"metho":"m","resul":1,"erro":2}',
  '{"ID":1,"METHOD":"m"}',
  // whitespace JSON allows, and what it does not
  ' \t\r\n{ "id" : 1 , "method" : "m" } \r\n',
  '{"id":1,"method":"m"}\r\n',
  '\u00a0{"id":1,"method":"m"}',
  '\ufeff{"id":1,"method":"m"}',
  '{"id":1,"method":"m"}\u000b',
  '{"id":1,"method":"m"}\f',
  // batches: every kind of message inside, values that are not messages, nesting, spacing, and broken arrays
  '[{"id":1,"method":"m"}]',
  '[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"b","error":{"code":-1,"message":"x"}}]\n',
  '[ {"id":1,"method":"tools/list"} , {"method":"notifications/initialized"} ,{"id":"mcp-health-guard:probe-1","result":{}}]',
  '[{"id":1,"method":"m","params":[{"id":2,"method":"inner"}]},{"id":null,"error":{"code":-32600}}]',
  '[1]',
  '["x",{"id":2,"method":"m"}]',
  '[null,true,false,{}]',
  '[[{"id":1,"method":"m"}]]',
  '[{"id":1,"method":"m"},[]]',
  '[]',
  '[ ]',
  '[,]',
  '[{"id":1,"method":"m"},]',
  '[{"id":1,"method":"m"}',
  '[{"id":1,"method":"m"}]]',
  '[{"id":1,"method":"m"}] [1]',
  ' \t[{"\u0069d":-0,"method":"m"},{"id":1e400,"method":"m"}]\r\n',
  '[{"id":1 "method":"m"}]',
  '[{"id":1,"method":"m"}{"id":2,"method":"m"}]',
  '[{"id":"a","result":1,"error":{"code":1}},{"id":"c","method":5}]',
  // not an object, or not JSON
  '"text"',
  '42',
  'null',
  'true',
  '',
  '\n',
  'hello\n',
  '{',
  '}',
  '{}',
  '{ }',
  '{"id":1,"method":"m"}}',
  '{"id":1,"method":"m"},',
  '{"id":1,"method":"m"} {"id":2}',
  '{"id":1 "method":"m"}',
  '{"id":1,,"method":"m"}',
  '{"id":1,"method":"m",}',
  '{id:1,"method":"m"}',
  "{'id':1}",
  '{"id":1,"method":"m","params":[1,2,]}',
  '{"id":1,"method":"m","params":{"a":}}',
  '{"id":1,"method":"m","params":{"a":1,}}',
  '{"id":1,"method":"m","params":[}',
  '{"id":1,"method":"m","params":tru}',
  '{"id":1,"method":"m","params":nul}',
  '{"id":1,"method":"m","params":falsey}',
  '{"id":1,"method":"m","params":NaN}',
  '{"id":1,"method":"m","params":{"a":[1,{"b":[true,false,null,-1.5e3,"s"]}],"c":{}}}',
  '{"id":1,"method":"m","params":[[[[[]]]]]}',
  '{"id":1,"method":"m","params":{"":{"":""}}}',
  '{"id":1,"method":"m","x":"\u0001"}',
  '{"id":1,"method":"m","x":"\u001f"}',
  '{"id":"\u0000","method":"m"}',
  '{"id":1,"method":"m","x":"\u007f"}',
];

/** A small deterministic generator, so a failure names a case that can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

void describe('routing a line without parsing it', () => {
  void it('agrees with JSON.parse + classify on every message shape', () => {
    for (const shape of SHAPES) same(shape);
  });

  void it('agrees on every truncation of every shape (a cut line is not JSON)', () => {
    for (const shape of SHAPES) {
      const raw = Buffer.from(shape, 'utf8');
      for (let end = 0; end <= raw.length; end++) same(raw.subarray(0, end));
    }
  });

  void it('agrees on bytes that are not UTF-8', () => {
    same(Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x2c, 0x22, 0x6d, 0x22, 0x3a, 0x31, 0x7d])); // {"id":"\xff\xfe","m":1}
    same(Buffer.concat([Buffer.from('{"id":"'), Buffer.from([0xe2, 0x82]), Buffer.from('","method":"m"}')]));
    same(Buffer.concat([Buffer.from('{"id":1,"method":"m"}'), Buffer.from([0xff])]));
  });

  void it('agrees on 20,000 random mutations of the shapes (bytes replaced, inserted, removed)', () => {
    const next = random(13);
    const alphabet = Buffer.from('{}[]":,\\ \t\n\r\u0000\u001f\u007f-+.0123456789eEu"aftrnl idmethodresultrrorparams\u00e9', 'utf8');
    for (let i = 0; i < 20_000; i++) {
      const base = Buffer.from(SHAPES[Math.floor(next() * SHAPES.length)]!, 'utf8');
      const bytes = [...base];
      for (let edits = 1 + Math.floor(next() * 3); edits > 0; edits--) {
        const at = Math.floor(next() * (bytes.length + 1));
        const byte = alphabet[Math.floor(next() * alphabet.length)]!;
        const op = next();
        if (op < 0.4) bytes[at] = byte;
        else if (op < 0.8) bytes.splice(at, 0, byte);
        else bytes.splice(at, 1);
      }
      same(Buffer.from(bytes));
    }
  });

  void it('agrees on a batch of 5,000 messages and on one nested deep inside a batch', () => {
    const messages = Array.from({ length: 5000 }, (_, i) =>
      i % 3 === 0
        ? { jsonrpc: '2.0', id: i, result: { n: i } }
        : i % 3 === 1
          ? { jsonrpc: '2.0', id: `s${i}`, method: 'm' }
          : { jsonrpc: '2.0', method: 'n' },
    );
    same(`${JSON.stringify(messages)}\n`);
    same(`[{"jsonrpc":"2.0","id":1,"result":${'['.repeat(100_000)}${']'.repeat(100_000)}},{"id":2,"method":"m"}]`);
  });

  void it('replaces the top-level id and no other byte', () => {
    // [line, the same line with its top-level id's value written as <ID>]
    const cases: Array<[string, string]> = [
      [
        '{ "jsonrpc":"2.0", "id" : "mcp-health-guard:x", "method":"tools/call","params":{"id":"inner","n":12345678901234567890}}\n',
        '{ "jsonrpc":"2.0", "id" : <ID>, "method":"tools/call","params":{"id":"inner","n":12345678901234567890}}\n',
      ],
      ['{"result":{"id":1},"id":7,"jsonrpc":"2.0"}\r\n', '{"result":{"id":1},"id":<ID>,"jsonrpc":"2.0"}\r\n'],
      ['{"id":1,"\\u0069d":"last","method":"m"}', '{"id":1,"\\u0069d":<ID>,"method":"m"}'],
    ];
    for (const [text, template] of cases) {
      for (const id of ['mcp-health-guard:~x', 42, 'caf\u00e9 "q"']) {
        const replaced = withTopId(Buffer.from(text, 'utf8'), id).toString('utf8');
        assert.equal(replaced, template.replace('<ID>', JSON.stringify(id)));
        assert.equal((JSON.parse(replaced) as { id: unknown }).id, id);
      }
    }
  });

  void it('walks a deeply nested message without recursion', () => {
    const depth = 200_000;
    same(`{"jsonrpc":"2.0","id":1,"result":${'['.repeat(depth)}${']'.repeat(depth)}}\n`);
    same(`{"jsonrpc":"2.0","id":1,"result":${'['.repeat(depth)}${']'.repeat(depth - 1)}}\n`);
  });

  void it('reads the id of a large message, wherever it stands', () => {
    const blob = 'x'.repeat(5 * 1024 * 1024);
    same(`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"${blob}","id":"nested"}]},"id":77}\n`);
    same(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"data":"${blob}"}}\n`);
  });
});
