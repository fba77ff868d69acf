// The check flags for CI pipelines: baselines, JUnit, annotations and what fails the run. Pure.

import { UsageError } from './usageError';

export type FailCondition = 'down' | 'suspect' | 'slow' | 'drift';
export const FAIL_CONDITIONS: readonly FailCondition[] = ['down', 'suspect', 'slow', 'drift'];
export type OutputFormat = 'table' | 'json' | 'github';

export interface CiOptions {
  readonly baselineFile: string | undefined;
  readonly saveBaselineFile: string | undefined;
  readonly junitFile: string | undefined;
  readonly format: OutputFormat;
  /** Undefined: today's rule (any server not up fails), plus drift when a baseline is given. */
  readonly failOn: readonly FailCondition[] | undefined;
  readonly slowMs: number | undefined;
}

interface CiValues {
  readonly baseline?: string;
  readonly 'save-baseline'?: string;
  readonly junit?: string;
  readonly format?: string;
  readonly 'fail-on'?: string;
  readonly 'slow-ms'?: string;
}

export function parseCiFlags(
  command: string,
  values: CiValues,
  number: (name: string, value: string | undefined) => number | undefined,
): CiOptions {
  const given = (['baseline', 'save-baseline', 'junit', 'format', 'fail-on', 'slow-ms'] as const).filter(
    (name) => values[name] !== undefined,
  );
  if (command !== 'check' && given.length) throw new UsageError(`--${given[0]} applies to check only`);
  const format = values.format ?? 'table';
  if (format !== 'table' && format !== 'json' && format !== 'github') {
    throw new UsageError(`--format expects table, json or github, got "${format}"`);
  }
  let failOn: FailCondition[] | undefined;
  if (values['fail-on'] !== undefined) {
    failOn = [];
    for (const item of values['fail-on']
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)) {
      if (!FAIL_CONDITIONS.includes(item as FailCondition)) {
        throw new UsageError(`--fail-on expects a comma list of ${FAIL_CONDITIONS.join(', ')}, got "${item}"`);
      }
      failOn.push(item as FailCondition);
    }
    if (!failOn.length) throw new UsageError(`--fail-on needs at least one of ${FAIL_CONDITIONS.join(', ')}`);
  }
  const slowMs = number('slow-ms', values['slow-ms']);
  if (failOn?.includes('slow') && slowMs === undefined) throw new UsageError('--fail-on slow needs --slow-ms N');
  return {
    baselineFile: values.baseline,
    saveBaselineFile: values['save-baseline'],
    junitFile: values.junit,
    format,
    failOn,
    slowMs,
  };
}
