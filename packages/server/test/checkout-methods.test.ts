import { expect, it } from 'vitest';
import { balances } from '../src/ledger/ledger';
import { isBusinessDay } from '../src/rails/calendar';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';
import { CARD_FORM, febrabanCheck, generate, generateBody, waitForCheckout } from './checkout-fixtures';
import { reportColumn, reportFilter } from './report-fixtures';

/**
 * The contract's "Hosted checkout" and "Sandbox controls" for the attempt started at generation, the
 * boleto's own life, and the spec's other methods (OXXO, PAYNET, SPEI, PicPay) end to end.
 */

const HOUR = 3600;
const DAY = 86_400;

async function clockNow(service: TestService, m: TestMerchant): Promise<Date> {
  return new Date((await service.get('/sandbox/clock', { token: m.token })).body.now);
}

async function advance(service: TestService, m: TestMerchant, seconds: number) {
  const response = await service.post('/sandbox/clock/advance', { seconds }, { token: m.token });
  expect(response.status).toBe(200);
}

async function read(service: TestService, m: TestMerchant, checkoutId: string) {
  const response = await service.get(`/checkout/${checkoutId}`, { token: m.token });
  expect(response.status).toBe(200);
  return response.body;
}

async function pay(service: TestService, m: TestMerchant, paymentToken: string) {
  return service.post(`/sandbox/payments/${paymentToken}/pay`, undefined, { token: m.token });
}

/** The Brasília calendar date (UTC−3) of an instant, computed here without the service's code. */
function brasiliaDate(at: Date): string {
  return new Date(at.getTime() - 3 * HOUR * 1000).toISOString().slice(0, 10);
}

/** Business days strictly after `from` up to and including `to`. */
function businessDaysBetween(from: string, to: string): number {
  let count = 0;
  for (let d = new Date(`${from}T00:00:00Z`); ; ) {
    d = new Date(d.getTime() + DAY * 1000);
    const day = d.toISOString().slice(0, 10);
    if (isBusinessDay(day)) count += 1;
    if (day >= to) return count;
  }
}

/** An independent CLABE check digit (weights 3, 7, 1; products mod 10). */
function clabeOk(clabe: string): boolean {
  if (!/^\d{18}$/.test(clabe)) return false;
  const sum = [...clabe.slice(0, 17)].reduce((t, c, i) => t + ((Number(c) * [3, 7, 1][i % 3]!) % 10), 0);
  return (10 - (sum % 10)) % 10 === Number(clabe[17]);
}

/** An independent Luhn check. */
function luhnOk(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let n = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) n = n * 2 > 9 ? n * 2 - 9 : n * 2;
    sum += n;
  }
  return sum % 10 === 0;
}

async function eventsOf(service: TestService, resourceId: string) {
  const rows = await service.ctx.db.selectFrom('events').select(['type', 'data']).where('resource_id', '=', resourceId).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => `${r.type}:${(r.data as { status: string }).status}`);
}

const MX = { paymentCountry: 'MX', paymentCurrency: 'MXN', asset: 'MXN' };
/** A Banamex (002) CLABE with a valid check digit. */
const REFUND_CLABE = '002010077777777771';

