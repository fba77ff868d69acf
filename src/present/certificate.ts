// "certificate expires in 10 days": how an HTTPS server's certificate reads in the tree, the tooltip, "Copy Details" and
// the CLI, and when it deserves a warning. Pure: the facts come from the connection (src/mcp), the time from the caller.

import * as l10n from '@vscode/l10n';
import type { CertificateFacts, ServerStatus } from '../core/model';

/** Under this many days left, the certificate is shown as a warning: time to renew before clients start refusing it. */
export const CERTIFICATE_WARNING_DAYS = 14;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface CertificateView {
  /** Whole days left, rounded: a certificate issued for 10 days reads "10 days" on its first day. Negative: expired. */
  readonly daysLeft: number;
  /** "expires in 10 days (2026-12-11)", beside a "certificate" label. */
  readonly expiry: string;
  /** "certificate expires in 10 days (2026-12-11)", standing alone. */
  readonly text: string;
  readonly warning: boolean;
  /** The expiry date, YYYY-MM-DD (UTC). */
  readonly expires: string;
}

export function certificateView(facts: CertificateFacts, nowMs: number): CertificateView {
  const leftMs = facts.validTo - nowMs;
  const daysLeft = Math.round(leftMs / DAY_MS);
  const expires = new Date(facts.validTo).toISOString().slice(0, 10);
  const expiry =
    leftMs <= 0
      ? l10n.t('expired on {0}', expires)
      : leftMs < DAY_MS
        ? l10n.t('expires within a day ({0})', expires)
        : daysLeft === 1
          ? l10n.t('expires in 1 day ({0})', expires)
          : l10n.t('expires in {0} days ({1})', daysLeft, expires);
  return { daysLeft, expiry, text: l10n.t('certificate {0}', expiry), warning: leftMs < CERTIFICATE_WARNING_DAYS * DAY_MS, expires };
}

/** The certificate of a server that is up, as it reads now; undefined while it is not up or none was read. */
export function certificateOf(status: Pick<ServerStatus, 'state' | 'certificate'>, nowMs: number): CertificateView | undefined {
  return status.state === 'up' && status.certificate ? certificateView(status.certificate, nowMs) : undefined;
}
