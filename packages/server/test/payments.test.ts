import { expect, it } from 'vitest';
import { balances } from '../src/ledger/ledger';
import { IllegalMoveError } from '../src/lib/state-machine';
import { applyOutcomes, loadOperations } from '../src/payments/apply-outcome';
import { changeStatus, lockPayment } from '../src/payments/payment-record';
import { describeEachEngine, ERROR_TIMESTAMP } from './harness';
import { customerWithCard, operationJobs, paymentBody, settled, settledCardPayment, waitForStatus } from './fixtures';
import { PROCESS_PAYMENT_JOB } from '../src/payments/payment-job';

const HISTORY_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** The paths of every empty string in a JSON value. */
function emptyStrings(value: unknown, path = '$'): string[] {
  if (value === '') return [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => emptyStrings(item, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => emptyStrings(item, `${path}.${key}`));
  return [];
}

describeEachEngine('card payments', (service) => {
  it('answers sendPayment with exactly the spec fields and settles PAID asynchronously', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const response = await service().post('/checkout/sendPayment', paymentBody(m, ids), { token: m.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(
      ['customer_fees', 'payment_token', 'public_card_id', 'public_card_status', 'public_person_id', 'refresh_token', 'totals', 'transaction_status'].sort(),
    );
    expect(response.body).toMatchObject({
      transaction_status: 'PROCESSING',
      public_person_id: ids.personId,
      public_card_id: ids.cardId,
      public_card_status: 'ACTIVE',
      totals: { amount: 100, asset: 'BRL', original_amount: 100, original_asset: 'BRL', customer_fees: 0, customer_amount: 100 },
      customer_fees: {},
    });
    const details = await waitForStatus(service(), m, response.body.payment_token, settled);
    expect(details.general_info).toEqual({
      transaction_status: 'PAID',
      transaction_id: response.body.payment_token,
      external_id: expect.stringMatching(/^order-/),
      project_id: m.contract_id,
    });
    expect(details.customer_info).toMatchObject({ customer_id: ids.personId, tax_id_type: 'CPF', payer_name: 'Maria Silva', customer_contact: 'maria@example.com' });
    expect(details.customer_info.tax_id).not.toContain('529982247');
    expect(details.payment_info).toMatchObject({
      order_method: 'CREDITCARD',
      card_number: '411111******1111',
      card_scheme: 'VISA',
      order_amount: 100,
      order_currency: 'BRL',
      payment_amount: 100,
      payment_currency: 'BRL',
      refunded_amount: 0,
      error_code: null,
      flags: [],
    });
    // Default plan: SERVICE_FEE 2.99% + 0.39 (3.38) and TAXES_FEE 0.38% (0.38), both paid by the merchant.
    // Without a conversion each fee still carries its fxInfo object: rate "1" on the payment's date.
    const createdOn = String(details.transaction_history.at(-1)?.timestamp).slice(0, 10);
    const sameCurrency = { original_currency: 'BRL', counter_currency: 'BRL', rate: '1', rate_timestemp: createdOn };
    expect(createdOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(details.fee_info).toEqual({
      total_fee_values: 3.76,
      merchant_amount: 3.76,
      fee: [
        { fee_type: 'SERVICE_FEE', payer: 'MERCHANT', value: 3.38, currency: 'BRL', fxInfo: sameCurrency },
        { fee_type: 'TAXES_FEE', payer: 'MERCHANT', value: 0.38, currency: 'BRL', fxInfo: sameCurrency },
      ],
    });
    // Absent values are null, never "" (a client parsing yyyy-MM-dd HH:mm:ss must not meet "").
    expect(details.payment_info).toMatchObject({ expiration_date: null, end_to_end_id: null, subscription_id: null, error_description: null });
    expect(details.other_info).toEqual({ dispute_id: null, three_ds: null });
    expect(emptyStrings(details)).toEqual([]);
    const statuses = details.transaction_history.map((h: { status: string }) => h.status);
    expect(statuses).toEqual(['PAID', 'PROCESSING', 'CREATED']);
    for (const h of details.transaction_history) expect(h.timestamp).toMatch(HISTORY_TIMESTAMP);
  });

  it('lists the merchant\'s payments, found by reference, status, method and day, newest first, never another merchant\'s', async () => {
    const m = await service().merchant();
    const other = await service().merchant();
    const made: string[] = [];
    for (const [reference, card] of [['list-a', undefined], ['list-b', '4000000000000002'], ['list-a', undefined]] as const) {
      made.push((await settledCardPayment(service(), m, { reference_id: reference, payment: { amount: '12.34' } }, card)).token);
    }
    await settledCardPayment(service(), other, { reference_id: 'list-a' });
    const list = async (query: string, merchant = m) => {
      const answer = await service().get(`/payments${query}`, { token: merchant.token });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body;
    };
    const all = await list('');
    expect(all.totalElements).toBe(3);
    expect(all.content.map((p: { payment_token: string }) => p.payment_token)).toEqual([...made].reverse());
    expect(all.content[0]).toEqual({
      payment_token: made[2], reference_id: 'list-a', status: 'PAID', method: 'CREDITCARD', amount: 12.34, asset: 'BRL', captured: 12.34, refunded: 0, installments: 1,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/),
    });
    expect(typeof all.refresh_token).toBe('string');
    expect((await list('?reference_id=list-a')).content.map((p: { payment_token: string }) => p.payment_token)).toEqual([made[2], made[0]]);
    expect((await list('?status=DECLINED')).content.map((p: { reference_id: string }) => p.reference_id)).toEqual(['list-b']);
    expect((await list('?method=PIX')).totalElements).toBe(0);
    const day = all.content[0].created_at.slice(0, 10);
    expect((await list(`?from=${day}&to=${day}`)).totalElements).toBe(3);
    expect((await list('?to=2000-01-01')).totalElements).toBe(0);
    const paged = await list('?size=2&page=1');
    expect(paged).toMatchObject({ totalElements: 3, totalPages: 2, number: 1, last: true });
    expect(paged.content.map((p: { payment_token: string }) => p.payment_token)).toEqual([made[0]]);
    const before = `${all.content[0].created_at.replace(' ', 'T')}Z`;
    expect((await list(`?created_before=${encodeURIComponent(before)}`)).content.map((p: { payment_token: string }) => p.payment_token)).toEqual([made[1], made[0]]);
    expect((await list('?reference_id=list-a', other)).totalElements).toBe(1);
    const bad = await service().get('/payments?status=LOST&size=0', { token: m.token });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { description: string }) => e.description.split(':')[0])).toEqual(['size', 'status']);
  });

  it('ends DECLINED or ERROR with the processor code for the contract test cards', async () => {
    const m = await service().merchant();
    for (const [number, status, code] of [
      ['4000000000000002', 'DECLINED', '51'],
      ['4000000000000069', 'DECLINED', '54'],
      ['4000000000000119', 'ERROR', '96'],
    ] as const) {
      const ids = await customerWithCard(service(), m, number);
      const response = await service().post('/checkout/sendPayment', paymentBody(m, ids), { token: m.token });
      const details = await waitForStatus(service(), m, response.body.payment_token, settled);
      expect(details.general_info.transaction_status).toBe(status);
      expect(details.payment_info.error_code).toBe(code);
      expect(details.payment_info.error_description).toEqual(expect.any(String));
      // No money moved, so no fees: none listed, none in the totals, none in the reports' source.
      expect(details.fee_info).toEqual({ total_fee_values: 0, merchant_amount: 0, fee: [] });
      expect(details.payment_info.payment_amount).toBe(100);
      const stored = await service().ctx.db.selectFrom('payment_fees').select('position').where('payment_token', '=', response.body.payment_token).execute();
      expect(stored).toEqual([]);
    }
  });

  it('pre-authorises with delay_capture, captures part, releases the rest and balances the ledger', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m, '5555555555554444');
    const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids, { payment: { amount: '200.00', delay_capture: true } }), { token: m.token });
    const token = sent.body.payment_token;
    expect((await waitForStatus(service(), m, token, settled)).general_info.transaction_status).toBe('PRE_AUTHORIZED');

    const tooMuch = await service().post(`/checkout/${token}/capture`, { amount: 200.01 }, { token: m.token });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.errors[0].code).toBe('00.04.0011');
    const decimals = await service().post(`/checkout/${token}/capture`, { amount: 10.123 }, { token: m.token });
    expect(decimals.status).toBe(400);
    expect(decimals.body.errors).toEqual([{ code: '00.01.0044', description: 'amount: Value must have a maximum of two decimal places.' }]);
    expect(decimals.body.timestamp).toMatch(ERROR_TIMESTAMP);

    const capture = await service().post(`/checkout/${token}/capture`, { amount: 150 }, { token: m.token });
    expect(capture.status).toBe(200);
    expect(Object.keys(capture.body).sort()).toEqual(['payment_token', 'refresh_token', 'transaction_status']);
    expect(capture.body.transaction_status).toBe('PROCESSING');
    const details = await waitForStatus(service(), m, token, settled);
    expect(details.general_info.transaction_status).toBe('PAID');
    // After a partial capture the order keeps its amount; the payment is what was captured, plus customer fees.
    expect(details.payment_info).toMatchObject({ order_amount: 200, order_currency: 'BRL', payment_amount: 150, payment_currency: 'BRL' });
    // The fees are those of the captured amount: 2.99% + 0.39 (4.88) and 0.38% (0.57).
    expect(details.fee_info.fee.map((f: { value: number }) => f.value)).toEqual([4.88, 0.57]);
    expect(details.transaction_history.map((h: { status: string }) => h.status)).toEqual(['PAID', 'PROCESSING', 'PRE_AUTHORIZED', 'PROCESSING', 'CREATED']);

    const b = await balances(service().ctx.db, m.merchant_id);
    expect(b.card_authorizations ?? 0n).toBe(0n);
    expect(b.processor_receivable).toBe(15000n);
    // 150.00 less 2.99% + 0.39 (4.88) and 0.38% (0.57).
    expect(b.merchant_payable).toBe(-(15000n - 488n - 57n));
  });

  it('refuses to capture a payment that was not pre-authorised (422 00.04.0010)', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids), { token: m.token });
    await waitForStatus(service(), m, sent.body.payment_token, settled);
    const response = await service().post(`/checkout/${sent.body.payment_token}/capture`, { amount: 1 }, { token: m.token });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([{ code: '00.04.0010', description: "The payment token was not pre-authorised, so it can't be captured." }]);
  });

  it('gives payments, their operations, events, journals and balance lines time-ordered ids (UUID version 7), payments in the order they were sent', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const tokens: string[] = [];
    for (let i = 0; i < 6; i++) {
      const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids), { token: m.token });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      tokens.push(sent.body.payment_token);
    }
    for (const token of tokens) await waitForStatus(service(), m, token, settled);
    const db = service().ctx.db;
    const operations = await db.selectFrom('payment_operations').select(['id', 'payment_token']).where('merchant_id', '=', m.merchant_id).execute();
    const operationOf = new Map(operations.map((o) => [o.payment_token, o.id]));
    const events = await db.selectFrom('events').select('id').where('merchant_id', '=', m.merchant_id).execute();
    const journals = await db.selectFrom('ledger_entries').select('journal_id').where('merchant_id', '=', m.merchant_id).execute();
    const balanceLines = await db.selectFrom('balance_transactions').select('id').where('merchant_id', '=', m.merchant_id).execute();
    // Each was made after the one before it answered: in the order sent, tokens and their authorisations sort ascending.
    expect([...tokens].sort()).toEqual(tokens);
    const authorisations = tokens.map((token) => operationOf.get(token) ?? '');
    expect([...authorisations].sort()).toEqual(authorisations);
    const made = [...tokens, ...authorisations, ...events.map((e) => e.id), ...journals.map((j) => j.journal_id), ...balanceLines.map((b) => b.id)];
    expect(events.length).toBe(12);
    expect(balanceLines.length).toBe(6);
    for (const id of made) expect(id[14], id).toBe('7');
  });

  it('lets exactly one of 20 parallel captures and cancels take effect', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids, { payment: { amount: '50.00', delay_capture: true } }), { token: m.token });
    const token = sent.body.payment_token;
    await waitForStatus(service(), m, token, settled);
    const attempts = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0 ? service().post(`/checkout/${token}/capture`, { amount: 50 }, { token: m.token }) : service().post(`/checkout/${token}/cancel`, {}, { token: m.token }),
      ),
    );
    expect(attempts.filter((a) => a.status === 200)).toHaveLength(1);
    expect(attempts.filter((a) => a.status === 422)).toHaveLength(19);
    const details = await waitForStatus(service(), m, token, settled);
    expect(['PAID', 'CANCELED']).toContain(details.general_info.transaction_status);
    const b = await balances(service().ctx.db, m.merchant_id);
    expect(b.card_authorizations ?? 0n).toBe(0n);
    expect(b.processor_receivable ?? 0n).toBe(details.general_info.transaction_status === 'PAID' ? 5000n : 0n);
  });

  it('cancels a pre-authorisation not captured within 5 days of the merchant clock', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids, { payment: { delay_capture: true } }), { token: m.token });
    const token = sent.body.payment_token;
    await waitForStatus(service(), m, token, settled);
    await service().post('/sandbox/clock/advance', { seconds: 5 * 86_400 - 60 }, { token: m.token });
    expect((await waitForStatus(service(), m, token, settled)).general_info.transaction_status).toBe('PRE_AUTHORIZED');
    await service().post('/sandbox/clock/advance', { seconds: 120 }, { token: m.token });
    const details = await waitForStatus(service(), m, token, (s) => s === 'CANCELED');
    expect(details.transaction_history[0].status).toBe('CANCELED');
    const capture = await service().post(`/checkout/${token}/capture`, { amount: 1 }, { token: m.token });
    expect(capture.status).toBe(422);
  });

  it('converts another asset into BRL at the stored rate and shows it in totals and fxInfo', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const response = await service().post('/checkout/sendPayment', paymentBody(m, ids, { payment: { amount: '10.00', asset: 'USD' } }), { token: m.token });
    // 10.00 USD at 5.3412 BRL = 53.412 → 53.41 BRL.
    expect(response.body.totals).toEqual({ amount: 53.41, asset: 'BRL', original_amount: 10, original_asset: 'USD', customer_fees: 0, customer_amount: 53.41 });
    const details = await waitForStatus(service(), m, response.body.payment_token, settled);
    expect(details.fee_info.fee[0].fxInfo).toEqual({ original_currency: 'USD', counter_currency: 'BRL', rate: '5.3412', rate_timestemp: '2026-11-20' });
  });

  it('adds customer fees and installment interest from the fee plan to totals and customer_fees', async () => {
    const m = await service().merchant();
    const plan = {
      payments: [
        { type: 'SERVICE_FEE', payer: 'MERCHANT', ppm: 20_000, fixed_minor: 0 },
        { type: 'TAXES_FEE', payer: 'CUSTOMER', ppm: 10_000, fixed_minor: 50 },
      ],
      installment_interest_ppm: 15_000,
      payouts: [],
    };
    const set = await service().request('PUT', `/admin/merchants/${m.merchant_id}/fee-plan`, plan, { headers: { authorization: `Bearer ${service().ctx.adminToken}` } });
    expect(set.status).toBe(200);
    const ids = await customerWithCard(service(), m);
    const response = await service().post('/checkout/sendPayment', paymentBody(m, ids, { payment: { amount: '100.00', installments: 3 } }), { token: m.token });
    // TAXES_FEE 1% + 0.50 = 1.50; interest 1.5% × 2 extra installments = 3.00.
    expect(response.body.customer_fees).toEqual({ TAXES_FEE: 1.5, INSTALLMENT_INTEREST: 3 });
    expect(response.body.totals).toMatchObject({ amount: 100, customer_fees: 4.5, customer_amount: 104.5 });
  });

  it('validates every field rule of sendPayment with specific codes', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ contract_id: 'CT-NOTMINE' }, '00.04.0001', 'contract_id'],
      [{ reference_id: 'x'.repeat(46) }, '00.01.0004', 'reference_id'],
      [{ reference_id: '' }, '00.01.0007', 'reference_id'],
      [{ payment: { amount: '10.001' } }, '00.01.0044', 'payment.amount'],
      [{ payment: { amount: 10 } }, '00.01.0002', 'payment.amount'],
      [{ payment: { amount: 'ten' } }, '00.01.0003', 'payment.amount'],
      [{ payment: { amount: '0.99' } }, '00.04.0002', 'payment.amount'],
      [{ payment: { amount: '0.10', asset: 'USD' } }, '00.04.0002', 'payment.amount'],
      [{ payment: { method: 'PIX' } }, '00.01.0005', 'payment.method'],
      [{ payment: { asset: 'XYZ' } }, '00.04.0003', 'payment.asset'],
      [{ payment: { installments: 13 } }, '00.01.0006', 'payment.installments'],
      [{ payment: { installments: 1.5 } }, '00.01.0002', 'payment.installments'],
      [{ payment: { soft_descriptor: 'x'.repeat(23) } }, '00.01.0004', 'payment.soft_descriptor'],
      [{ ip_address: '300.1.1.1' }, '00.01.0003', 'ip_address'],
      [{ notification_url: 'ftp://example.com' }, '00.01.0003', 'notification_url'],
      [{ payment: { method: 'DEBITCARD' } }, '00.04.0004', 'authentication'],
      [{ payment: { method: 'DEBITCARD', installments: 3 }, authentication: { cavv: 'AAAB', eci: '05', version: '2.2.0', dstrans_id: 'x' } }, '00.04.0007', 'payment'],
      [{ authentication: { cavv: 'AAAB', eci: '05', version: '2.2.0' } }, '00.01.0001', 'authentication.dstrans_id'],
      [{ public_person_id: '00000000-0000-4000-8000-000000000000' }, '00.04.0008', 'public_person_id'],
      [{ public_card_id: 'not-a-card' }, '00.04.0009', 'public_card_id'],
    ];
    for (const [override, code, field] of cases) {
      const response = await service().post('/checkout/sendPayment', paymentBody(m, ids, override), { token: m.token });
      expect(response.status, JSON.stringify(override)).toBe(400);
      expect(response.body.errors, JSON.stringify(override)).toContainEqual({ code, description: expect.stringMatching(new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')}: `)) });
    }
    for (const ip of ['192.168.0.10', '2001:db8::1']) {
      expect((await service().post('/checkout/sendPayment', paymentBody(m, ids, { ip_address: ip }), { token: m.token })).status).toBe(200);
    }
    const debit = await service().post(
      '/checkout/sendPayment',
      paymentBody(m, ids, { payment: { method: 'DEBITCARD' }, authentication: { cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', eci: '05', version: '2.2.0', dstrans_id: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } }),
      { token: m.token },
    );
    // Well-formed data of another 3DS server is accepted, once per merchant (three-ds/verify-authentication.ts; docs/3ds.md).
    expect(debit.status, JSON.stringify(debit.body)).toBe(200);
    const again = await service().post(
      '/checkout/sendPayment',
      paymentBody(m, ids, { payment: { method: 'DEBITCARD' }, authentication: { cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', eci: '05', version: '2.2.0', dstrans_id: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } }),
      { token: m.token },
    );
    expect(again.status).toBe(400);
    expect(again.body.errors).toEqual([{ code: '00.04.0016', description: expect.stringMatching(/^authentication\.dstrans_id: /) }]);
  });

  it("treats another merchant's person, card and payment as not found", async () => {
    const a = await service().merchant();
    const b = await service().merchant();
    const idsA = await customerWithCard(service(), a);
    const idsB = await customerWithCard(service(), b);
    const sent = await service().post('/checkout/sendPayment', paymentBody(a, idsA, { payment: { delay_capture: true } }), { token: a.token });
    const cross = await service().post('/checkout/sendPayment', paymentBody(b, idsA), { token: b.token });
    expect(cross.status).toBe(400);
    expect(cross.body.errors.map((e: { code: string }) => e.code)).toEqual(['00.04.0008', '00.04.0009']);
    const mixed = await service().post('/checkout/sendPayment', paymentBody(b, { personId: idsB.personId, cardId: idsA.cardId }), { token: b.token });
    expect(mixed.body.errors).toEqual([{ code: '00.04.0009', description: 'public_card_id: card not found.' }]);
    await waitForStatus(service(), a, sent.body.payment_token, settled);
    for (const response of [
      await service().get(`/transactionDetails/${sent.body.payment_token}`, { token: b.token }),
      await service().post(`/checkout/${sent.body.payment_token}/capture`, { amount: 1 }, { token: b.token }),
      await service().post(`/checkout/${sent.body.payment_token}/cancel`, {}, { token: b.token }),
    ]) {
      expect(response.status).toBe(404);
      expect(JSON.stringify(response.body)).not.toContain(idsA.personId);
    }
  });

  it('leaves a payment PROCESSING when the processor times out and settles it from the processor later', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    await service().post('/sandbox/processor/faults', { operation: 'authorize', fault: 'TIMEOUT', times: 1 }, { token: m.token });
    const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids), { token: m.token });
    const token = sent.body.payment_token;
    // The processor acted, the answer was lost: the payment waits, and is not failed by guesswork. (Polled: on a
    // loaded machine the worker's first attempt can take longer than a fixed wait; its retry comes a second later.)
    const timedOut = async () => (await operationJobs(service().ctx.db, token)).some((j) => j.kind === PROCESS_PAYMENT_JOB && j.last_error?.includes('timed out'));
    await expect.poll(timedOut).toBe(true);
    expect((await service().get(`/transactionDetails/${token}`, { token: m.token })).body.general_info.transaction_status).toBe('PROCESSING');
    // The reconciling retry asks the processor and settles from its answer.
    await service().ctx.db.updateTable('jobs').set({ run_at: new Date() }).where('kind', '=', PROCESS_PAYMENT_JOB).execute();
    service().ctx.workerSignal.poke();
    expect((await waitForStatus(service(), m, token, settled)).general_info.transaction_status).toBe('PAID');
    const operations = await service().ctx.db.selectFrom('sandbox_operations').selectAll().where('reference', '=', `${token}:authorize`).execute();
    expect(operations).toHaveLength(1);
  });
  it('writes nothing when a guarded status change finds the payment already moved on', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids), { token: m.token });
    await waitForStatus(service(), m, sent.body.payment_token, settled);
    const db = service().ctx.db;
    const token = sent.body.payment_token as string;
    const count = async () => ({
      history: (await db.selectFrom('payment_status_history').select('position').where('payment_token', '=', token).execute()).length,
      events: (await db.selectFrom('events').select('id').where('resource_id', '=', token).execute()).length,
      ledger: (await db.selectFrom('ledger_entries').select('id').where('resource_id', '=', token).execute()).length,
    });
    const before = await count();
    const operation = await db.selectFrom('payment_operations').select('id').where('payment_token', '=', token).executeTakeFirstOrThrow();
    const [loaded] = await loadOperations(db, [operation.id]);
    if (!loaded) throw new Error('operation not found');
    // A second answer to the authorisation of a payment that is PAID already (as a job run again would bring).
    const [again] = await applyOutcomes(db, [{ ...loaded, result: { status: 'APPROVED', processorId: 'sim_again' }, at: new Date() }]);
    expect(again).toBeUndefined();
    expect(await count()).toEqual(before);
    expect(before.ledger).toBeGreaterThan(0);
  });

  it('refuses a move its state table does not list: 409 with the standard body in a request, and nothing written', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids), { token: m.token });
    await waitForStatus(service(), m, sent.body.payment_token, settled);
    const token = sent.body.payment_token as string;
    const db = service().ctx.db;
    const count = async () => (await db.selectFrom('payment_status_history').select('position').where('payment_token', '=', token).execute()).length;
    const before = await count();

    const refused = await service().post(`/test/payments/${token}/expire`, {}, { token: m.token });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.timestamp).toMatch(ERROR_TIMESTAMP);
    expect(refused.body).toMatchObject({ status: 409, error: 'Conflict', path: `/test/payments/${token}/expire` });
    expect(refused.body.errors).toEqual([{ code: '00.10.0001', description: 'status: the payment is PAID; it can become EXPIRED only from CREATED or PROCESSING.' }]);

    // A caller that read the payment PROCESSING but did not lock it: the guarded update finds it PAID.
    const paid = await db.selectFrom('payments').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
    const stale = changeStatus(db, { ...paid, status: 'PROCESSING' }, 'DECLINED', new Date());
    await expect(stale).rejects.toThrow(IllegalMoveError);
    await expect(stale).rejects.toThrow('status: the payment is no longer PROCESSING; it can become DECLINED only from PROCESSING.');
    expect(await db.selectFrom('payments').select('status').where('payment_token', '=', token).executeTakeFirstOrThrow()).toEqual({ status: 'PAID' });
    expect(await count()).toBe(before);
  });
}, {
  // A request that asks for a move no endpoint offers (expiring a paid payment), to see the refusal as a client does.
  routes: (app, ctx) => {
    app.post<{ Params: { token: string } }>('/test/payments/:token/expire', async (request) => {
      const merchantId = request.principal?.merchantId ?? '';
      return ctx.db.transaction().execute(async (trx) => {
        const payment = await lockPayment(trx, merchantId, request.params.token);
        if (!payment) throw new Error('payment not found');
        const expired = await changeStatus(trx, payment, 'EXPIRED', new Date());
        return { status: expired.status };
      });
    });
  },
});
