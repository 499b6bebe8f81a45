import { parsePix, hasError, PixElementType } from 'pix-utils';
import { computeCRC } from 'pix-utils/dist/main/crc';
import { expect, it } from 'vitest';
import { balances } from '../src/ledger/ledger';
import { digitableLineToBarcode, isValidBarcode, isValidDigitableLine, parseBoleto } from '../src/rails/boleto';
import { isValidEndToEndId } from '../src/rails/pix';
import { pageAssets } from '../src/checkout-page/assets';
import { sandboxPixKey } from '../src/checkout/start-attempt';
import { describeEachEngine } from './harness';
import { CARD_FORM, febrabanCheck, generate, generateBody, waitForCheckout } from './checkout-fixtures';

const SHOP = 'https://shop.example';
const URLS = { successUrl: `${SHOP}/ok`, declinedUrl: `${SHOP}/declined`, errorUrl: `${SHOP}/error` };

/** Opens the page (which starts a single-method PIX or boleto attempt) and returns its HTML. */
async function openPage(service: any, checkoutId: string, query = '') {
  const page = await service.get(`/pay/${checkoutId}${query}`);
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  return page;
}

function codesOf(html: string) {
  return {
    brCode: /<textarea id="br-code"[^>]*>([^<]*)<\/textarea>/.exec(html)?.[1],
    line: /data-digits="(\d{47})"/.exec(html)?.[1],
    barcode: /data-barcode="(\d{44})"/.exec(html)?.[1],
  };
}

