import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settledCardPayment } from './fixtures';
import { accessibilityViolations, shot, signIn as signInAs, startBrowser, type BrowserKit } from './browser-kit';
import { startTestService, type TestMerchant, type TestService } from './harness';

/**
 * The dashboard's disputes pages in a real browser (Debian chromium through playwright-core), on PGlite:
 * the API behind them is covered on both engines by dashboard.test.ts and disputes.test.ts. A dispute
 * opened by the sandbox acquirer shows in the list with its deadline counting down (red under 48
 * hours on the merchant's clock); its page takes written evidence and a PDF, offers the file back, and
 * submits after a confirmation. The pages in Portuguese and Spanish, and on a 390 px phone with no
 * sideways scrolling. axe-core checks the WCAG 2.1 A and AA rules on each view; screenshots go to
 * test-artifacts/dashboard/ (docs/images/dashboard/ with DASHBOARD_SCREENSHOTS=docs).
 */
/** A one-page PDF, as small as a PDF gets. */
const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

let service: TestService;
let kit: BrowserKit;
let merchant: TestMerchant;
/** The dispute answered in under 48 hours and the one with a week left, opened in beforeAll. */
let urgent: { id: string; reference: string };
let fresh: { id: string; reference: string };

const open = (viewport: { width: number; height: number }, locale: string, hash = ''): Promise<Page> => kit.open(`${service.baseUrl}/dashboard${hash}`, { viewport, locale });

const signIn = (page: Page, signInLabel: RegExp): Promise<void> => signInAs(page, merchant, signInLabel);

/** Opens a dispute on a new paid card payment through the sandbox control of the API. */
async function disputedPayment(reference: string): Promise<{ id: string; reference: string }> {
  const { token, details } = await settledCardPayment(service, merchant, { reference_id: reference, payment: { amount: '120.00' } });
  expect(details.general_info.transaction_status).toBe('PAID');
  const opened = await service.post(`/sandbox/payments/${token}/dispute`, {}, { token: merchant.token });
  expect(opened.status, opened.text).toBe(200);
  expect(opened.body.status).toBe('NEEDS_RESPONSE');
  return { id: opened.body.dispute_id, reference };
}

async function apiDispute(id: string) {
  const read = await service.get(`/disputes/${id}`, { token: merchant.token });
  expect(read.status, read.text).toBe(200);
  return read.body;
}

beforeAll(async () => {
  service = await startTestService('pglite');
  merchant = await service.merchant('Loja Exemplo');
  kit = await startBrowser();
  // The sandbox's disputes give 7 days to answer: 5 days 20.5 hours later on the merchant's clock, the
  // first has 1 day 3.5 hours left; the second, opened then, has a week.
  urgent = await disputedPayment('pedido-disputa-1');
  const moved = await service.post('/sandbox/clock/advance', { seconds: 5 * 86_400 + 20.5 * 3_600 }, { token: merchant.token });
  expect(moved.status, moved.text).toBe(200);
  fresh = await disputedPayment('pedido-disputa-2');
});

afterAll(async () => {
  await kit?.close();
  await service?.close();
});

