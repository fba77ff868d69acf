// A few schema combinators for messages that come from another process over the local channel (a guard's report, a
// leading window's status). Hand-written rather than zod: zod would be the guard bundle's largest dependency
// (dist/guard.js is kept small, and zod is only in the tree through the SDK), and these shapes need little.
//
// Rules every schema follows, so a hostile or merely older/newer peer cannot reach code that trusts a shape:
//  - only own properties are read (never `constructor`, `__proto__`... from the prototype);
//  - enums are checked against a list, never by indexing an object;
//  - numbers are finite; extra properties are allowed (a newer peer sends more) but never read.

export interface Schema<T> {
  /** null when `value` matches, else where and why it does not ("state: not one of starting, ready"). */
  readonly problem: (value: unknown) => string | null;
  /** Type carrier only. */
  readonly _type?: T;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

export function parseWith<T>(schema: Schema<T>, value: unknown): Parsed<T> {
  const problem = schema.problem(value);
  return problem === null ? { ok: true, value: value as T } : { ok: false, problem };
}

function is<T>(test: (value: unknown) => boolean, expected: string): Schema<T> {
  return { problem: (value) => (test(value) ? null : `expected ${expected}, got ${describe(value)}`) };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value.slice(0, 40)}"`;
  return typeof value;
}

export const string: Schema<string> = is((value) => typeof value === 'string', 'a string');
export const number: Schema<number> = is((value) => typeof value === 'number' && Number.isFinite(value), 'a number');
export const integer: Schema<number> = is((value) => Number.isSafeInteger(value), 'an integer');
export const boolean: Schema<boolean> = is((value) => typeof value === 'boolean', 'a boolean');

export function oneOf<const T extends string>(...values: readonly T[]): Schema<T> {
  return is((value) => typeof value === 'string' && (values as readonly string[]).includes(value), `one of ${values.join(', ')}`);
}

export function nullable<T>(schema: Schema<T>): Schema<T | null> {
  return { problem: (value) => (value === null ? null : schema.problem(value)) };
}

export function optional<T>(schema: Schema<T>): Schema<T | undefined> {
  return { problem: (value) => (value === undefined ? null : schema.problem(value)) };
}

export function either<A, B>(a: Schema<A>, b: Schema<B>): Schema<A | B> {
  return { problem: (value) => (a.problem(value) === null ? null : b.problem(value)) };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An object with these own properties (a missing one is `undefined`, which only optional() accepts). */
export function object<T>(shape: { readonly [K in keyof T]-?: Schema<T[K]> }): Schema<T> {
  const keys = Object.keys(shape) as (keyof T & string)[];
  return {
    problem: (value) => {
      if (!isPlainObject(value)) return `expected an object, got ${describe(value)}`;
      for (const key of keys) {
        const own = Object.hasOwn(value, key) ? value[key] : undefined;
        const problem = (shape[key] as Schema<unknown>).problem(own);
        if (problem !== null) return `${key}: ${problem}`;
      }
      return null;
    },
  };
}

/** A plain object used as a map: every own value matches, at most `maxKeys` of them. */
export function record<T>(schema: Schema<T>, maxKeys = 10_000): Schema<Readonly<Record<string, T>>> {
  return {
    problem: (value) => {
      if (!isPlainObject(value)) return `expected an object, got ${describe(value)}`;
      const entries = Object.entries(value);
      if (entries.length > maxKeys) return `more than ${maxKeys} entries`;
      for (const [key, item] of entries) {
        const problem = schema.problem(item);
        if (problem !== null) return `${JSON.stringify(key.slice(0, 40))}: ${problem}`;
      }
      return null;
    },
  };
}

export function array<T>(schema: Schema<T>, maxItems = 100_000): Schema<readonly T[]> {
  return {
    problem: (value) => {
      if (!Array.isArray(value)) return `expected an array, got ${describe(value)}`;
      if (value.length > maxItems) return `more than ${maxItems} items`;
      for (let i = 0; i < value.length; i++) {
        const problem = schema.problem(value[i]);
        if (problem !== null) return `[${i}]: ${problem}`;
      }
      return null;
    },
  };
}

/** Anything (a field passed through untouched, never read as a shape). */
export const unknownValue: Schema<unknown> = { problem: () => null };

/** Looks `key` up among the own properties of a table: `constructor` or `__proto__` is never found. */
export function ownEntry<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