describeEachEngine('hosted checkout API', (service) => {
  it('generates a session with the contract response and reads it back', async () => {
    const m = await service().merchant('Loja Exemplo');
    const single = await service().post('/checkout/generate', generateBody(m, { amount: 19.99, checkoutReferenceId: 'cart-7', ...URLS }), { token: m.token });
    expect(single.status, JSON.stringify(single.body)).toBe(200);
    expect(Object.keys(single.body).sort()).toEqual(['checkout_id', 'checkout_url', 'expires_at', 'methods', 'mode', 'payment', 'refresh_token', 'status']);
    // Single-method: the attempt starts at generation, so the session is already PROCESSING and the
    // answer carries the payment with its BR Code and QR image.
    expect(single.body).toMatchObject({ status: 'PROCESSING', mode: 'SINGLE', methods: ['PIX'] });
    const payment = single.body.payment;
    expect(payment).toMatchObject({ payment_token: expect.any(String), method: 'PIX', transaction_status: 'CREATED', amount: 19.99, asset: 'BRL' });
    expect(payment.pix.br_code).toMatch(/^000201/);
    expect(payment.pix.qr_code).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    // The QR image is a real PNG.
    expect(Buffer.from(payment.pix.qr_code.split(',')[1], 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(single.body.checkout_url).toBe(`${service().baseUrl}/pay/${single.body.checkout_id}`);
    expect(single.body.expires_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const expiresInMs = Date.parse(`${single.body.expires_at.replace(' ', 'T')}Z`) - Date.now();
    expect(Math.abs(expiresInMs - 3_600_000)).toBeLessThan(5_000);

    const read = await service().get(`/checkout/${single.body.checkout_id}`, { token: m.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      checkout_id: single.body.checkout_id,
      status: 'PROCESSING',
      mode: 'SINGLE',
      methods: ['PIX'],
      reference_id: expect.stringMatching(/^order-/),
      checkout_reference_id: 'cart-7',
      amount: 19.99,
      asset: 'BRL',
      expires_at: single.body.expires_at,
      payments: [payment],
      // A PIX session offers no installments.
      installment_options: [],
      refresh_token: expect.any(String),
    });
    // A single card method's attempt starts at generation too: its payment waits CREATED for the card.
    const card = await generate(service(), m, { method: 'CREDITCARD' });
    expect(card).toMatchObject({ status: 'PROCESSING', payment: { payment_token: expect.any(String), method: 'CREDITCARD', transaction_status: 'CREATED', amount: 100, asset: 'BRL' } });
    expect((await service().get(`/checkout/${card.checkout_id}`, { token: m.token })).body.payments).toEqual([card.payment]);
    // Multi-method waits for the customer's choice.
    const multi = await generate(service(), m, { method: ['PIX', 'BOLETO'] });
    expect(multi).toMatchObject({ status: 'CREATED', payment: null });

    for (const [method, mode, methods] of [
      [['BOLETO', 'PIX'], 'MULTI', ['PIX', 'BOLETO']],
      ['ALL', 'MULTI', ['PIX', 'CREDITCARD', 'BOLETO']],
      [['CREDITCARD'], 'SINGLE', ['CREDITCARD']],
      [['PIX', 'PIX'], 'SINGLE', ['PIX']],
      ['BOLETO', 'SINGLE', ['BOLETO']],
    ] as const) {
      const body = await generate(service(), m, { method, amount: '10' });
      expect({ mode: body.mode, methods: body.methods }, JSON.stringify(method)).toEqual({ mode, methods });
    }
  });

  it('refuses every invalid field of generate with its own code', async () => {
    const m = await service().merchant();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ amount: '10.001' }, '00.01.0044', 'amount'],
      [{ amount: 10.001 }, '00.01.0044', 'amount'],
      [{ amount: 'ten' }, '00.01.0003', 'amount'],
      [{ amount: '1e3' }, '00.01.0003', 'amount'],
      [{ amount: '-5.00' }, '00.01.0003', 'amount'],
      [{ amount: true }, '00.01.0002', 'amount'],
      [{ amount: '0.99' }, '00.04.0002', 'amount'],
      [{ amount: '100000000.00' }, '00.01.0006', 'amount'],
      [{ asset: 'XYZ' }, '00.04.0003', 'asset'],
      [{ asset: undefined }, '00.01.0001', 'asset'],
      [{ referenceId: undefined }, '00.01.0001', 'referenceId'],
      [{ referenceId: '' }, '00.01.0007', 'referenceId'],
      [{ referenceId: 'r'.repeat(46) }, '00.01.0004', 'referenceId'],
      [{ contractId: 'CT-NOTMINE' }, '00.04.0001', 'contractId'],
      [{ method: 'CASH' }, '03.01.0001', 'method'],
      [{ method: 'pix' }, '03.01.0001', 'method'],
      [{ method: ['PIX', 'OXXO'] }, '03.01.0003', 'paymentCountry'],
      [{ method: 'OXXO', paymentCurrency: 'BRL' }, '03.01.0004', 'paymentCurrency'],
      [{ method: 'SPEI', paymentCountry: 'BR' }, '03.01.0003', 'paymentCountry'],
      [{ paymentCountry: 'AR' }, '03.01.0003', 'paymentCountry'],
      [{ method: undefined }, '00.01.0001', 'method'],
      [{ notificationUrl: 'ftp://shop.example/cb' }, '03.01.0002', 'notificationUrl'],
      [{ successUrl: '/thanks' }, '03.01.0002', 'successUrl'],
      [{ declinedUrl: 'javascript:alert(1)' }, '03.01.0002', 'declinedUrl'],
      [{ errorUrl: 'not a url' }, '03.01.0002', 'errorUrl'],
      [{ checkoutNotificationUrl: 'http://' }, '03.01.0002', 'checkoutNotificationUrl'],
      [{ expiresIn: 59 }, '00.01.0006', 'expiresIn'],
      [{ expiresIn: 30 * 86_400 + 1 }, '00.01.0006', 'expiresIn'],
      [{ expiresIn: '600' }, '00.01.0002', 'expiresIn'],
      [{ expiresIn: 60.5 }, '00.01.0002', 'expiresIn'],
      [{ pixDirect: 'yes' }, '00.01.0002', 'pixDirect'],
      [{ pixDirect: true, method: ['CREDITCARD', 'BOLETO'] }, '03.01.0005', 'pixDirect'],
      [{ saveCard: true, method: 'PIX' }, '03.01.0006', 'saveCard'],
      [{ paymentCountry: 'MX' }, '03.01.0003', 'paymentCountry'],
      [{ paymentCurrency: 'USD' }, '03.01.0004', 'paymentCurrency'],
      [{ checkoutReferenceId: 'c'.repeat(65) }, '00.01.0004', 'checkoutReferenceId'],
    ];
    for (const [overrides, code, field] of cases) {
      const body = generateBody(m, overrides);
      for (const [k, v] of Object.entries(overrides)) if (v === undefined) delete (body as Record<string, unknown>)[k];
      const response = await service().post('/checkout/generate', body, { token: m.token });
      expect(response.status, JSON.stringify(overrides)).toBe(400);
      expect(response.body.errors, JSON.stringify(overrides)).toEqual([{ code, description: expect.stringMatching(new RegExp(`^${field}`)) }]);
    }
    // Every failing rule at once, in the order of the spec's field list.
    const many = await service().post('/checkout/generate', generateBody(m, { amount: '1.234', contractId: 'x', method: 'CASH', successUrl: 'x' }), { token: m.token });
    expect(many.body.errors.map((e: { code: string }) => e.code)).toEqual(['00.01.0044', '00.04.0001', '03.01.0001', '03.01.0002']);
    // A required field sent under a near-twin name is named in the answer.
    const { referenceId, ...rest } = generateBody(m);
    const twin = await service().post('/checkout/generate', { ...rest, reference_id: referenceId }, { token: m.token });
    expect(twin.body.errors).toEqual([{ code: '00.01.0001', description: 'referenceId: is required. The request has "reference_id": did you mean "referenceId"?' }]);
    const typo = await service().post('/checkout/generate', { ...generateBody(m), contractId: undefined, contractld: m.contract_id }, { token: m.token });
    expect(typo.body.errors[0].description).toBe('contractId: is required. The request has "contractld": did you mean "contractId"?');
    // A decimal number, a decimal string and other assets (converted to BRL) are all accepted.
    for (const amount of [1, 1.5, '1.50', '1000000']) await generate(service(), m, { amount });
    expect((await service().post('/checkout/generate', generateBody(m), {})).status).toBe(401);
  });

  it("answers another merchant's checkout, or a malformed id, as not found", async () => {
    const owner = await service().merchant();
    const other = await service().merchant();
    const created = await generate(service(), owner);
    for (const [path, token] of [
      [`/checkout/${created.checkout_id}`, other.token],
      ['/checkout/not-a-uuid', owner.token],
      ['/checkout/00000000-0000-4000-8000-000000000000', owner.token],
    ] as const) {
      const response = await service().get(path, { token });
      expect(response.status, path).toBe(404);
      expect(response.body.errors[0].code).toBe('00.05.0001');
    }
    expect((await service().get(`/checkout/${created.checkout_id}`)).status).toBe(401);
  });

  it('single-method PIX: the page opens a PIX payment whose BR Code parses with pix-utils, and the sandbox payer pays it', async () => {
    const m = await service().merchant('Padaria Pão de Açúcar');
    const created = await generate(service(), m, { amount: '123.45', ...URLS, notificationUrl: `${SHOP}/cb`, checkoutNotificationUrl: `${SHOP}/checkout-cb` });
    const page = await openPage(service(), created.checkout_id);
    const { brCode } = codesOf(page.text);
    const parsed = parsePix(brCode ?? '');
    if (hasError(parsed) || parsed.type !== PixElementType.STATIC) throw new Error(`pix-utils rejected ${brCode}`);
    expect(parsed.merchantName).toBe('PADARIA PAO DE ACUCAR');
    expect(parsed.merchantCity).toBe('SAO PAULO');
    expect(parsed.transactionAmount).toBe(123.45);
    // The key is derived from the merchant, never its internal id: no internal id on a public page.
    expect(parsed.pixKey).toBe(sandboxPixKey(m.merchant_id));
    expect(parsed.pixKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(page.text).not.toContain(m.merchant_id);
    expect(brCode).toContain('0014br.gov.bcb.pix');
    expect(brCode?.slice(-4)).toBe(computeCRC(brCode ?? ''));

    const opened = await service().get(`/checkout/${created.checkout_id}`, { token: m.token });
    expect(opened.body.status).toBe('PROCESSING');
    expect(opened.body.payments).toEqual([expect.objectContaining({ payment_token: created.payment.payment_token, method: 'PIX', transaction_status: 'CREATED' })]);
    // The page shows the code the merchant got at generation.
    expect(opened.body.payments[0].pix.br_code).toBe(brCode);
    const token = opened.body.payments[0].payment_token;
    expect(parsed.txid).toBe(token.replace(/-/g, '').slice(0, 25).toUpperCase());
    // Reloading the page shows the same code and starts nothing new.
    expect(codesOf((await openPage(service(), created.checkout_id)).text).brCode).toBe(brCode);

    const paid = await service().post(`/sandbox/payments/${token}/pay`, undefined, { token: m.token });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ payment_token: token, method: 'PIX', transaction_status: 'PAID' });
    expect(isValidEndToEndId(paid.body.end_to_end_id)).toBe(true);
    const again = await service().post(`/sandbox/payments/${token}/pay`, undefined, { token: m.token });
    expect(again.status).toBe(422);
    expect(again.body.errors[0].code).toBe('03.03.0002');

    const session = await service().get(`/checkout/${created.checkout_id}`, { token: m.token });
    expect(session.body.status).toBe('PAID');
    const status = await service().get(`/pay/${created.checkout_id}/status`);
    expect(status.body).toMatchObject({ status: 'PAID', redirect_url: `${SHOP}/ok`, payment_status: 'PAID' });

    const details = await service().get(`/transactionDetails/${token}`, { token: m.token });
    expect(details.body.payment_info).toMatchObject({ order_method: 'PIX', end_to_end_id: paid.body.end_to_end_id, payment_amount: 123.45 });
    expect(details.body.payment_info.expiration_date).toBe(created.expires_at);
    expect(details.body.transaction_history.map((h: { status: string }) => h.status)).toEqual(['PAID', 'PROCESSING', 'CREATED']);
    const b = await balances(service().ctx.db, m.merchant_id);
    expect(b.processor_receivable).toBe(12345n);

    const events = await service().ctx.db.selectFrom('events').selectAll().where('resource_id', '=', created.checkout_id).orderBy('created_at').orderBy('id').execute();
    expect(events.map((e) => [e.type, (e.data as { status: string }).status])).toEqual([
      ['checkout.status_changed', 'PROCESSING'],
      ['checkout.status_changed', 'PAID'],
    ]);
    expect([...events[1]!.notification_urls].sort()).toEqual([`${SHOP}/cb`, `${SHOP}/checkout-cb`]);
    const paymentEvents = await service().ctx.db.selectFrom('events').select('data').where('resource_id', '=', token).execute();
    expect(paymentEvents.map((e) => (e.data as { status: string }).status).sort()).toEqual(['CREATED', 'PAID', 'PROCESSING']);
  });

  it('single-method BOLETO: the digitable line and barcode agree and pass independent FEBRABAN checks', async () => {
    const m = await service().merchant();
    const created = await generate(service(), m, { method: 'BOLETO', amount: '1500.10', expiresIn: 3 * 86_400 });
    const boleto = created.payment.boleto;
    const { line, barcode } = codesOf((await openPage(service(), created.checkout_id)).text);
    expect({ line, barcode }).toEqual({ line: boleto.digitable_line, barcode: boleto.barcode });
    expect(line).toHaveLength(47);
    expect(isValidDigitableLine(line ?? '')).toBe(true);
    expect(isValidBarcode(barcode ?? '')).toBe(true);
    expect(digitableLineToBarcode(line ?? '')).toBe(barcode);
    const independent = febrabanCheck(line ?? '');
    expect(independent).toEqual({ ok: true, barcode });
    const parsed = parseBoleto(line ?? '', boleto.due_date);
    expect(parsed.amountCents).toBe(150010n);
    expect(parsed.dueDate).toBe(boleto.due_date);
    // The independent check agrees with the published Banco do Brasil example of rails/boleto's tests.
    expect(febrabanCheck('00190.50095 40144.816069 06809.350314 3 37370000000100')).toEqual({ ok: true, barcode: '00193373700000001000500940144816060680935031' });

    const session = await service().get(`/checkout/${created.checkout_id}`, { token: m.token });
    const token = session.body.payments[0].payment_token;
    const paid = await service().post(`/sandbox/payments/${token}/pay`, undefined, { token: m.token });
    // Paid at the bank, the boleto compensates a business day later (see the boleto life test).
    expect(paid.body).toMatchObject({ method: 'BOLETO', transaction_status: 'PROCESSING', end_to_end_id: null });
    expect((await service().get(`/checkout/${created.checkout_id}`, { token: m.token })).body.status).toBe('PROCESSING');
  });

  it('expires sessions by the merchant clock: open PIX becomes EXPIRED and the session CANCELED', async () => {
    const m = await service().merchant();
    const opened = await generate(service(), m, { expiresIn: 60, ...URLS });
    const untouched = await generate(service(), m, { expiresIn: 120, method: 'CREDITCARD' });
    const token = (await service().get(`/checkout/${opened.checkout_id}`, { token: m.token })).body.payments[0].payment_token;
    expect((await service().post('/sandbox/clock/advance', { seconds: 61 }, { token: m.token })).status).toBe(200);

    const expired = await service().get(`/checkout/${opened.checkout_id}`, { token: m.token });
    expect(expired.body).toMatchObject({ status: 'CANCELED', payments: [{ payment_token: token, method: 'PIX', transaction_status: 'EXPIRED' }] });
    expect((await service().get(`/pay/${opened.checkout_id}/status`)).body).toMatchObject({ status: 'CANCELED', redirect_url: `${SHOP}/declined`, seconds_left: 0 });
    const late = await service().post(`/sandbox/payments/${token}/pay`, undefined, { token: m.token });
    expect(late.status).toBe(422);
    expect(late.body.errors[0].code).toBe('03.03.0002');
    expect((await service().get(`/checkout/${untouched.checkout_id}`, { token: m.token })).body).toMatchObject({ status: 'PROCESSING', payments: [{ transaction_status: 'CREATED' }] });
    await service().post('/sandbox/clock/advance', { seconds: 60 }, { token: m.token });
    // The sweep expired it without anyone looking: its rows are already final, the card payment that
    // waited for a card included.
    const row = await service().ctx.db.selectFrom('checkout_sessions').select(['status', 'end_reason']).where('checkout_id', '=', untouched.checkout_id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'CANCELED', end_reason: 'EXPIRED' });
    const cardRow = await service().ctx.db.selectFrom('payments').select('status').where('payment_token', '=', untouched.payment.payment_token).executeTakeFirstOrThrow();
    expect(cardRow.status).toBe('EXPIRED');
    expect((await service().post(`/pay/${untouched.checkout_id}/card`, CARD_FORM)).body.errors[0].code).toBe('03.02.0001');
    const attempt = await service().post(`/pay/${untouched.checkout_id}/attempts`, { method: 'PIX' });
    expect(attempt.status).toBe(422);
    expect(attempt.body.errors[0].code).toBe('03.02.0001');
  });

  it('multi-method: a declined card keeps the session PROCESSING, then PIX pays it', async () => {
    const m = await service().merchant();
    const created = await generate(service(), m, { method: 'ALL', ...URLS });
    const declined = await service().post(`/pay/${created.checkout_id}/card`, { ...CARD_FORM, number: '4000000000000002' });
    expect(declined.status, JSON.stringify(declined.body)).toBe(200);
    const afterDecline = await waitForCheckout(service(), m, created.checkout_id, (b) => b.payments[0]?.transaction_status === 'DECLINED');
    expect(afterDecline.status).toBe('PROCESSING');
    expect(afterDecline.payments).toEqual([expect.objectContaining({ payment_token: declined.body.payment_token, method: 'CREDITCARD', transaction_status: 'DECLINED' })]);
    const page = await openPage(service(), created.checkout_id);
    expect(page.text).toContain('data-view="choose"');
    expect(page.text).toContain('class="notice"');

    const pix = await service().post(`/pay/${created.checkout_id}/attempts`, { method: 'PIX' });
    expect(pix.status).toBe(200);
    // Switching to boleto cancels the open PIX; switching back opens a new PIX.
    const boleto = await service().post(`/pay/${created.checkout_id}/attempts`, { method: 'BOLETO' });
    const pixAgain = await service().post(`/pay/${created.checkout_id}/attempts`, { method: 'PIX' });
    expect(new Set([pix.body.payment_token, boleto.body.payment_token, pixAgain.body.payment_token]).size).toBe(3);
    await service().post(`/sandbox/payments/${pixAgain.body.payment_token}/pay`, undefined, { token: m.token });
    const done = await service().get(`/checkout/${created.checkout_id}`, { token: m.token });
    expect(done.body.status).toBe('PAID');
    expect(done.body.payments.map((p: any) => `${p.method}:${p.transaction_status}`)).toEqual(['CREDITCARD:DECLINED', 'PIX:CANCELED', 'BOLETO:CANCELED', 'PIX:PAID']);
    const after = await service().post(`/pay/${created.checkout_id}/attempts`, { method: 'BOLETO' });
    expect(after.body.errors[0].code).toBe('03.02.0001');
  });

  it('single-method card: approved → PAID, declined → CANCELED (declinedUrl), processor error → ERROR (errorUrl)', async () => {
    const m = await service().merchant();
    for (const [number, status, redirect] of [
      ['4111111111111111', 'PAID', `${SHOP}/ok`],
      ['4000000000000002', 'CANCELED', `${SHOP}/declined`],
      ['4000000000000119', 'ERROR', `${SHOP}/error`],
    ] as const) {
      const created = await generate(service(), m, { method: 'CREDITCARD', ...URLS });
      const sent = await service().post(`/pay/${created.checkout_id}/card`, { ...CARD_FORM, number, installments: 3 });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const final = await waitForCheckout(service(), m, created.checkout_id, (b) => b.status !== 'PROCESSING' && b.status !== 'CREATED');
      expect(final.status, number).toBe(status);
      expect((await service().get(`/pay/${created.checkout_id}/status`)).body.redirect_url).toBe(redirect);
    }
  });

  it('single-method card: the payment opened at generation is the one the card pays, with its history from CREATED', async () => {
    const m = await service().merchant();
    const created = await generate(service(), m, { method: 'CREDITCARD', amount: '300.00', ...URLS });
    const token = created.payment.payment_token;
    // Waiting for its card, the payment shows in transaction details with no payer and no card yet.
    const waiting = await service().get(`/transactionDetails/${token}`, { token: m.token });
    expect(waiting.status, JSON.stringify(waiting.body)).toBe(200);
    expect(waiting.body.general_info.transaction_status).toBe('CREATED');
    expect(waiting.body.customer_info.customer_id).toBeNull();
    expect(waiting.body.payment_info).toMatchObject({ order_method: 'CREDITCARD', card_number: null, order_method_country: 'BR' });
    // The page shows the card form, and the sandbox payer cannot pay a card payment.
    expect((await openPage(service(), created.checkout_id)).text).toContain('data-view="card"');
    expect((await service().post(`/sandbox/payments/${token}/pay`, undefined, { token: m.token })).body.errors[0].code).toBe('03.03.0001');
    // A refused card leaves the payment waiting; the next card pays it.
    const badLuhn = await service().post(`/pay/${created.checkout_id}/card`, { ...CARD_FORM, number: '4111111111111112' });
    expect(badLuhn.body.errors[0].code).toBe('00.07.0002');
    expect((await service().get(`/checkout/${created.checkout_id}`, { token: m.token })).body).toMatchObject({ status: 'PROCESSING', payments: [{ payment_token: token, transaction_status: 'CREATED' }] });
    const sent = await service().post(`/pay/${created.checkout_id}/card`, { ...CARD_FORM, installments: 3 });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body).toMatchObject({ payment_token: token, transaction_status: 'PROCESSING' });
    const paid = await waitForCheckout(service(), m, created.checkout_id, (b) => b.status === 'PAID');
    expect(paid.payments).toEqual([expect.objectContaining({ payment_token: token, method: 'CREDITCARD', transaction_status: 'PAID' })]);
    const details = await service().get(`/transactionDetails/${token}`, { token: m.token });
    expect(details.body.transaction_history.map((h: any) => h.status)).toEqual(['PAID', 'PROCESSING', 'CREATED']);
    expect(details.body.payment_info.card_number).toMatch(/1111$/);
    expect(details.body.customer_info.customer_id).toEqual(expect.any(String));
    const row = await service().ctx.db.selectFrom('payments').select(['installments', 'captured_minor']).where('payment_token', '=', token).executeTakeFirstOrThrow();
    expect(row).toEqual({ installments: 3, captured_minor: 30000n });
    // Its callbacks tell the whole life, CREATED first, in order.
    const events = await service().ctx.db.selectFrom('events').select(['data']).where('resource_id', '=', token).orderBy('sequence').execute();
    expect(events.map((e: any) => (typeof e.data === 'string' ? JSON.parse(e.data) : e.data).status)).toEqual(['CREATED', 'PROCESSING', 'PAID']);
  });

  it('card form endpoint: field errors, saveCard keeps the card for sendPayment, without it the card is INACTIVE', async () => {
    const m = await service().merchant();
    const created = await generate(service(), m, { method: ['CREDITCARD', 'PIX'], saveCard: true });
    const badLuhn = await service().post(`/pay/${created.checkout_id}/card`, { ...CARD_FORM, number: '4111111111111112' });
    expect(badLuhn.status).toBe(400);
    expect(badLuhn.body.errors[0].code).toBe('00.07.0002');
    const badCpf = await service().post(`/pay/${created.checkout_id}/card`, { ...CARD_FORM, tax_id: '111.111.111-11' });
    expect(badCpf.body.errors[0].code).toBe('00.07.0001');
    // Every wrong field of the form in one answer: a malformed e-mail (the schema's) does not hide a wrong
    // CPF or card number (rules beyond it), nor does a wrong CPF hide a wrong card number.
    const allAtOnce = await service().post(`/pay/${created.checkout_id}/card`, { ...CARD_FORM, email: 'maria@', tax_id: '111.111.111-12', number: '4111111111111112' });
    expect(allAtOnce.status).toBe(400);
    expect(allAtOnce.body.errors.map((e: { code: string; description: string }) => [e.code, e.description.split(':')[0]])).toEqual([
      ['00.01.0003', 'email'],
      ['00.07.0001', 'tax_id'],
      ['00.07.0002', 'number'],
    ]);
    const cpfAndCard = await service().post(`/pay/${created.checkout_id}/card`, { ...CARD_FORM, tax_id: '111.111.111-12', number: '4111111111111112', cvv: '12' });
    expect(cpfAndCard.body.errors.map((e: { description: string }) => e.description.split(':')[0])).toEqual(['tax_id', 'number', 'cvv']);
    const badInstallments = await service().post(`/pay/${created.checkout_id}/card`, { ...CARD_FORM, installments: 13 });
    expect(badInstallments.body.errors[0].code).toBe('00.01.0006');
    const verification = await service().post(`/pay/${created.checkout_id}/card`, { ...CARD_FORM, number: '4000000000000127' });
    expect(verification.body.errors[0].code).toBe('00.07.0007');
    const notOffered = await service().post(`/pay/${created.checkout_id}/attempts`, { method: 'BOLETO' });
    expect(notOffered.body.errors[0].code).toBe('03.02.0003');
    // Rejected submissions left the session as it was, their claims released.
    expect((await service().get(`/checkout/${created.checkout_id}`, { token: m.token })).body.payments).toEqual([]);
    const claimOf = async (checkoutId: string) => (await service().ctx.db.selectFrom('checkout_sessions').select('card_attempt_started_at').where('checkout_id', '=', checkoutId).executeTakeFirstOrThrow()).card_attempt_started_at;
    expect(await claimOf(created.checkout_id)).toBeNull();

    await service().post(`/pay/${created.checkout_id}/card`, CARD_FORM);
    const saved = await waitForCheckout(service(), m, created.checkout_id, (b) => b.status === 'PAID');
    const { public_person_id, public_card_id } = saved.payments[0];
    expect(public_card_id).toEqual(expect.any(String));
    const reuse = await service().post(
      '/checkout/sendPayment',
      { contract_id: m.contract_id, reference_id: 'again', public_person_id, public_card_id, payment: { amount: '5.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 } },
      { token: m.token },
    );
    expect(reuse.status, JSON.stringify(reuse.body)).toBe(200);

    const unsaved = await generate(service(), m, { method: 'CREDITCARD' });
    await service().post(`/pay/${unsaved.checkout_id}/card`, CARD_FORM);
    const paid = await waitForCheckout(service(), m, unsaved.checkout_id, (b) => b.status === 'PAID');
    expect(paid.payments[0].public_card_id).toBeUndefined();
    expect(await claimOf(unsaved.checkout_id)).toBeNull();
    const card = await service().ctx.db.selectFrom('payments').innerJoin('cards', 'cards.id', 'payments.card_id').select('cards.status').where('payment_token', '=', paid.payments[0].payment_token).executeTakeFirstOrThrow();
    expect(card.status).toBe('INACTIVE');
  });

  it('a card attempt being set up holds the session: other attempts get 409, the poll shows no payment, a claim left behind lapses after two minutes', async () => {
    const m = await service().merchant();
    const created = await generate(service(), m, { method: ['PIX', 'CREDITCARD'] });
    // A card request that died between its claim and its payment leaves its claim behind.
    const { now } = (await service().get('/sandbox/clock', { token: m.token })).body;
    await service().ctx.db.updateTable('checkout_sessions').set({ status: 'PROCESSING', card_attempt_started_at: new Date(now) }).where('checkout_id', '=', created.checkout_id).execute();
    for (const attempt of [service().post(`/pay/${created.checkout_id}/attempts`, { method: 'PIX' }), service().post(`/pay/${created.checkout_id}/card`, CARD_FORM)]) {
      const refused = await attempt;
      expect(refused.status).toBe(409);
      expect(refused.body.errors[0].code).toBe('03.02.0002');
    }
    const polled = await service().get(`/pay/${created.checkout_id}/status`);
    expect(polled.body).toMatchObject({ status: 'PROCESSING', payment_status: null, version: 'PROCESSING|-|card-attempt' });

    await service().post('/sandbox/clock/advance', { seconds: 121 }, { token: m.token });
    const pix = await service().post(`/pay/${created.checkout_id}/attempts`, { method: 'PIX' });
    expect(pix.status, JSON.stringify(pix.body)).toBe(200);
    const row = await service().ctx.db.selectFrom('checkout_sessions').select(['card_attempt_started_at', 'current_payment_status']).where('checkout_id', '=', created.checkout_id).executeTakeFirstOrThrow();
    expect(row).toEqual({ card_attempt_started_at: null, current_payment_status: 'CREATED' });
  });

  it('serves the page with a strict CSP, our script pinned by SRI, Portuguese by default and English on request', async () => {
    const m = await service().merchant();
    const created = await generate(service(), m, { method: 'ALL' });
    const pt = await openPage(service(), created.checkout_id);
    const csp = pt.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    expect(pt.text).toContain('<html lang="pt-BR">');
    expect(pt.text).toContain('Escolha como pagar');
    expect(pt.text).not.toMatch(/https?:\/\/(?!shop\.example)/);
    expect(pt.text).not.toMatch(/<script(?![^>]*integrity)/);
    expect(pt.text).not.toMatch(/ style="/);
    const { script } = pageAssets();
    expect(pt.text).toContain(`integrity="${script.integrity}"`);
    const served = await service().get(script.path);
    expect(served.status).toBe(200);
    expect(served.text).toBe(script.body);
    const en = await openPage(service(), created.checkout_id, '?lang=en');
    expect(en.text).toContain('<html lang="en">');
    expect(en.text).toContain('Choose how to pay');
    const missing = await service().get('/pay/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    // Like every error, an unknown page answers the standard error body.
    expect(missing.body.errors[0].code).toBe('00.05.0001');
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('refuses the sandbox payer for card payments and for other merchants', async () => {
    const m = await service().merchant();
    const other = await service().merchant();
    const created = await generate(service(), m, { method: 'CREDITCARD' });
    const card = await service().post(`/pay/${created.checkout_id}/card`, CARD_FORM);
    expect(card.status, JSON.stringify(card.body)).toBe(200);
    const refused = await service().post(`/sandbox/payments/${card.body.payment_token}/pay`, undefined, { token: m.token });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].code).toBe('03.03.0001');
    const pix = await generate(service(), m);
    await openPage(service(), pix.checkout_id);
    const token = (await service().get(`/checkout/${pix.checkout_id}`, { token: m.token })).body.payments[0].payment_token;
    expect((await service().post(`/sandbox/payments/${token}/pay`, undefined, { token: other.token })).status).toBe(404);
  });
});