describe('dashboard disputes in chromium', () => {
  it('lists the disputes with their deadlines counting down, takes text evidence and a PDF on a dispute, and submits it after a confirmation', async () => {
    const page = await open({ width: 1280, height: 900 }, 'en-US');
    await signIn(page, /^Sign in$/);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Disputes' }).click();
    await page.getByRole('heading', { name: 'Disputes' }).waitFor();

    // Newest first; the deadline under 48 hours in red, the other not.
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).getAttribute('data-dispute-id')).toBe(fresh.id);
    const first = rows.nth(1);
    expect(await first.getAttribute('data-dispute-id')).toBe(urgent.id);
    expect((await first.locator('.deadline').innerText()).trim()).toBe('⚠ 1 day 3 hours left');
    expect(await first.locator('.deadline').getAttribute('class')).toContain('urgent');
    expect(await first.locator('.deadline').evaluate((e) => getComputedStyle(e).color)).toBe('rgb(180, 35, 24)');
    expect((await rows.nth(0).locator('.deadline').innerText()).trim()).toBe('6 days 23 hours left');
    expect(await rows.nth(0).locator('.deadline').getAttribute('class')).not.toContain('urgent');
    await expect.poll(() => first.innerText()).toMatch(/Needs response\s+R\$\s?120\.00\s+Fraud\s+Chargeback/);
    expect(await first.locator('.badge').getAttribute('data-code')).toBe('NEEDS_RESPONSE');
    await shot(page, 'disputes');
    expect(await accessibilityViolations(page)).toEqual([]);

    // The status filter.
    await page.getByLabel('Status').selectOption('UNDER_REVIEW');
    await page.getByText('No disputes.').waitFor();
    await page.getByLabel('Status').selectOption('NEEDS_RESPONSE');
    await expect.poll(() => rows.count()).toBe(2);

    // The dispute's page: its facts, the deadline, the evidence forms.
    await page.getByRole('link', { name: urgent.reference }).click();
    await page.getByRole('heading', { name: `Dispute ${urgent.reference}` }).waitFor();
    expect(await page.locator('.deadline-line .deadline.urgent').innerText()).toContain('1 day 3 hours left');
    await page.getByText('10.4 · Other Fraud – Card-Absent Environment').waitFor();

    const text = page.locator('form.evidence-text');
    await text.getByLabel('Shipping carrier').fill('Correios');
    await text.getByRole('button', { name: 'Save the evidence' }).click();
    await text.getByText('Evidence saved.').waitFor();
    expect((await apiDispute(urgent.id)).evidence.shipping_carrier).toBe('Correios');

    // A PDF of a kind; then it is listed and downloads as it was sent.
    const files = page.locator('section', { has: page.getByRole('heading', { name: 'Files' }) });
    await files.getByLabel('What the file shows').selectOption('receipt');
    await files.getByLabel('File', { exact: true }).setInputFiles({ name: 'recibo-1042.pdf', mimeType: 'application/pdf', buffer: PDF });
    await files.getByRole('button', { name: 'Upload' }).click();
    await files.getByText('recibo-1042.pdf uploaded.').waitFor();
    const link = files.getByRole('link', { name: 'Download recibo-1042.pdf' });
    await link.waitFor();
    expect(await files.locator('ul.files li').innerText()).toContain('Receipt');
    const href = (await link.getAttribute('href'))!;
    const downloaded = await page.evaluate(async (url) => {
      const response = await fetch(url);
      return { status: response.status, type: response.headers.get('content-type'), bytes: Array.from(new Uint8Array(await response.arrayBuffer())) };
    }, href);
    expect(downloaded.status).toBe(200);
    expect(downloaded.type).toBe('application/pdf');
    expect(Buffer.from(downloaded.bytes).equals(PDF)).toBe(true);
    const stored = await apiDispute(urgent.id);
    expect(stored.evidence.files.map((f: any) => [f.filename, f.kind, f.content_type, f.size])).toEqual([['recibo-1042.pdf', 'receipt', 'application/pdf', PDF.length]]);
    expect(href).toBe(`/dashboard/api/disputes/${urgent.id}/evidence/${stored.evidence.files[0].file_id}`);

    // A text typed and not saved goes with the submission; submitting asks first, and is final.
    await text.getByLabel('Tracking number').fill('AA123456789BR');
    await page.getByRole('button', { name: 'Submit the evidence' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('This is final').waitFor();
    await shot(page, 'dispute-submit-confirmation');
    expect(await accessibilityViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Evidence submitted: the dispute is under review.').waitFor();
    await page.locator('h1 .badge[data-code="UNDER_REVIEW"]', { hasText: 'Under review' }).waitFor();
    expect(await page.getByRole('button', { name: 'Submit the evidence' }).count()).toBe(0);
    expect(await page.locator('form.evidence-text').count()).toBe(0);
    const submitted = await apiDispute(urgent.id);
    expect(submitted.status).toBe('UNDER_REVIEW');
    expect(submitted.evidence).toMatchObject({ shipping_carrier: 'Correios', shipping_tracking_number: 'AA123456789BR' });
    expect(submitted.submitted_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    await shot(page, 'dispute');
    expect(await accessibilityViolations(page)).toEqual([]);

    // The dispute and its payment lead to each other.
    await page.locator('.facts').getByRole('link', { name: urgent.reference, exact: true }).click();
    await page.getByRole('heading', { name: `Payment ${urgent.reference}` }).waitFor();
    await page.getByRole('link', { name: urgent.id }).click();
    await page.getByRole('heading', { name: `Dispute ${urgent.reference}` }).waitFor();
    expect(kit.problems).toEqual([]);
  });

  it('shows the list in Portuguese on a 390 px phone without sideways scrolling, and a dispute in Spanish, accepted after a confirmation', async () => {
    const phone = await open({ width: 390, height: 844 }, 'pt-BR', '#/disputes');
    expect(await phone.locator('html').getAttribute('lang')).toBe('pt-BR');
    await signIn(phone, /^Entrar$/);
    await phone.getByRole('heading', { name: 'Contestações' }).waitFor();
    const row = phone.locator(`tbody tr[data-dispute-id="${fresh.id}"]`);
    expect((await row.locator('.deadline').innerText()).trim()).toBe('Faltam 6 dias e 23 horas');
    expect(await row.innerText()).toContain('Fraude');
    const widths = () => phone.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect((await widths()).scroll).toBeLessThanOrEqual(390);
    await row.getByRole('link', { name: fresh.reference }).click();
    await phone.getByRole('heading', { name: `Contestação ${fresh.reference}` }).waitFor();
    await phone.getByRole('button', { name: 'Enviar as evidências' }).waitFor();
    await phone.getByLabel('O que o arquivo mostra').waitFor();
    expect((await widths()).scroll).toBeLessThanOrEqual(390);
    await shot(phone, 'phone-dispute');
    expect(await accessibilityViolations(phone)).toEqual([]);

    const spanish = await open({ width: 1280, height: 900 }, 'es-MX', `#/disputes/${fresh.id}`);
    expect(await spanish.locator('html').getAttribute('lang')).toBe('es');
    await spanish.getByRole('heading', { name: 'Ingresar al panel' }).waitFor();
    await signIn(spanish, /^Ingresar$/);
    await spanish.getByRole('heading', { name: `Disputa ${fresh.reference}` }).waitFor();
    expect((await spanish.locator('.deadline-line .deadline').innerText()).trim()).toBe('Quedan 6 días y 23 horas');
    await spanish.getByRole('button', { name: 'Aceptar la disputa' }).click();
    await spanish.getByRole('dialog').getByText('Es definitivo').waitFor();
    expect(await accessibilityViolations(spanish)).toEqual([]);
    await spanish.getByRole('dialog').getByRole('button', { name: 'Cerrar' }).click();
    expect((await apiDispute(fresh.id)).status).toBe('NEEDS_RESPONSE');
    // Accepting, confirmed, is final too.
    await spanish.getByRole('button', { name: 'Aceptar la disputa' }).click();
    await spanish.getByRole('dialog').getByRole('button', { name: 'Confirmar' }).click();
    await spanish.getByText('Disputa aceptada.').waitFor();
    await spanish.locator('h1 .badge[data-code="ACCEPTED"]', { hasText: 'Aceptada' }).waitFor();
    expect((await apiDispute(fresh.id)).status).toBe('ACCEPTED');
    expect(await spanish.getByRole('button', { name: 'Aceptar la disputa' }).count()).toBe(0);
    expect(kit.problems).toEqual([]);
  });
});
