// The text of our own sampled metrics (sampledMetrics.ts), written byte for byte as prom-client's Registry writes a
// metric's values: `# HELP`, `# TYPE`, then `name{labels} value` per value, joined by newlines, the same in the text
// format and in OpenMetrics for gauges and histograms. The duration histogram changes at every probe, so it is
// written at every scrape; prom-client spends about a microsecond per line on it (arrays, a WeakMap lookup and a
// template per line), this path a string concatenation of a prefix kept per series. Proven equal to prom-client's
// output over generated inputs by test/unit/metrics/sampledText.test.ts; a difference fails that test, not a scrape.

/** A series' label names and values. Here, at the bottom of the exposition files, so that every one of them may use it. */
export type Labels = Readonly<Record<string, string>>;

/** prom-client's escapeString: in names, HELP text and (with quotes) label values. */
export function escapeText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function escapeLabelValue(value: string): string {
  return escapeText(value).replace(/"/g, '\\"');
}

/** prom-client's getValueAsString. */
export function valueText(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (!Number.isFinite(value)) return value < 0 ? '-Inf' : '+Inf';
  return `${value}`;
}

/** `metricName{labels} ` (with the space before the value), or `metricName ` for an empty label set. */
export function linePrefix(metricName: string, labels: Labels): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(labels)) parts.push(`${name}="${escapeLabelValue(value)}"`);
  return parts.length > 0 ? `${metricName}{${parts.join(',')}} ` : `${metricName} `;
}

export function header(name: string, help: string, type: string): string {
  const escaped = escapeText(name);
  return `# HELP ${escaped} ${escapeText(help)}\n# TYPE ${escaped} ${type}`;
}
