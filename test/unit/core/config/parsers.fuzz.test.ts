// Property-based fuzzing of every config syntax and dialect, past the plain random-text runs of test/unit/core/config:
// random documents in each syntax's own serialisation, random values in every server key, hostile values.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stringify as yamlStringify } from 'yaml';
import { parseConfigText } from '../../../../src/core/config/discover';
import type { ConfigFormat } from '../../../../src/core/model';
import { assertPlaced, assertServersWellFormed, context, fileFor, FORMATS, tomlStringify } from './fuzzSupport';

const RUNS = 150;

function parseAll(text: string, format: ConfigFormat, inputs?: Record<string, string>) {
  const output = parseConfigText(text, fileFor(format), format, context(inputs ? { inputs } : {}));
  assertPlaced(output.diagnostics);
  assertServersWellFormed(output.servers);
  return output;
}

/** The key each dialect keeps its servers under; Zed and Codex have their own names. */
function serversKey(format: ConfigFormat): string {
  if (format === 'vscode') return 'servers';
  if (format === 'zed') return 'context_servers';
  if (format === 'codex') return 'mcp_servers';
  return 'mcpServers';
}

const SERVER_KEYS = [
  'type',
  'transport',
  'command',
  'args',
  'env',
  'cwd',
  'envFile',
  'url',
  'serverUrl',
  'httpUrl',
  'headers',
  'http_headers',
  'disabled',
  'enabled',
  'name',
  'bearer_token_env_var',
  'env_vars',
];

const hostileString = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '${env:NOPE}',
    '${input:missing}',
    '${workspaceFolder:nope}',
    '${unknown}',
    '${env:}',
    '${',
    '}',
    '$${env:A}',
    '${env:A',
    '${{ secrets.X }}',
    '${input:${input:a}}',
    '\u0000',
    '\uFEFF',
    '..',
    '../../etc/passwd',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** A value in any server key: the right type, the wrong type, or something hostile. */
const anyValue = fc.oneof(
  hostileString,
  fc.array(hostileString, { maxLength: 4 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 4 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('stdio', 'http', 'sse', 'streamable-http', 'streamableHttp', 'ws'),
  fc.webUrl(),
);

const serverEntry = fc.dictionary(fc.constantFrom(...SERVER_KEYS), anyValue, { maxKeys: 8 });
const serverMap = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), serverEntry, { maxKeys: 4 });

