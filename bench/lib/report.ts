// One row per figure: what we measured, what it is compared with in the same run, and the target it must hold.
import { round } from './stats';

export interface Figure {
  readonly section: string;
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** What the value is divided by, measured in the same run (a raw exchange, a baseline, a protocol bound). */
  readonly reference: { readonly name: string; readonly value: number } | null;
  /** The bound the figure must stay at or under; `on` says whether it applies to the value or to value/reference. */
  readonly target: { readonly max: number; readonly on: 'value' | 'ratio' } | null;
  /**
   * The cheapest way to do the same work, measured in the same run. When the floor itself is above the target (its
   * value, or for a target on the ratio, its value over the same reference), no implementation can hold it on this
   * machine: the figure is then judged against the floor instead (at most `slack` times it, FLOOR_SLACK unless the
   * figure says), and both numbers are printed.
   */
  readonly floor?: {
    readonly name: string;
    readonly value: number;
    /** A tighter bound than FLOOR_SLACK where 10 % of the floor is more than ours could honestly need (a process's RSS). */
    readonly slack?: number;
  };
  readonly note?: string;
}

export interface Skipped {
  readonly section: string;
  readonly reason: string;
}

export function ratioOf(figure: Figure): number | null {
  if (!figure.reference || figure.reference.value === 0 || !Number.isFinite(figure.reference.value)) return null;
  return figure.value / figure.reference.value;
}

/** The floor in the target's own terms: its value, or for a target on the ratio, its value over the same reference. */
function floorOnTarget(figure: Figure): number | null {
  if (!figure.target || !figure.floor) return null;
  if (figure.target.on === 'value') return figure.floor.value;
  return ratioOf({ ...figure, value: figure.floor.value });
}

/**
 * How far above an unreachable target's floor ours may be and still hold: a floor does nothing but the bare exchange,
 * ours also judges, times and records it. Without a bound, any figure whose floor is above the target would pass.
 */
export const FLOOR_SLACK = 1.1;

function slackOf(figure: Figure): number {
  return figure.floor?.slack ?? FLOOR_SLACK;
}

/** Ours over the floor, in the figure's unit. */
function overFloor(figure: Figure): number | null {
  if (!figure.floor || figure.floor.value <= 0 || !Number.isFinite(figure.floor.value)) return null;
  return figure.value / figure.floor.value;
}

/** The floor measured in the same run is itself above the target. */
export function belowFloor(figure: Figure): boolean {
  const floor = floorOnTarget(figure);
  return floor !== null && figure.target !== null && floor > figure.target.max;
}

export function held(figure: Figure): boolean | null {
  if (!figure.target) return null;
  if (belowFloor(figure)) {
    const over = overFloor(figure);
    return over !== null && over <= slackOf(figure);
  }
  const measured = figure.target.on === 'ratio' ? ratioOf(figure) : figure.value;
  if (measured === null || !Number.isFinite(measured)) return false;
  return measured <= figure.target.max;
}

/**
 * The figures a section promised (`expects`: the start of each targeted figure's name) and did not report, as not
 * measured: NaN never holds a target, so each counts as missed.
 */
export function notMeasured(section: string, expects: readonly string[], figures: readonly Figure[]): Figure[] {
  const reported = figures.filter((figure) => figure.section === section && figure.target !== null);
  return expects
    .filter((prefix) => !reported.some((figure) => figure.name.startsWith(prefix)))
    .map((prefix) => ({
      section,
      name: `${prefix} (not measured)`,
      value: Number.NaN,
      unit: '',
      reference: null,
      target: { max: 0, on: 'value' as const },
    }));
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 100) return String(Math.round(value));
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

export function renderTable(figures: readonly Figure[], skipped: readonly Skipped[], failed: readonly Skipped[] = []): string {
  const header = ['section', 'figure', 'ours', 'reference (same run)', 'ratio', 'target', 'held'];
  const rows = figures.map((figure) => {
    const ratio = ratioOf(figure);
    const verdict = held(figure);
    return [
      figure.section,
      figure.name,
      `${formatNumber(figure.value)} ${figure.unit}`,
      figure.reference ? `${figure.reference.name} ${formatNumber(figure.reference.value)}` : '-',
      ratio === null ? '-' : `${formatNumber(ratio)}x`,
      figure.target ? `${figure.target.on === 'ratio' ? 'ratio' : 'value'} <= ${figure.target.max}` : '-',
      verdict === null ? '-' : verdict ? (belowFloor(figure) ? 'floor' : 'yes') : 'NO',
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: readonly string[]): string => cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ');
  const out = [line(header), widths.map((width) => '-'.repeat(width)).join('-|-'), ...rows.map(line)];
  // A missed target's note says what to look at (the bundle's biggest inputs, the trials behind a worst case).
  for (const figure of figures)
    if (held(figure) === false && figure.note) out.push(`missed ${figure.section}: ${figure.name}: ${figure.note}`);
  for (const figure of figures)
    if (belowFloor(figure) && figure.floor) {
      const unit = figure.unit ? ` ${figure.unit}` : '';
      const onRatio = figure.target?.on === 'ratio';
      const floorSays = onRatio
        ? `${formatNumber(figure.floor.value)}${unit}, ${formatNumber(floorOnTarget(figure) ?? Number.NaN)}x ${figure.reference?.name}`
        : `${formatNumber(figure.floor.value)}${unit}`;
      out.push(
        `below the floor ${figure.section}: ${figure.name}: target ${onRatio ? `${figure.target?.max}x` : `${figure.target?.max}${unit}`}, but ${figure.floor.name} measured ${floorSays} in this run (ours ${formatNumber(figure.value)}${unit}, ${formatNumber(overFloor(figure) ?? Number.NaN)}x the floor; holds at <= ${slackOf(figure)}x)`,
      );
    }
  for (const skip of skipped) out.push(`skipped ${skip.section}: ${skip.reason}`);
  for (const failure of failed) out.push(`FAILED ${failure.section}: ${failure.reason}`);
  return out.join('\n');
}

export function figureForJson(figure: Figure): Record<string, unknown> {
  const ratio = ratioOf(figure);
  return {
    ...figure,
    value: round(figure.value, 4),
    ratio: ratio === null ? null : round(ratio, 4),
    held: held(figure),
    ...(belowFloor(figure) ? { belowFloor: true } : {}),
  };
}
