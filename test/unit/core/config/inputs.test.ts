import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../../../src/core/config/discover';
import { brief, parseContext } from './helpers';

const FILE = '/work/proj/.vscode/mcp.json';
const TEXT = `{
  "inputs": [
    { "type": "promptString", "id": "token", "password": true },
    { "type": "pickString", "id": "region", "options": ["eu", "us"], "default": "eu" },
    { "type": "promptString" },
    { "type": "askMe", "id": "odd" }
  ],
  "servers": {
    "api": { "url": "https://\${input:region}.example.test/mcp", "headers": { "X-Token": "\${input:token}" } },
    "ghost": { "command": "run", "args": ["\${input:undeclared}"] }
  }
}`;

void describe('inputs', () => {
  void it('parses definitions and reports malformed ones at their place', () => {
    const { inputs, diagnostics } = parseConfigText(TEXT, FILE, 'vscode', parseContext());
    assert.deepEqual(inputs, [
      { id: 'token', type: 'promptString', password: true, file: FILE },
      { id: 'region', type: 'pickString', options: ['eu', 'us'], default: 'eu', file: FILE },
    ]);
    assert.deepEqual(brief(diagnostics), [
      '5:5 error input has no "id" string',
      '6:15 error input "odd" needs "type" promptString, pickString or command',
      '10:5 warning [ghost] server "ghost" uses ${input:undeclared}, which "inputs" does not define',
    ]);
  });

  void it('leaves a server waiting for input, without validating the URL it cannot know yet', () => {
    const { servers } = parseConfigText(TEXT, FILE, 'vscode', parseContext());
    const api = servers.find((server) => server.name === 'api');
    assert.deepEqual(api?.missingInputs, ['region', 'token']);
    assert.equal(api?.secretValues, undefined);
  });

  void it('fills supplied inputs and treats every input value as a secret', () => {
    const { servers, diagnostics } = parseConfigText(
      TEXT,
      FILE,
      'vscode',
      parseContext({ inputs: { token: 's3cr3t-token', region: 'eu', undeclared: 'zzzz' } }),
    );
    const api = servers.find((server) => server.name === 'api');
    assert.equal(api?.url, 'https://eu.example.test/mcp');
    assert.deepEqual(api?.headers, { 'X-Token': 's3cr3t-token' });
    assert.equal(api?.missingInputs, undefined);
    assert.deepEqual(api?.secretValues, ['eu', 's3cr3t-token']);
    assert.equal(diagnostics.filter((d) => d.serverName !== undefined).length, 0);
  });
});