describeEachEngine('checkout methods and the boleto life', (service) => {
  it('boleto: due in the merchant business days (default 3), payable past expiresIn to the end of the due date in Brasília, compensated one business day after payment', async () => {
    const m = await service().merchant();
    const generatedAt = await clockNow(service(), m);
    const created = await generate(service(), m, { method: 'BOLETO', amount: '250.00', expiresIn: 60, notificationUrl: 'https://shop.example/cb' });
    expect(created.status).toBe('PROCESSING');
    const boleto = created.payment.boleto;
    expect(boleto.due_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(isBusinessDay(boleto.due_date)).toBe(true);
    expect(businessDaysBetween(brasiliaDate(generatedAt), boleto.due_date)).toBe(3);
    expect(febrabanCheck(boleto.digitable_line)).toEqual({ ok: true, barcode: boleto.barcode });

    // The session's hour passes; the boleto is still payable and the session stays open.
    await advance(service(), m, 2 * HOUR);
    const open = await read(service(), m, created.checkout_id);
    expect(open).toMatchObject({ status: 'PROCESSING', payments: [{ transaction_status: 'CREATED' }] });
    // One minute before the due date ends in Brasília it can still be paid.
    const endOfDue = Date.parse(`${boleto.due_date}T00:00:00-03:00`) + DAY * 1000;
    await advance(service(), m, Math.floor((endOfDue - (await clockNow(service(), m)).getTime()) / 1000) - 60);
    const paid = await pay(service(), m, created.payment.payment_token);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.transaction_status).toBe('PROCESSING');
    const paidAt = await clockNow(service(), m);

    // Until compensation the payment is PROCESSING and the session pending; the page cannot switch away.
    await advance(service(), m, 2 * HOUR);
    expect(await read(service(), m, created.checkout_id)).toMatchObject({ status: 'PROCESSING', payments: [{ transaction_status: 'PROCESSING' }] });
    // The next business day after the payment date, at the time of payment, it compensates.
    let next = brasiliaDate(paidAt);
    do next = new Date(Date.parse(`${next}T00:00:00Z`) + DAY * 1000).toISOString().slice(0, 10);
    while (!isBusinessDay(next));
    const compensation = paidAt.getTime() + (Date.parse(`${next}T00:00:00Z`) - Date.parse(`${brasiliaDate(paidAt)}T00:00:00Z`));
    await advance(service(), m, Math.floor((compensation - (await clockNow(service(), m)).getTime()) / 1000) - 5);
    expect((await read(service(), m, created.checkout_id)).payments[0].transaction_status).toBe('PROCESSING');
    await advance(service(), m, 10);
    // The sweep run by the clock control compensated it without anyone reading the session.
    const row = await service().ctx.db.selectFrom('checkout_sessions').select('status').where('checkout_id', '=', created.checkout_id).executeTakeFirstOrThrow();
    expect(row.status).toBe('PAID');
    const done = await read(service(), m, created.checkout_id);
    expect(done).toMatchObject({ status: 'PAID', payments: [{ transaction_status: 'PAID' }] });

    const details = await service().get(`/transactionDetails/${created.payment.payment_token}`, { token: m.token });
    expect(details.body.general_info.transaction_status).toBe('PAID');
    expect(details.body.payment_info.order_method).toBe('BOLETO');
    expect(details.body.payment_info.expiration_date).toBe(new Date(endOfDue).toISOString().slice(0, 19).replace('T', ' '));
    expect(details.body.transaction_history.map((h: { status: string }) => h.status)).toEqual(['PAID', 'PROCESSING', 'CREATED']);
    expect(await eventsOf(service(), created.payment.payment_token)).toEqual(['payment.status_changed:CREATED', 'payment.status_changed:PROCESSING', 'payment.status_changed:PAID']);
    expect(await eventsOf(service(), created.checkout_id)).toEqual(['checkout.status_changed:PROCESSING', 'checkout.status_changed:PAID']);
    expect((await balances(service().ctx.db, m.merchant_id)).processor_receivable).toBe(25000n);
  });

  it('boleto: unpaid past its due date it lapses, and only then the session ends CANCELED; the term is per merchant', async () => {
    const m = await service().merchant();
    const admin = { headers: { authorization: `Bearer ${service().ctx.adminToken}` } };
    const term = await service().request('PUT', `/admin/merchants/${m.merchant_id}/boleto-term`, { due_business_days: 1 }, admin);
    expect(term.status, JSON.stringify(term.body)).toBe(200);
    expect(term.body).toEqual({ due_business_days: 1 });
    expect((await service().request('PUT', `/admin/merchants/${m.merchant_id}/boleto-term`, { due_business_days: 0 }, admin)).status).toBe(400);
    expect((await service().request('PUT', `/admin/merchants/${m.merchant_id}/boleto-term`, { due_business_days: 2 }, { token: m.token })).status).toBe(401);
    const generatedAt = await clockNow(service(), m);
    const created = await generate(service(), m, { method: 'BOLETO', expiresIn: 60, declinedUrl: 'https://shop.example/declined' });
    const { due_date } = created.payment.boleto;
    expect(businessDaysBetween(brasiliaDate(generatedAt), due_date)).toBe(1);
    const endOfDue = Date.parse(`${due_date}T00:00:00-03:00`) + DAY * 1000;
    await advance(service(), m, Math.ceil((endOfDue - (await clockNow(service(), m)).getTime()) / 1000) + 1);
    const row = await service().ctx.db.selectFrom('checkout_sessions').select(['status', 'end_reason']).where('checkout_id', '=', created.checkout_id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'CANCELED', end_reason: 'EXPIRED' });
    expect((await read(service(), m, created.checkout_id)).payments[0].transaction_status).toBe('EXPIRED');
    const late = await pay(service(), m, created.payment.payment_token);
    expect(late.status).toBe(422);
    expect(late.body.errors[0].code).toBe('03.03.0002');
    expect((await service().get(`/pay/${created.checkout_id}/status`)).body.redirect_url).toBe('https://shop.example/declined');
  });

  it('multi-method: a paid boleto waiting for compensation cannot be left for another method; pixDirect starts PIX at generation', async () => {
    const m = await service().merchant();
    const multi = await generate(service(), m, { method: ['PIX', 'BOLETO'] });
    expect(multi.payment).toBeNull();
    const boleto = await service().post(`/pay/${multi.checkout_id}/attempts`, { method: 'BOLETO' });
    expect(boleto.status).toBe(200);
    expect((await pay(service(), m, boleto.body.payment_token)).body.transaction_status).toBe('PROCESSING');
    const switched = await service().post(`/pay/${multi.checkout_id}/attempts`, { method: 'PIX' });
    expect(switched.status).toBe(409);
    expect(switched.body.errors[0].code).toBe('03.02.0002');
    expect((await read(service(), m, multi.checkout_id)).payments.map((p: any) => p.transaction_status)).toEqual(['PROCESSING']);

    const direct = await generate(service(), m, { method: ['PIX', 'CREDITCARD', 'BOLETO'], pixDirect: true });
    expect(direct).toMatchObject({ status: 'PROCESSING', mode: 'MULTI', payment: { method: 'PIX', transaction_status: 'CREATED' } });
    expect(direct.payment.pix.br_code).toMatch(/^000201/);
    expect((await read(service(), m, direct.checkout_id)).payments).toEqual([direct.payment]);
    // The customer may still pick another method on the page: the open PIX is canceled.
    const other = await service().post(`/pay/${direct.checkout_id}/attempts`, { method: 'BOLETO' });
    expect(other.status).toBe(200);
    expect((await read(service(), m, direct.checkout_id)).payments.map((p: any) => `${p.method}:${p.transaction_status}`)).toEqual(['PIX:CANCELED', 'BOLETO:CREATED']);
  });

  it('OXXO and PAYNET: cash vouchers with a reference, a barcode and an expiry, paid in the sandbox and refunded to a CLABE in MXN', async () => {
    const m = await service().merchant();
    for (const method of ['OXXO', 'PAYNET'] as const) {
      const created = await generate(service(), m, { ...MX, method, amount: '349.90', expiresIn: 2 * DAY, notificationUrl: 'https://shop.example/cb' });
      expect(created).toMatchObject({ mode: 'SINGLE', methods: [method], status: 'PROCESSING' });
      const payment = created.payment;
      expect(payment).toMatchObject({ method, transaction_status: 'CREATED', amount: 349.9, asset: 'MXN' });
      const voucher = payment[method.toLowerCase()];
      expect(voucher.reference).toMatch(/^\d{14}$/);
      expect(luhnOk(voucher.reference)).toBe(true);
      expect(voucher.barcode).toBe(voucher.reference);
      expect(voucher.expires_at).toBe(created.expires_at);
      const page = await service().get(`/pay/${created.checkout_id}`);
      expect(page.text).toContain(`data-reference="${voucher.reference}"`);
      expect(page.text).toContain('data-view="voucher"');

      const paid = await pay(service(), m, payment.payment_token);
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      expect(paid.body).toMatchObject({ method, transaction_status: 'PAID' });
      expect((await read(service(), m, created.checkout_id)).status).toBe('PAID');
      const details = (await service().get(`/transactionDetails/${payment.payment_token}`, { token: m.token })).body;
      expect(details.general_info.transaction_status).toBe('PAID');
      expect(details.payment_info).toMatchObject({ order_method: method, order_method_country: 'MX', order_currency: 'MXN', payment_currency: 'MXN', payment_amount: 349.9 });
      // PROCESSING and PAID are written in one transaction at one instant, so they are compared as a set.
      expect((await eventsOf(service(), payment.payment_token)).sort()).toEqual(['payment.status_changed:CREATED', 'payment.status_changed:PAID', 'payment.status_changed:PROCESSING']);

      const missing = await service().post('/refund', { payment_token: payment.payment_token }, { token: m.token });
      expect(missing.status).toBe(400);
      expect(missing.body.errors[0].code).toBe('01.05.0039');
      const badClabe = await service().post('/refund', { payment_token: payment.payment_token, bank_code: 2, clabe: '002010077777777772' }, { token: m.token });
      expect(badClabe.body.errors[0].code).toBe('01.05.0040');
      const partial = await service().post('/refund', { payment_token: payment.payment_token, amount: 10, bank_code: 2, clabe: REFUND_CLABE }, { token: m.token });
      expect(partial.body.errors[0].code).toBe('01.05.0032');
      const refund = await service().post('/refund', { payment_token: payment.payment_token, bank_code: 2, clabe: REFUND_CLABE }, { token: m.token });
      expect(refund.status, JSON.stringify(refund.body)).toBe(200);
      expect(refund.body).toMatchObject({ payment_token: payment.payment_token, refund_status: 'PROCESSING' });
      const deadline = Date.now() + 10_000;
      let settled = await service().get(`/refund/${refund.body.refund_id}`, { token: m.token });
      while (settled.body.refund_status !== 'COMPLETED' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        settled = await service().get(`/refund/${refund.body.refund_id}`, { token: m.token });
      }
      expect(settled.body).toMatchObject({ refund_status: 'COMPLETED', amount: 349.9, currency: 'MXN' });
    }
    // Reports place them in Mexico too, and can filter them by method and by country.
    const created = await service().post('/reports/myreports/report', {
      name: 'Mexico', folder: 'Tests', report_type: 'PAYIN', report_type_name: 'Pay-ins', enable: true, offset: null, limit: null,
      fields: [reportColumn(0, 4, 'method'), reportColumn(1, 12, 'country')],
      filters: [reportFilter(0, 12, '=', 'MX'), reportFilter(1, 4, 'IN', 'OXXO,PAYNET')],
      group_by: [''], order_by: [{ position: 0, field_position: 0, direction: 'ASC' }],
    }, { token: m.token });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rows = (await service().get(`/reports/myreports/report/${created.body.id}/export?format=json`, { token: m.token })).body;
    expect(rows).toEqual([{ method: 'OXXO', country: 'MX' }, { method: 'PAYNET', country: 'MX' }]);
  });

  it('SPEI: a transfer to a CLABE of its own with a valid check digit, paid and refunded; an OXXO priced in USD is not refundable', async () => {
    const m = await service().merchant();
    const created = await generate(service(), m, { ...MX, method: 'SPEI', amount: '1200.00' });
    const spei = created.payment.spei;
    expect(clabeOk(spei.clabe)).toBe(true);
    expect(spei.bank_code).toBe(spei.clabe.slice(0, 3));
    expect(spei.reference).toMatch(/^\d{1,7}$/);
    const second = await generate(service(), m, { ...MX, method: 'SPEI', amount: '10.00' });
    expect(second.payment.spei.clabe).not.toBe(spei.clabe);
    expect((await service().get(`/pay/${created.checkout_id}`)).text).toContain(`data-clabe="${spei.clabe}"`);
    expect((await pay(service(), m, created.payment.payment_token)).body.transaction_status).toBe('PAID');
    const refund = await service().post('/refund', { payment_token: created.payment.payment_token, bank_code: 2, clabe: REFUND_CLABE }, { token: m.token });
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);

    // Without paymentCountry, Mexican methods imply MX and MXN; ALL in MX offers the three.
    const all = await generate(service(), m, { method: 'ALL', paymentCountry: 'MX', asset: 'MXN', amount: '50' });
    expect(all).toMatchObject({ mode: 'MULTI', methods: ['OXXO', 'PAYNET', 'SPEI'], payment: null });
    const usd = await generate(service(), m, { method: 'OXXO', asset: 'USD', amount: '20.00' });
    expect(usd.payment.asset).toBe('MXN');
    await pay(service(), m, usd.payment.payment_token);
    const refused = await service().post('/refund', { payment_token: usd.payment.payment_token, bank_code: 2, clabe: REFUND_CLABE }, { token: m.token });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].code).toBe('01.05.0031');
  });

  it('PicPay: a wallet payment by QR code or deep link, paid in the sandbox and refunded in part', async () => {
    const m = await service().merchant();
    const response = await service().post('/checkout/generate', generateBody(m, { method: 'PICPAY', amount: '80.00', paymentCountry: 'BR', paymentCurrency: 'BRL' }), { token: m.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const payment = response.body.payment;
    expect(payment).toMatchObject({ method: 'PICPAY', transaction_status: 'CREATED', asset: 'BRL' });
    expect(payment.picpay.deep_link).toMatch(/^picpay:\/\/picpay\/checkout\/[0-9a-f]{32}$/);
    expect(payment.picpay.qr_code).toMatch(/^data:image\/png;base64,/);
    const page = await service().get(`/pay/${response.body.checkout_id}`);
    expect(page.text).toContain(`href="${payment.picpay.deep_link}"`);
    expect((await pay(service(), m, payment.payment_token)).body.transaction_status).toBe('PAID');
    const refund = await service().post('/refund', { payment_token: payment.payment_token, amount: 30 }, { token: m.token });
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    const details = (await service().get(`/transactionDetails/${payment.payment_token}`, { token: m.token })).body;
    expect(details.payment_info.order_method).toBe('PICPAY');
  });
});

