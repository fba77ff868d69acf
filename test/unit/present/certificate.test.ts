import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serverReport, formatServerTable } from '../../../src/cli/format';
import { certificateOf, certificateView, CERTIFICATE_WARNING_DAYS } from '../../../src/present/certificate';
import { detailRows } from '../../../src/present/details';
import { describeState } from '../../../src/present/states';
import { status } from './fixtures';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const DAY = 24 * 60 * 60 * 1000;

void describe('certificateView', () => {
  const cases: ReadonlyArray<{ left: number; daysLeft: number; text: string; warning: boolean }> = [
    { left: 90 * DAY, daysLeft: 90, text: 'certificate expires in 90 days (2027-03-01)', warning: false },
    { left: CERTIFICATE_WARNING_DAYS * DAY, daysLeft: 14, text: 'certificate expires in 14 days (2026-12-15)', warning: false },
    // A certificate issued for 10 days, read a few seconds after it was made.
    { left: 10 * DAY - 5_000, daysLeft: 10, text: 'certificate expires in 10 days (2026-12-11)', warning: true },
    { left: DAY + 1, daysLeft: 1, text: 'certificate expires in 1 day (2026-12-02)', warning: true },
    { left: 3 * 60 * 60 * 1000, daysLeft: 0, text: 'certificate expires within a day (2026-12-01)', warning: true },
    { left: -2 * DAY, daysLeft: -2, text: 'certificate expired on 2026-11-29', warning: true },
  ];
  for (const { left, daysLeft, text, warning } of cases) {
    void it(`${text}`, () => {
      const view = certificateView({ validTo: NOW + left }, NOW);
      assert.equal(view.daysLeft, daysLeft);
      assert.equal(view.text, text);
      assert.equal(view.warning, warning);
    });
  }

  void it('is shown only while the server is up', () => {
    assert.equal(certificateOf(status('a', { state: 'down', certificate: { validTo: NOW + DAY * 5 } }), NOW), undefined);
    assert.equal(certificateOf(status('a', { state: 'up', certificate: null }), NOW), undefined);
    assert.equal(certificateOf(status('a', { state: 'up', certificate: { validTo: NOW + DAY * 5 } }), NOW)?.daysLeft, 5);
  });
});

void describe('the certificate in the views', () => {
  const soon = status('api', {
    state: 'up',
    lastRttMs: 12,
    config: { transport: 'http', url: 'https://api.example/mcp' },
    certificate: { validTo: NOW + 10 * DAY - 5_000, subject: 'api.example' },
  });
  const later = status('web', {
    state: 'up',
    lastRttMs: 12,
    config: { transport: 'http', url: 'https://web.example/mcp' },
    certificate: { validTo: NOW + 200 * DAY },
  });

  void it('is a detail row (tree children, tooltip, Copy Details), marked as a warning under the threshold', () => {
    const row = detailRows(soon, NOW).find((candidate) => candidate.key === 'certificate');
    assert.deepEqual(row, { key: 'certificate', label: 'certificate', value: 'expires in 10 days (2026-12-11)', warning: true });
    const calm = detailRows(later, NOW).find((candidate) => candidate.key === 'certificate');
    assert.deepEqual(calm, { key: 'certificate', label: 'certificate', value: 'expires in 200 days (2027-06-19)' });
  });

  void it('joins the tree description only when it needs attention', () => {
    assert.equal(describeState(soon, NOW), 'up · 12 ms · certificate expires in 10 days (2026-12-11)');
    assert.equal(describeState(later, NOW), 'up · 12 ms');
  });

  void it("is in check --json and in the table's DETAIL column", () => {
    // serverReport dates the days left by the real clock, as the CLI does.
    const validTo = Date.now() + 10 * DAY - 5_000;
    const report = serverReport({ ...soon, certificate: { validTo } });
    assert.deepEqual(
      { ...report.certificate, text: undefined },
      { validTo: new Date(validTo).toISOString(), daysLeft: 10, warning: true, text: undefined },
    );
    assert.match(formatServerTable([report], { color: false }, '/', true), /api-server 1\.0\.0 · warning: certificate expires in 10 days/);
    assert.equal(serverReport({ ...soon, state: 'down' }).certificate, null);
  });
});
