import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settledCardPayment } from './fixtures';
import { accessibilityViolations, shot, startBrowser, type BrowserKit } from './browser-kit';
import { startTestService, type TestService } from './harness';

/**
 * The operator view of reconciliation (/dashboard/operator) in a real browser (Debian chromium through
 * playwright-core), on PGlite: the admin API behind it is covered on both engines by
 * reconciliation.test.ts. The operator signs in with the admin token (a wrong one is refused), imports the
 * simulator's settlement report with a wrong amount and a line of no payment of Colibri's planted in it
 * through the page's form, sees both lines, resolves one with a note and the other with an adjustment of
 * the merchant's balance, and imports the same file again, which changes nothing. axe-core checks the
 * WCAG 2.1 A and AA rules; screenshots go to test-artifacts/dashboard/ (docs/images/dashboard/ with
 * DASHBOARD_SCREENSHOTS=docs).
 */

let service: TestService;
let kit: BrowserKit;
let folder: string;

const open = (locale: string): Promise<Page> => kit.open(`${service.baseUrl}/dashboard/operator`, { locale });

const withColumn = (line: string, index: number, value: string) => line.split(',').map((v, i) => (i === index ? value : v)).join(',');

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'colibri-operator-'));
  service = await startTestService('pglite');
  kit = await startBrowser();
});

afterAll(async () => {
  await kit?.close();
  await service?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('the operator view of reconciliation in chromium', () => {
  it('imports a report through its form, lists what did not match, and resolves a line with a note and another with an adjustment', async () => {
    const merchant = await service.merchant('Loja Conciliada');
    const { token: wrong } = await settledCardPayment(service, merchant, { reference_id: 'pedido-op-1', payment: { amount: '100.00' } });
    const { token: other } = await settledCardPayment(service, merchant, { reference_id: 'pedido-op-2', payment: { amount: '20.00' } });
    const day = String((await service.get('/sandbox/clock', { token: merchant.token })).body.now).slice(0, 10);
    const report = await service.get(`/sandbox/settlement-report?date=${day}`, { token: merchant.token });
    expect(report.status, report.text).toBe(200);
    const lines = report.text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    // The first payment's Gross Credit 100.50 instead of 100.00; a copy of the second's line under a reference of no one's.
    const planted = lines.map((l) => (l.includes(`${wrong}:`) ? withColumn(l, 11, '100.50') : l));
    const stranger = withColumn(withColumn(withColumn(lines.find((l) => l.includes(`${other}:`))!, 2, 'NOTCOLIBRI000009'), 3, 'order-from-elsewhere'), 21, '');
    const file = join(folder, 'settlement_detail_report_batch_7.csv');
    writeFileSync(file, `${planted.join('\n')}\n${stranger}\n`);

    const page = await open('en-US');
    await page.getByLabel('Admin token').fill('adm_not-the-token');
    await page.getByLabel('Your name (X-Operator)').fill('ana@ops');
    await page.getByRole('button', { name: 'Operator sign-in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The admin token is wrong.' }).waitFor();
    await page.getByLabel('Admin token').fill(service.ctx.adminToken);
    await page.getByRole('button', { name: 'Operator sign-in' }).click();
    await page.getByRole('heading', { name: 'Reconciliation runs', level: 1 }).waitFor();
    await page.getByText('No report imported yet.').waitFor();

    await page.getByLabel('Processor').selectOption('sandbox');
    await page.getByLabel('Report file (CSV)').setInputFiles(file);
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('status').filter({ hasText: 'Imported: 3 lines.' }).waitFor();
    await page.getByRole('heading', { name: /^Reconciliation: sandbox/ }).waitFor();
    const table = page.getByRole('region', { name: 'Lines that did not match' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(2);
    const amountRow = table.locator('tr[data-reason="AMOUNT_MISMATCH"]');
    expect((await amountRow.innerText()).replace(/\s+/g, ' ')).toContain('Amount differs');
    expect((await amountRow.innerText()).replace(/\s+/g, ' ')).toContain('R$100.50 R$100.00');
    expect(await accessibilityViolations(page)).toEqual([]);
    await shot(page, 'operator-run');

    // The line of no one's: a note, no money moves.
    await table.locator('tr[data-reason="MISSING_IN_COLIBRI"]').getByRole('button', { name: 'Resolve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Resolve this line' });
    expect(await dialog.getByLabel("Adjust the merchant's balance").isChecked()).toBe(false);
    await dialog.getByLabel('Why no money moves').fill('another acquirer account, not ours');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);

    // The wrong amount: an adjustment of 0.50 to the merchant, the difference the form proposes.
    await amountRow.getByRole('button', { name: 'Resolve' }).click();
    expect(await dialog.getByLabel("Adjust the merchant's balance").isChecked()).toBe(true);
    expect(await dialog.getByLabel(/^Amount/).inputValue()).toBe('0.50');
    expect(await dialog.getByLabel('Merchant id').inputValue()).toBe(merchant.merchant_id);
    await dialog.getByLabel('Reason of the adjustment').fill('the processor settled 0.50 more');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Nothing here.').waitFor();

    // Both resolved by the operator named at sign-in, one with a balance adjustment the merchant sees.
    await page.getByLabel('Status').selectOption('RESOLVED');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(2);
    expect(await table.innerText()).toContain('Resolved by ana@ops');
    const runId = new URL(page.url()).hash.split('/')[2]!.split('?')[0]!;
    const run = await service.get(`/admin/reconciliation/runs/${runId}?status=RESOLVED`, { headers: { authorization: `Bearer ${service.ctx.adminToken}` } });
    const byReason = Object.fromEntries(run.body.unmatched.content.map((l: { reason: string }) => [l.reason, l]));
    expect(byReason.MISSING_IN_COLIBRI).toMatchObject({ resolved_by: 'ana@ops', resolution_note: 'another acquirer account, not ours', adjustment_id: null });
    expect(byReason.AMOUNT_MISMATCH).toMatchObject({ resolved_by: 'ana@ops', adjustment_id: expect.any(String) });
    const adjustments = await service.get('/balance/transactions?type=ADJUSTMENT', { token: merchant.token });
    expect(adjustments.body.content).toHaveLength(1);
    expect(adjustments.body.content[0]).toMatchObject({ type: 'ADJUSTMENT', amount: 0.5, asset: 'BRL' });

    // The same file again: its first run, nothing new.
    await page.getByRole('link', { name: /Back to the runs/ }).click();
    await page.getByRole('heading', { name: 'Reconciliation runs', level: 1 }).waitFor();
    await page.getByLabel('Processor').selectOption('sandbox');
    await page.getByLabel('Report file (CSV)').setInputFiles(file);
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('status').filter({ hasText: 'This file was imported before' }).waitFor();
    expect(new URL(page.url()).hash).toBe(`#/runs/${runId}?repeated=1`);
    const runs = await service.get('/admin/reconciliation/runs', { headers: { authorization: `Bearer ${service.ctx.adminToken}` } });
    expect(runs.body.totalElements).toBe(1);
    expect(kit.problems).toEqual([]);
  });

  it('speaks Portuguese, and forgets the token when the page is reloaded', async () => {
    const page = await open('pt-BR');
    await page.getByLabel('Token de administração').fill(service.ctx.adminToken);
    await page.getByLabel('Seu nome (X-Operator)').fill('joana');
    await page.getByRole('button', { name: 'Entrada do operador' }).click();
    await page.getByRole('heading', { name: 'Conciliações', level: 1 }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.reload();
    await page.getByLabel('Token de administração').waitFor();
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie)).not.toContain(service.ctx.adminToken);
    expect(kit.problems).toEqual([]);
  });
});