const DEBIT_FORM = {
  name: 'Maria Silva',
  email: 'maria@example.com',
  tax_id: '529.982.247-25',
  phone: '(11) 91234-5678',
  exp_month: '12',
  exp_year: '2035',
  cvv: '123',
  holder_name: 'MARIA SILVA',
};

describeEachEngine('checkout debit card with 3DS', (service) => {
  it('frictionless pays at once; a challenge is answered inside the page and then pays; unenrolled is refused', async () => {
    const m = await service().merchant();
    const frictionless = await generate(service(), m, { method: 'DEBITCARD', amount: '60.00' });
    // Every wrong field of the debit form in one answer: the e-mail (the schema's), the CPF, the phone and the card number.
    const allAtOnce = await service().post(`/pay/${frictionless.checkout_id}/debit`, { ...DEBIT_FORM, email: 'maria@', tax_id: '111.111.111-12', phone: '123', number: '4000000000002702' });
    expect(allAtOnce.status).toBe(400);
    expect(allAtOnce.body.errors.map((e: { description: string }) => e.description.split(':')[0])).toEqual(['email', 'tax_id', 'phone', 'number']);
    const sent = await service().post(`/pay/${frictionless.checkout_id}/debit`, { ...DEBIT_FORM, number: '4000000000002701' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    // The debit card pays the payment that generation opened.
    expect(frictionless.payment).toMatchObject({ method: 'DEBITCARD', transaction_status: 'CREATED' });
    expect(sent.body).toMatchObject({ status: 'SENT', transaction_status: 'PROCESSING', payment_token: frictionless.payment.payment_token });
    const paid = await waitForCheckout(service(), m, frictionless.checkout_id, (b) => b.status === 'PAID');
    expect(paid.payments).toEqual([expect.objectContaining({ payment_token: sent.body.payment_token, method: 'DEBITCARD', transaction_status: 'PAID' })]);

    const challenged = await generate(service(), m, { method: ['CREDITCARD', 'DEBITCARD'], amount: '61.00' });
    const started = await service().post(`/pay/${challenged.checkout_id}/debit`, { ...DEBIT_FORM, number: '4000000000002503', lang: 'pt' });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.status).toBe('CHALLENGE');
    expect(started.body.challenge_url).toMatch(/^\/3ds\/challenges\/[0-9a-f-]{36}\?lang=pt$/);
    const challengePage = await service().get(started.body.challenge_url);
    expect(challengePage.text).toContain('<html lang="pt-BR">');
    expect(challengePage.text).toContain('Confirme a sua compra');
    // While the challenge is open the session is held: a second card cannot start.
    expect((await service().post(`/pay/${challenged.checkout_id}/card`, CARD_FORM)).status).toBe(409);
    const early = await service().post(`/pay/${challenged.checkout_id}/debit/complete`, {});
    expect(early.body.errors[0].code).toBe('06.03.0003');
    const answered = await service().post(started.body.challenge_url.split('?')[0], { code: '123456' });
    expect(answered.body.status).toBe('SUCCESS');
    const completed = await service().post(`/pay/${challenged.checkout_id}/debit/complete`, {});
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    expect(completed.body.status).toBe('SENT');
    await waitForCheckout(service(), m, challenged.checkout_id, (b) => b.status === 'PAID');

    const failed = await generate(service(), m, { method: 'DEBITCARD', amount: '62.00' });
    const wrong = await service().post(`/pay/${failed.checkout_id}/debit`, { ...DEBIT_FORM, number: '4000000000002503' });
    await service().post(wrong.body.challenge_url.split('?')[0], { code: '000000' });
    const refused = await service().post(`/pay/${failed.checkout_id}/debit/complete`, {});
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].code).toBe('03.02.0004');
    const unenrolled = await service().post(`/pay/${failed.checkout_id}/debit`, { ...DEBIT_FORM, number: '4000000000002420' });
    expect(unenrolled.status).toBe(422);
    expect(unenrolled.body.errors[0].code).toBe('03.02.0004');
    const badPhone = await service().post(`/pay/${failed.checkout_id}/debit`, { ...DEBIT_FORM, phone: '123', number: '4000000000002701' });
    expect(badPhone.status).toBe(400);
    expect(badPhone.body.errors[0].description).toMatch(/^phone: /);
    // After the failures the customer can still pay in the same session.
    const retry = await service().post(`/pay/${failed.checkout_id}/debit`, { ...DEBIT_FORM, number: '4000000000002701' });
    expect(retry.body.status).toBe('SENT');
    await waitForCheckout(service(), m, failed.checkout_id, (b) => b.status === 'PAID');
    expect((await service().get(`/checkout/${failed.checkout_id}`, { token: m.token })).body.payments).toEqual([
      expect.objectContaining({ payment_token: failed.payment.payment_token, method: 'DEBITCARD', transaction_status: 'PAID' }),
    ]);
  });
});
