import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchantNow } from '../src/clock/merchant-clock';
import { balanceDay } from '../src/ledger/ledger';
import { addDays, nextBusinessDay } from '../src/rails/calendar';
import { sweepSettlements } from '../src/settlements/sweep-settlements';
import { advanceClockPast } from './balance-fixtures';
import { settledCardPayment, waitForStatus } from './fixtures';
import { accessibilityViolations, shot, signIn, startBrowser, type BrowserKit } from './browser-kit';
import { startTestService, type TestMerchant, type TestService } from './harness';

/**
 * The dashboard's balance page in a real browser (Debian chromium through playwright-core), on PGlite: the
 * API behind it is covered on both engines by dashboard.test.ts and balance.test.ts. A paid card payment is
 * pending, its day in the chart and the table of money becoming available; 31 days later on the merchant's
 * clock it is available. The balance transactions lead to their payment and dispute, and filter by type. In
 * Portuguese on a 390 px phone with no sideways scrolling, and in Spanish. axe-core checks the WCAG 2.1 A
 * and AA rules on each view; screenshots go to test-artifacts/dashboard/ (docs/images/dashboard/ with
 * DASHBOARD_SCREENSHOTS=docs).
 */

let service: TestService;
let kit: BrowserKit;

const open = (viewport: { width: number; height: number }, locale: string, hash = ''): Promise<Page> => kit.open(`${service.baseUrl}/dashboard${hash}`, { viewport, locale });

/** Whether a canvas has anything drawn on it. */
function drawnPixels(page: Page, selector: string): Promise<number> {
  return page.locator(selector).evaluate((canvas: HTMLCanvasElement) => {
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted += 1;
    return painted;
  });
}

/** The text of one of the three figures of a currency, spaces as plain spaces. */
async function figure(page: Page, currency: string, part: 'available' | 'pending' | 'reserved'): Promise<string> {
  const text = await page.locator(`section[data-currency="${currency}"] .figure-${part} dd`).innerText();
  return text.replace(/\s/g, ' ');
}

/** A paid card payment and the day its money becomes available. */
async function paidPayment(merchant: TestMerchant, reference: string, amount: string): Promise<{ token: string; day: string }> {
  const { token, details } = await settledCardPayment(service, merchant, { reference_id: reference, payment: { amount } });
  expect(details.general_info.transaction_status).toBe('PAID');
  const listed = await service.get('/balance/transactions?type=PAYMENT', { token: merchant.token });
  const row = listed.body.content.find((t: { source_id: string }) => t.source_id === token);
  expect(row.available_on).toMatch(/^\d{4}-\d\d-\d\d$/);
  return { token, day: row.available_on };
}

beforeAll(async () => {
  service = await startTestService('pglite');
  kit = await startBrowser();
});

afterAll(async () => {
  await kit?.close();
  await service?.close();
});

