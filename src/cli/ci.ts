// check for CI pipelines: tool baselines read and written, which conditions fail the run, and the failure text each
// server gets. Pure except for the two file functions at the end.

import { writeFileSync } from 'node:fs';
import { baselineDocument, BaselineFormatError, parseBaselineDocument } from '../core/inventory/baselineFile';
import { toolsInventory } from '../core/inventory/fingerprint';
import type { ToolsBaseline } from '../core/inventory/types';
import type { ServerStatus } from '../core/model';
import { MAX_BASELINE_FILE_BYTES, readRegularFile } from '../mcp/regularFile';
import { UsageError } from './args';
import type { CiOptions, FailCondition } from './ciArgs';
import type { ServerReport } from './format';

/** A server missing from the baseline file is compared with an empty set: every tool it lists is new. */
export const EMPTY_BASELINE: ToolsBaseline = toolsInventory([], 0);

export interface Verdict {
  readonly report: ServerReport;
  /** The conditions this server meets (whether or not they fail the run). */
  readonly conditions: readonly FailCondition[];
  /** The ones that fail the run under the chosen --fail-on. */
  readonly failing: readonly FailCondition[];
  /** Why, in one line: the cause and its next step, or the drift. */
  readonly text: string;
}

/** Down: anything that is not up, suspect or turned off on purpose. */
function isDown(report: ServerReport): boolean {
  return report.state !== 'up' && report.state !== 'suspect' && report.state !== 'disabled';
}

export function conditionsOf(report: ServerReport, options: CiOptions): FailCondition[] {
  const conditions: FailCondition[] = [];
  if (isDown(report)) conditions.push('down');
  if (report.state === 'suspect') conditions.push('suspect');
  if (options.slowMs !== undefined && report.rttMs !== null && report.rttMs > options.slowMs) conditions.push('slow');
  // Against a baseline, tools that could not be listed in full are not verified: that is drift too.
  const unverified = options.baselineFile !== undefined && report.inventoryComplete !== true;
  if (report.drift || unverified) conditions.push('drift');
  return conditions;
}

/** Without --fail-on the rule stays what it always was (every server up), plus drift when a baseline is given. */
function failingOf(report: ServerReport, conditions: readonly FailCondition[], options: CiOptions): FailCondition[] {
  if (options.failOn) return conditions.filter((condition) => options.failOn!.includes(condition));
  const failing: FailCondition[] = [];
  if (report.state !== 'up') failing.push(...conditions.filter((condition) => condition === 'down' || condition === 'suspect'));
  if (report.state !== 'up' && failing.length === 0) failing.push('down'); // disabled: not up, so it failed before too
  if (options.baselineFile !== undefined && conditions.includes('drift')) failing.push('drift');
  return failing;
}

function describe(report: ServerReport, conditions: readonly FailCondition[], options: CiOptions): string {
  const parts: string[] = [];
  if (report.cause) parts.push(`${report.cause.summary}. Next: ${report.nextStep ?? ''}`.trim());
  else if (report.error) parts.push(`${report.error.kind}: ${report.error.message}`);
  else if (report.state !== 'up') parts.push(`state ${report.state}`);
  if (report.drift) parts.push(`Tools changed since the baseline: ${report.drift.summary}`);
  else if (conditions.includes('drift')) parts.push('Tools could not be listed in full, so they were not verified against the baseline');
  if (conditions.includes('slow') && report.rttMs !== null) parts.push(`Slow: ${report.rttMs} ms, above ${options.slowMs} ms`);
  return parts.join(' ') || 'up';
}

export function verdicts(reports: readonly ServerReport[], options: CiOptions): Verdict[] {
  return reports.map((report) => {
    const conditions = conditionsOf(report, options);
    return { report, conditions, failing: failingOf(report, conditions, options), text: describe(report, conditions, options) };
  });
}

export function runFails(results: readonly Verdict[]): boolean {
  return results.length === 0 || results.some((result) => result.failing.length > 0);
}

// --- files ------------------------------------------------------------------------------------------------------

export async function readBaselineFile(file: string): Promise<Map<string, ToolsBaseline>> {
  let text: string;
  try {
    // A FIFO or /dev/zero given as --baseline is refused instead of read until memory runs out.
    text = await readRegularFile(file, MAX_BASELINE_FILE_BYTES);
  } catch (error) {
    throw new UsageError(`cannot read the baseline ${file}: ${(error as Error).message}`);
  }
  try {
    return parseBaselineDocument(text);
  } catch (error) {
    if (error instanceof BaselineFormatError) throw new UsageError(`${file}: ${error.message}`);
    throw error;
  }
}

/** Writes the tools of every server that listed them in full; returns the names left out (not listed in full). */
export function writeBaselineFile(file: string, statuses: readonly ServerStatus[], now: Date): string[] {
  const servers = new Map<string, ToolsBaseline>();
  const skipped: string[] = [];
  for (const status of statuses) {
    const tools = status.inventory?.complete ? status.inventory.tools : null;
    if (tools) servers.set(status.config.name, tools);
    else skipped.push(status.config.name);
  }
  writeFileSync(file, JSON.stringify(baselineDocument(servers, now), null, 2) + '\n');
  return skipped;
}
