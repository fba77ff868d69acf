// eslint's import-x/no-cycle skips type-only imports (they are erased), so it cannot see a type file that imports
// from its own importers. This walks src/ with every relative import and re-export counted, types included, and
// fails on any circle: the type files (model.ts, monitorTypes.ts, causeTypes.ts, ...) stay leaves.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const src = resolve(__dirname, '..', '..', '..', 'src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of tsFiles(src)) {
    const targets: string[] = [];
    for (const match of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms)) {
      const base = resolve(dirname(file), match[1]!);
      const target = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
      if (target) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Tarjan's strongly connected components of more than one file: each one is a circle. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(relative(src, member));
    } while (member !== file);
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

test('src has no import circle, type-only imports included', () => {
  const graph = importGraph();
  assert.ok(graph.size > 100, 'the walk found the sources');
  assert.ok((graph.get(join(src, 'core', 'causes.ts')) ?? []).includes(join(src, 'core', 'model.ts')), 'type-only imports are counted');
  assert.deepEqual(circles(graph), []);
});

test('the circle finder sees a circle of type imports', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['a.ts']],
    ['c.ts', ['a.ts']],
  ]);
  assert.deepEqual(
    circles(graph).map((component) => component.length),
    [2],
  );
});
