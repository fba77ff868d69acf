// The inventory, drift and cause fields of a server in the CLI's reports. Pure.

import { describeDrift } from '../core/inventory/drift';
import type { ServerStatus } from '../core/model';
import { certificateOf } from '../present/certificate';

export interface DepthFields {
  readonly tools: { readonly count: number; readonly hash: string } | null;
  readonly prompts: { readonly count: number } | null;
  readonly resources: { readonly count: number } | null;
  /** False when a listing failed or hit a bound; null before any listing. */
  readonly inventoryComplete: boolean | null;
  readonly drift: {
    readonly added: readonly string[];
    readonly removed: readonly string[];
    readonly changed: readonly { readonly name: string; readonly fields: readonly string[] }[];
    readonly summary: string;
  } | null;
  readonly cause: { readonly id: string; readonly summary: string } | null;
  readonly nextStep: string | null;
  /** Answers kept taking longer than the slow threshold (watch, the extension); check judges --slow-ms itself. */
  readonly slow: boolean;
  /** HTTPS, while up: the server certificate's expiry; `warning` under CERTIFICATE_WARNING_DAYS days left. */
  readonly certificate: { readonly validTo: string; readonly daysLeft: number; readonly warning: boolean; readonly text: string } | null;
}

export function depthFields(status: ServerStatus, nowMs: number = Date.now()): DepthFields {
  const inventory = status.inventory ?? null;
  const drift = status.drift ?? null;
  const cause = status.cause ?? null;
  return {
    tools: inventory?.tools ? { count: inventory.tools.count, hash: inventory.tools.hash } : null,
    prompts: inventory?.prompts ?? null,
    resources: inventory?.resources ?? null,
    inventoryComplete: inventory ? inventory.complete : null,
    drift: drift ? { added: drift.added, removed: drift.removed, changed: drift.changed, summary: describeDrift(drift) } : null,
    cause: cause ? { id: cause.id, summary: cause.summary } : null,
    nextStep: cause?.nextStep ?? null,
    slow: status.slow ?? false,
    certificate: certificateFields(status, nowMs),
  };
}

function certificateFields(status: ServerStatus, nowMs: number): DepthFields['certificate'] {
  const view = certificateOf(status, nowMs);
  if (!view || !status.certificate) return null;
  return { validTo: new Date(status.certificate.validTo).toISOString(), daysLeft: view.daysLeft, warning: view.warning, text: view.text };
}

/** `7`, `7 (changed)`, `7+` for a partial listing, `-` before a listing. */
export function toolsCell(fields: DepthFields): string {
  if (!fields.tools) return fields.inventoryComplete === null ? '-' : '0';
  const partial = fields.inventoryComplete === false ? '+' : '';
  return `${fields.tools.count}${partial}${fields.drift ? ' (changed)' : ''}`;
}