describe('dashboard balance in chromium', () => {
  it('shows a paid payment as pending on its day in the chart and the table, then available once the merchant clock passes that day', async () => {
    const merchant = await service.merchant('Loja Saldo');
    const { token, day } = await paidPayment(merchant, 'pedido-saldo-1', '100.00');
    const page = await open({ width: 1280, height: 900 }, 'en-US');
    await signIn(page, merchant, /^Sign in$/);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Balance' }).click();
    await page.getByRole('heading', { name: 'Balance', level: 1 }).waitFor();

    // 100.00 less the default plan's 3.76 in fees, pending until its day.
    await page.locator('section[data-currency="BRL"]').waitFor();
    expect(await figure(page, 'BRL', 'available')).toBe('R$0.00');
    expect(await figure(page, 'BRL', 'pending')).toBe('R$96.24');
    expect(await figure(page, 'BRL', 'reserved')).toBe('R$0.00');

    // Its day in the table under the chart, which Chart.js drew.
    const upcoming = page.getByRole('region', { name: 'Upcoming availability (BRL)' });
    const dayRow = upcoming.locator(`tr[data-day="${day}"]`);
    await dayRow.waitFor();
    expect(await upcoming.locator('tbody tr').count()).toBe(1);
    const [year, month, date] = day.split('-').map(Number);
    expect((await dayRow.innerText()).replace(/\s+/g, ' ').trim()).toBe(`${month}/${date}/${String(year).slice(2)} R$96.24 R$0.00`);
    await expect.poll(() => drawnPixels(page, '#chart-upcoming')).toBeGreaterThan(500);
    expect(await page.getByRole('img', { name: 'Becoming available per day (BRL)' }).count()).toBe(1);

    // The transaction, with its day, leads to its payment.
    const transactions = page.getByRole('region', { name: 'Balance transactions' });
    const payment = transactions.locator('tbody tr[data-type="PAYMENT"]');
    expect((await payment.innerText()).replace(/\s+/g, ' ')).toContain(`Payment R$100.00 R$3.76 R$96.24 ${month}/${date}/${String(year).slice(2)} pedido-saldo-1`);
    await shot(page, 'balance');
    expect(await accessibilityViolations(page)).toEqual([]);
    await payment.getByRole('link', { name: 'pedido-saldo-1' }).click();
    await page.getByRole('heading', { name: 'Payment pedido-saldo-1' }).waitFor();
    expect(await page.evaluate(() => location.hash)).toBe(`#/payments/${token}`);

    // The type filter.
    await page.goBack();
    await page.getByRole('heading', { name: 'Balance', level: 1 }).waitFor();
    await page.getByLabel('Type').selectOption('REFUND');
    await page.getByText('No balance transactions.').waitFor();
    await page.getByLabel('Type').selectOption('PAYMENT');
    await transactions.locator('tbody tr[data-type="PAYMENT"]').waitFor();

    // 31 days on, on the merchant's clock (or more, to pass the payment's day): available, and nothing left to come.
    await advanceClockPast(service, merchant, day, 31);
    await page.reload();
    await page.locator('section[data-currency="BRL"]').waitFor();
    expect(await figure(page, 'BRL', 'available')).toBe('R$96.24');
    expect(await figure(page, 'BRL', 'pending')).toBe('R$0.00');
    await page.getByText('Nothing becomes available in the next 60 days.').waitFor();
    expect(await page.locator('#chart-upcoming').count()).toBe(0);
    const api = await service.get('/balance', { token: merchant.token });
    expect(api.body.balances).toEqual([{ asset: 'BRL', available: 96.24, pending: 0, reserved: 0 }]);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(kit.problems).toEqual([]);
  });

  it('shows the balance in Portuguese on a 390 px phone without sideways scrolling, a dispute hold and its links, and in Spanish', async () => {
    const merchant = await service.merchant('Loja Exemplo');
    const { token, day } = await paidPayment(merchant, 'pedido-saldo-2', '250.00');
    const refund = await service.post('/refund', { payment_token: token, amount: 20 }, { token: merchant.token });
    expect(refund.status, refund.text).toBe(200);
    await waitForStatus(service, merchant, token, (s) => s === 'PARTIALLY_REFUNDED');
    const dispute = await service.post(`/sandbox/payments/${token}/dispute`, { amount: 50 }, { token: merchant.token });
    expect(dispute.status, dispute.text).toBe(200);

    const phone = await open({ width: 390, height: 844 }, 'pt-BR', '#/balance');
    await signIn(phone, merchant, /^Entrar$/);
    await phone.getByRole('heading', { name: 'Saldo', level: 1 }).waitFor();
    await phone.locator('section[data-currency="BRL"]').waitFor();
    // The API's figures in Brazilian format: 250.00 less its fees pending; the refund, the dispute and its
    // 15.00 fee out now; 50.00 held.
    const [brl] = (await service.get('/balance', { token: merchant.token })).body.balances;
    expect(brl).toMatchObject({ asset: 'BRL', available: -85, reserved: 50 });
    const real = (n: number) => new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(n).replace(/\s/g, ' ');
    expect(await figure(phone, 'BRL', 'pending')).toBe(real(brl.pending));
    expect(await figure(phone, 'BRL', 'available')).toBe('-R$ 85,00');
    expect(await figure(phone, 'BRL', 'reserved')).toBe('R$ 50,00');
    const upcoming = phone.getByRole('region', { name: 'Próximas liberações (BRL)' });
    const [year, month, date] = day.split('-');
    expect((await upcoming.locator(`tr[data-day="${day}"]`).innerText()).replace(/\s+/g, ' ').trim()).toBe(`${date}/${month}/${year} ${real(brl.pending)} R$ 0,00`);
    expect((await upcoming.locator('tr[data-day="held"]').innerText()).replace(/\s+/g, ' ').trim()).toBe('Retido por contestações abertas, até a decisão — R$ 50,00');
    await expect.poll(() => drawnPixels(phone, '#chart-upcoming')).toBeGreaterThan(300);

    const transactions = phone.getByRole('region', { name: 'Movimentações do saldo' });
    await expect.poll(() => transactions.locator('tbody tr').count()).toBe(5);
    expect(await transactions.locator('tbody tr[data-type="DISPUTE"] .badge').innerText()).toBe('reservado');
    await phone.getByRole('heading', { name: 'Liquidações', level: 2 }).waitFor();
    await phone.getByText('Nenhuma liquidação ainda.').waitFor();
    await phone.getByRole('button', { name: 'Pausar as liquidações' }).waitFor();
    const widths = () => phone.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect((await widths()).scroll).toBeLessThanOrEqual(390);
    await shot(phone, 'phone-balance');
    expect(await accessibilityViolations(phone)).toEqual([]);
    await transactions.locator('tbody tr[data-type="FEE"]').getByRole('link', { name: 'pedido-saldo-2' }).click();
    await phone.getByRole('heading', { name: 'Contestação pedido-saldo-2' }).waitFor();
    expect(await phone.evaluate(() => location.hash)).toBe(`#/disputes/${dispute.body.dispute_id}`);
    await phone.goBack();
    await phone.getByRole('heading', { name: 'Saldo', level: 1 }).waitFor();
    await phone.locator('tbody tr[data-type="REFUND"]').getByRole('link', { name: 'pedido-saldo-2' }).click();
    await phone.getByRole('heading', { name: 'Pagamento pedido-saldo-2' }).waitFor();
    expect((await widths()).scroll).toBeLessThanOrEqual(390);

    const spanish = await open({ width: 1280, height: 900 }, 'es-MX', '#/balance');
    await signIn(spanish, merchant, /^Ingresar$/);
    await spanish.getByRole('heading', { name: 'Saldo', level: 1 }).waitFor();
    await spanish.locator('section[data-currency="BRL"]').waitFor();
    expect(await spanish.locator('section[data-currency="BRL"] dt').allInnerTexts()).toEqual(['Disponible', 'Por liberar', 'Reservado']);
    await spanish.getByRole('region', { name: 'Movimientos del saldo' }).locator('tbody tr[data-type="FEE"]').getByText('Comisión').waitFor();
    await spanish.getByRole('heading', { name: 'Liquidaciones' }).waitFor();
    await spanish.getByText('Ninguna cuenta registrada').waitFor();
    await spanish.getByRole('button', { name: 'Pausar las liquidaciones' }).waitFor();
    expect(await accessibilityViolations(spanish)).toEqual([]);
    expect(kit.problems).toEqual([]);
  });

  it('lists a settlement with its account masked, and pauses and resumes settlements after a confirmation', async () => {
    const merchant = await service.merchant('Loja Liquidada');
    const set = await service.request('PUT', '/settlements/settings', { currencies: [{ asset: 'BRL', minimum: 50, destination: { pix_key: 'financeiro@loja.com.br' } }] }, { token: merchant.token });
    expect(set.status, set.text).toBe(200);
    await paidPayment(merchant, 'pedido-liquidado-1', '100.00');
    // A business day 35 days on, at noon in Brasília: the payment is available and the sweep settles it.
    const today = balanceDay(await merchantNow(service.ctx.db, merchant.merchant_id), 'BRL');
    const day = nextBusinessDay(addDays(today, 35));
    const seconds = Math.ceil((Date.parse(`${day}T15:00:00Z`) - (await merchantNow(service.ctx.db, merchant.merchant_id)).getTime()) / 1000);
    expect((await service.post('/sandbox/clock/advance', { seconds }, { token: merchant.token })).status).toBe(200);
    await sweepSettlements(service.ctx);
    const [settlement] = (await service.get('/settlements', { token: merchant.token })).body.content;
    expect(settlement).toMatchObject({ amount: 96.24, asset: 'BRL', settlement_date: day });

    const page = await open({ width: 1280, height: 900 }, 'en-US', '#/balance');
    await signIn(page, merchant, /^Sign in$/);
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Settlements', level: 2 }) });
    await section.waitFor();
    expect((await section.locator('ul.destinations li').innerText()).replace(/\s+/g, ' ').trim()).toBe('BRL · PIX key (EMAIL) f*********@loja.com.br · from R$50.00');
    expect(await section.locator('.settlement-state').innerText()).toBe('Settlements are on.');
    const row = section.locator(`tbody tr[data-settlement-id="${settlement.settlement_id}"]`);
    await row.waitFor();
    const short = (iso: string) => {
      const [y, m, d] = iso.split('-').map(Number);
      return `${m}/${d}/${String(y).slice(2)}`;
    };
    const text = (await row.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain(`${short(day)} R$96.24`);
    expect(text).toContain(`${short(settlement.arrival_date)} PIX key (EMAIL) f*********@loja.com.br`);
    expect(await row.locator('.badge').getAttribute('data-code')).toMatch(/^(PENDING|IN_TRANSIT|PAID)$/);
    expect(await row.locator('.badge').innerText()).toMatch(/^(Pending|In transit|Paid)$/);
    expect(await page.content()).not.toContain('financeiro@');
    // Its balance transaction says which settlement it is.
    await page.locator('tbody tr[data-type="SETTLEMENT"]').getByText(`Settlement of ${short(day)}`).waitFor();
    await shot(page, 'balance-settlements');
    expect(await accessibilityViolations(page)).toEqual([]);

    // Pausing asks first; closing the dialog changes nothing.
    await section.getByRole('button', { name: 'Pause settlements' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('No settlement is made until you resume them').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect((await service.get('/settlements/settings', { token: merchant.token })).body.paused).toBe(false);
    await section.getByRole('button', { name: 'Pause settlements' }).click();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await section.getByText('Settlements paused.').waitFor();
    expect(await section.locator('.settlement-state').innerText()).toBe('Settlements are paused: none is made until you resume them.');
    expect((await service.get('/settlements/settings', { token: merchant.token })).body.paused).toBe(true);
    await section.getByRole('button', { name: 'Resume settlements' }).click();
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await section.getByText('Settlements resumed.').waitFor();
    expect((await service.get('/settlements/settings', { token: merchant.token })).body.paused).toBe(false);
    await section.getByRole('button', { name: 'Pause settlements' }).waitFor();
    expect(kit.problems).toEqual([]);
  });
});
