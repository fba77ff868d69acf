// VS Code's MCP sandbox keys, read as VS Code defines them: `"sandboxEnabled": true` on a stdio server, with the
// policy in that server's `"sandbox"` block (current VS Code) or, where the server has none, in the file's top-level
// `"sandbox"` (the place earlier VS Code versions read it from). A policy that cannot be read is an error: the server
// is then not started at all, since running it without the sandbox the user asked for is not an option.

import type { SandboxPolicy } from '../model';
import type { Position } from './lineIndex';
import { describeKind, getValue, type ConfigNode } from './tree';

export interface SandboxReader {
  readonly name: string;
  fail(pos: Position, message: string): void;
  resolve(text: string, pos: Position): string;
}

const FILESYSTEM_KEYS = ['allowWrite', 'denyRead', 'denyWrite'] as const;
const NETWORK_KEYS = ['allowedDomains', 'deniedDomains'] as const;

/** The policy when the entry enables the sandbox, undefined when it does not (or the keys are unreadable: failed). */
export function readSandbox(entry: ConfigNode, fileSandbox: ConfigNode | undefined, reader: SandboxReader): SandboxPolicy | undefined {
  const enabled = getValue(entry, 'sandboxEnabled');
  if (enabled === undefined || enabled.kind === 'null') return undefined;
  if (enabled.kind !== 'boolean') {
    reader.fail(enabled.pos, `"sandboxEnabled" of server "${reader.name}" must be true or false, found ${describeKind(enabled)}`);
    return undefined;
  }
  if (!enabled.value) return undefined;
  const own = getValue(entry, 'sandbox');
  const block = own !== undefined && own.kind !== 'null' ? own : fileSandbox;
  const where = block === own ? `"sandbox" of server "${reader.name}"` : `the file's "sandbox" (used by server "${reader.name}")`;
  if (block !== undefined && block.kind !== 'null' && block.kind !== 'object') {
    reader.fail(block.pos, `${where} must be an object, found ${describeKind(block)}`);
    return undefined;
  }
  const filesystem = section(block, 'filesystem', FILESYSTEM_KEYS, where, reader);
  const network = section(block, 'network', NETWORK_KEYS, where, reader);
  if (filesystem === undefined || network === undefined) return undefined;
  return { filesystem, network };
}

function section<K extends string>(
  block: ConfigNode | undefined,
  key: string,
  keys: readonly K[],
  where: string,
  reader: SandboxReader,
): Record<K, string[]> | undefined {
  const node = block?.kind === 'object' ? getValue(block, key) : undefined;
  const result = Object.fromEntries(keys.map((name) => [name, [] as string[]])) as Record<K, string[]>;
  if (node === undefined || node.kind === 'null') return result;
  if (node.kind !== 'object') {
    reader.fail(node.pos, `"${key}" in ${where} must be an object, found ${describeKind(node)}`);
    return undefined;
  }
  let sound = true;
  for (const name of keys) {
    const list = getValue(node, name);
    if (list === undefined || list.kind === 'null') continue;
    if (list.kind !== 'array') {
      reader.fail(list.pos, `"${key}.${name}" in ${where} must be an array of strings, found ${describeKind(list)}`);
      sound = false;
      continue;
    }
    list.items.forEach((item, index) => {
      if (item.kind !== 'string') {
        reader.fail(item.pos, `"${key}.${name}" in ${where} must hold only strings; item ${index + 1} is ${describeKind(item)}`);
        sound = false;
      } else {
        result[name].push(reader.resolve(item.value, item.pos));
      }
    });
  }
  return sound ? result : undefined;
}
