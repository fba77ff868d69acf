// VS Code `inputs`: the prompts that fill ${input:id}. Parsed so the UI can ask for them and passwords stay secret.

import type { DiagnosticSink } from './diagnosticSink';
import { describeKind, getValue, type ConfigNode } from './tree';
import type { InputDefinition } from './types';

const INPUT_TYPES = new Set<InputDefinition['type']>(['promptString', 'pickString', 'command']);

export function parseInputs(node: ConfigNode | undefined, file: string, sink: DiagnosticSink): InputDefinition[] {
  if (node === undefined || node.kind === 'null') return [];
  if (node.kind !== 'array') {
    sink.error(node.pos, `"inputs" must be an array, found ${describeKind(node)}`);
    return [];
  }
  const result: InputDefinition[] = [];
  for (const item of node.items) {
    if (item.kind !== 'object') {
      sink.error(item.pos, `each input must be an object, found ${describeKind(item)}`);
      continue;
    }
    const id = getValue(item, 'id');
    if (id?.kind !== 'string' || id.value.length === 0) {
      sink.error(id?.pos ?? item.pos, 'input has no "id" string');
      continue;
    }
    const type = getValue(item, 'type');
    if (type?.kind !== 'string' || !INPUT_TYPES.has(type.value as InputDefinition['type'])) {
      sink.error(type?.pos ?? item.pos, `input "${id.value}" needs "type" promptString, pickString or command`);
      continue;
    }
    const description = optionalString(item, 'description');
    const defaultValue = optionalString(item, 'default');
    const password = getValue(item, 'password');
    const options = getValue(item, 'options');
    const optionValues =
      options?.kind === 'array'
        ? options.items.flatMap((option) => {
            if (option.kind === 'string') return [option.value];
            // pickString options may be {label, value}
            const value = getValue(option, 'value');
            return value?.kind === 'string' ? [value.value] : [];
          })
        : undefined;
    result.push({
      id: id.value,
      type: type.value as InputDefinition['type'],
      ...(description !== undefined ? { description } : {}),
      ...(password?.kind === 'boolean' ? { password: password.value } : {}),
      ...(optionValues !== undefined ? { options: optionValues } : {}),
      ...(defaultValue !== undefined ? { default: defaultValue } : {}),
      file,
    });
  }
  return result;
}

function optionalString(node: ConfigNode, key: string): string | undefined {
  const value = getValue(node, key);
  return value?.kind === 'string' ? value.value : undefined;
}