/** TOML cannot hold null; a nulled value is simply absent. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== null).map(withoutNulls);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, withoutNulls(v)]),
    );
  }
  return value;
}

void describe('fuzz: each syntax in its own serialisation', () => {
  void it('JSON dialects: random values in every server key never throw, and diagnostics have a place', () => {
    const jsonFormats = FORMATS.filter((f) => f !== 'codex');
    fc.assert(
      fc.property(serverMap, fc.constantFrom(...jsonFormats), fc.boolean(), (servers, format, comments) => {
        const document = JSON.stringify(
          { [serversKey(format)]: servers, inputs: [{ id: 'a', type: 'promptString', password: true }] },
          null,
          2,
        );
        // JSONC: comments and trailing commas where VS Code accepts them.
        const text = comments ? `// fuzz\n${document.replace(/\n}$/, ',\n}')}` : document;
        parseAll(text, format);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  void it('TOML (Codex): random documents from the TOML serialiser never throw', () => {
    fc.assert(
      fc.property(serverMap, (servers) => {
        let text: string;
        try {
          text = tomlStringify({ mcp_servers: withoutNulls(servers) as Record<string, unknown> });
        } catch {
          return; // a shape TOML cannot express (e.g. mixed arrays in old serialisers): nothing to parse
        }
        parseAll(text, 'codex');
      }),
      { numRuns: RUNS },
    );
  });

  void it('TOML: random text made of TOML syntax never throws', () => {
    const pieces = fc.constantFrom(
      '[mcp_servers.a]',
      '[[mcp_servers]]',
      '[mcp_servers."x y"]',
      'command = ',
      '"',
      "'''",
      '"""',
      '=',
      '[',
      ']',
      '{',
      '}',
      ',',
      '\n',
      'env = { A = 1 }',
      'args = [1, "a", [2]]',
      '1979-05-27T07:32:00Z',
      'inf',
      'nan',
      '0x1F',
      '#',
      'enabled = false',
      'url = "http://x"',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string({ maxLength: 6 })), { maxLength: 40 }), (parts) => {
        parseAll(parts.join(' '), 'codex');
      }),
      { numRuns: RUNS * 2 },
    );
  });

  void it('YAML (Continue): random documents from the YAML serialiser never throw', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          serverMap.map((servers) => ({ mcpServers: Object.entries(servers).map(([name, entry]) => ({ name, ...entry })) })),
          serverMap.map((servers) => ({ mcpServers: servers })),
          serverEntry,
          fc.jsonValue(),
        ),
        (document) => {
          parseAll(yamlStringify(document), 'continue');
        },
      ),
      { numRuns: RUNS },
    );
  });

  void it('YAML: tags, anchors, aliases, merge keys and multiple documents never throw', () => {
    const pieces = fc.constantFrom(
      'mcpServers:',
      '- name: a',
      '  command: x',
      '&a',
      '*a',
      '<<: *a',
      '!!binary',
      '!!js/function',
      '!!set',
      '!!omap',
      '? ',
      ': ',
      '---',
      '...',
      '|',
      '>-',
      '"',
      "'",
      '{',
      '}',
      '[',
      ']',
      '%YAML 1.1',
      '%TAG ! tag:x:',
      '\t',
      '\n',
      '  ',
      '- ',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string({ maxLength: 6 })), { maxLength: 40 }), (parts) => {
        parseAll(parts.join(''), 'continue');
      }),
      { numRuns: RUNS * 2 },
    );
  });
});

void describe('fuzz: huge and hostile values', () => {
  void it('a 1 MB command, 10,000 args and a 100,000-key env come through intact', () => {
    const command = 'x'.repeat(1024 * 1024);
    const args = Array.from({ length: 10_000 }, (_, i) => `--a${i}`);
    const env = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`K${i}`, String(i)]));
    const output = parseAll(JSON.stringify({ servers: { big: { command, args, env } } }), 'vscode');
    assert.equal(output.servers.length, 1);
    assert.equal(output.servers[0].command?.length, command.length);
    assert.equal(output.servers[0].args?.length, 10_000);
    assert.equal(Object.keys(output.servers[0].env ?? {}).length, 100_000);
  });

  void it('deep nesting inside a server entry, in every syntax', () => {
    const depth = 20_000;
    parseAll(`{"servers":{"a":{"command":"x","env":${'{"k":'.repeat(depth)}1${'}'.repeat(depth)}}}}`, 'vscode');
    parseAll(`[mcp_servers.a]\ncommand = "x"\nargs = ${'['.repeat(depth)}${']'.repeat(depth)}`, 'codex');
    parseAll(`mcpServers:\n  - name: a\n    command: x\n    args: ${'['.repeat(depth)}${']'.repeat(depth)}`, 'continue');
    parseAll(`mcpServers:\n${Array.from({ length: 2_000 }, (_, i) => `${'  '.repeat(i + 1)}k${i}:`).join('\n')}`, 'continue');
  });

  void it('a YAML alias bomb is refused or bounded, not expanded into memory', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++)
      levels.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    // 10^9 values if expanded: the bound is on the count of values read, not on time.
    const output = parseAll(`${levels.join('\n')}\nmcpServers: *i`, 'continue');
    assert.ok(
      output.diagnostics.some((d) => /alias expansion/.test(d.message)),
      JSON.stringify(output.diagnostics),
    );
    assert.equal(output.servers.length, 0);
  });

  void it('unresolvable variables stay literal or become warnings, never errors thrown', () => {
    fc.assert(
      fc.property(
        fc.array(hostileString, { minLength: 1, maxLength: 6 }),
        fc.constantFrom(...FORMATS.filter((f) => f !== 'codex')),
        (pieces, format) => {
          const value = pieces.join('');
          const entry = { command: value, args: pieces, env: { TOKEN: value }, cwd: value };
          parseAll(JSON.stringify({ [serversKey(format)]: { s: entry } }), format);
        },
      ),
      { numRuns: RUNS },
    );
  });

  void it('inputs referring to inputs (including cycles) are substituted once, never recursively', () => {
    const ids = ['a', 'b', 'c'];
    const inputValues = fc.dictionary(
      fc.constantFrom(...ids),
      fc
        .array(fc.oneof(fc.constantFrom(...ids.map((id) => `\${input:${id}}`)), fc.string({ maxLength: 4 })), { maxLength: 4 })
        .map((parts) => parts.join('')),
      { minKeys: 1 },
    );
    fc.assert(
      fc.property(inputValues, (inputs) => {
        const text = JSON.stringify({
          inputs: ids.map((id) => ({
            id,
            type: 'promptString',
            description: `\${input:${ids[(ids.indexOf(id) + 1) % ids.length]}}`,
            default: `\${input:${id}}`,
          })),
          servers: { s: { command: 'run', args: ids.map((id) => `\${input:${id}}`), env: { API_KEY: '${input:a}' } } },
        });
        const output = parseAll(text, 'vscode', inputs);
        const server = output.servers[0];
        assert.ok(server, 'the server still comes through');
        for (const [i, id] of ids.entries()) {
          // One substitution: the supplied value verbatim (even if it names another input), else the literal reference.
          assert.equal(server.args?.[i], inputs[id] ?? `\${input:${id}}`);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
