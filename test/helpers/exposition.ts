// A /metrics body as the scraper receives it: the exposition's UTF-8 parts in order, decoded.
import type { Exposition } from '../../src/metrics/promSink';

export function bodyText(exposition: Exposition): string {
  return Buffer.concat(exposition.body.parts).toString('utf8');
}
