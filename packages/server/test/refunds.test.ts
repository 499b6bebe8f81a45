import fc from 'fast-check';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { balances } from '../src/ledger/ledger';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';
import { customerWithCard, paymentBody, settled, settledCardPayment, waitForStatus } from './fixtures';

const DAY = 86_400;

async function paidCardPayment(service: TestService, m: TestMerchant, amount = '100.00', overrides: Record<string, unknown> = {}) {
  const { token, details } = await settledCardPayment(service, m, { payment: { amount, ...overrides } });
  expect(details.general_info.transaction_status).toBe('PAID');
  return token;
}

/**
 * PIX and BOLETO payments are made through hosted checkout; to test the refund rules of each method
 * in isolation, a paid card payment is relabelled with that method here.
 */
async function paidPaymentOfMethod(service: TestService, m: TestMerchant, method: 'PIX' | 'BOLETO', amount = '100.00') {
  const token = await paidCardPayment(service, m, amount);
  await service.ctx.db.updateTable('payments').set({ method }).where('payment_token', '=', token).execute();
  return token;
}

async function waitForRefund(service: TestService, m: TestMerchant, id: number, until = (s: string) => s === 'COMPLETED' || s === 'FAILED') {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await service.get(`/refund/${id}`, { token: m.token });
    if (until(response.body.refund_status)) return response.body;
    if (Date.now() > deadline) throw new Error(`refund ${id} still ${response.body.refund_status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describeEachEngine('refunds', (service) => {
  it('refunds a whole card payment: spec response, PROCESSING then COMPLETED, payment REFUNDED, ledger back', async () => {
    const m = await service().merchant();
    const token = await paidCardPayment(service(), m);
    const response = await service().post('/refund', { payment_token: token }, { token: m.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['created_at', 'payment_token', 'refresh_token', 'refund_id', 'refund_status']);
    expect(Number.isInteger(response.body.refund_id)).toBe(true);
    expect(response.body.payment_token).toBe(token);
    expect(response.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
    expect(response.body.refund_status).toBe('PROCESSING');
    const refund = await waitForRefund(service(), m, response.body.refund_id);
    expect(refund).toMatchObject({ refund_status: 'COMPLETED', amount: 100, currency: 'BRL' });
    const details = await waitForStatus(service(), m, token, (s) => s === 'REFUNDED');
    expect(details.payment_info.refunded_amount).toBe(100);
    expect(details.refunds).toEqual([expect.objectContaining({ refund_id: response.body.refund_id, refund_status: 'COMPLETED', amount: 100 })]);
    const b = await balances(service().ctx.db, m.merchant_id);
    expect(b.processor_receivable).toBe(0n);
    const history = await service().ctx.db.selectFrom('refund_status_history').select('status').where('refund_id', '=', BigInt(response.body.refund_id)).orderBy('id').execute();
    expect(history.map((h) => h.status)).toEqual(['REQUESTED', 'PROCESSING', 'COMPLETED']);
    const events = await service().ctx.db.selectFrom('events').select('data').where('type', '=', 'refund.status_changed').where('merchant_id', '=', m.merchant_id).execute();
    expect(events.map((e) => (e.data as { refund_status: string }).refund_status)).toEqual(['REQUESTED', 'PROCESSING', 'COMPLETED']);
    // Each refund callback carries its payment's reference_id (contract, Callbacks).
    const referenceId = details.general_info.external_id;
    expect(typeof referenceId === 'string' && referenceId.length > 0).toBe(true);
    expect(events.map((e) => (e.data as { reference_id: string }).reference_id)).toEqual([referenceId, referenceId, referenceId]);
  });

  it('refunds in parts: PARTIALLY_REFUNDED, then REFUNDED, never beyond the customer amount', async () => {
    const m = await service().merchant();
    const token = await paidCardPayment(service(), m);
    const first = await service().post('/refund', { payment_token: token, amount: 30.5 }, { token: m.token });
    await waitForRefund(service(), m, first.body.refund_id);
    expect((await waitForStatus(service(), m, token, (s) => s === 'PARTIALLY_REFUNDED')).payment_info.refunded_amount).toBe(30.5);
    const tooMuch = await service().post('/refund', { payment_token: token, amount: 69.51 }, { token: m.token });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.errors).toEqual([{ code: '01.05.0034', description: 'amount: must be less than or equal to the amount still refundable (69.50).' }]);
    const rest = await service().post('/refund', { payment_token: token }, { token: m.token });
    await waitForRefund(service(), m, rest.body.refund_id);
    expect((await waitForStatus(service(), m, token, (s) => s === 'REFUNDED')).payment_info.refunded_amount).toBe(100);
    const again = await service().post('/refund', { payment_token: token, amount: 1 }, { token: m.token });
    expect(again.body.errors[0].code).toBe('01.05.0030');
  });

  it('refuses payments whose status does not allow a refund (400 01.05.0030)', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const preauth = await service().post('/checkout/sendPayment', paymentBody(m, ids, { payment: { delay_capture: true } }), { token: m.token });
    await waitForStatus(service(), m, preauth.body.payment_token, settled);
    const declinedIds = await customerWithCard(service(), m, '4000000000000002');
    const declined = await service().post('/checkout/sendPayment', paymentBody(m, declinedIds), { token: m.token });
    await waitForStatus(service(), m, declined.body.payment_token, settled);
    for (const token of [preauth.body.payment_token, declined.body.payment_token]) {
      const response = await service().post('/refund', { payment_token: token }, { token: m.token });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([{ code: '01.05.0030', description: 'Current payment status does not allow refund' }]);
    }
  });

  it('checks amount decimals, currency and the partial-refund table per method', async () => {
    const m = await service().merchant();
    const card = await paidCardPayment(service(), m);
    const decimals = await service().post('/refund', { payment_token: card, amount: 1.005 }, { token: m.token });
    expect(decimals.body.errors).toEqual([{ code: '00.01.0044', description: 'amount: Value must have a maximum of two decimal places.' }]);
    const usd = await paidCardPayment(service(), m, '10.00', { asset: 'USD' });
    expect((await service().post('/refund', { payment_token: usd }, { token: m.token })).body.errors[0].code).toBe('01.05.0031');
    const boleto = await paidPaymentOfMethod(service(), m, 'BOLETO');
    const partial = await service().post('/refund', { payment_token: boleto, amount: 10, pix_key: 'maria@example.com' }, { token: m.token });
    expect(partial.body.errors).toEqual([{ code: '01.05.0032', description: 'amount: BOLETO payments are refunded whole only.' }]);
    const pix = await paidPaymentOfMethod(service(), m, 'PIX');
    expect((await service().post('/refund', { payment_token: pix, amount: 10 }, { token: m.token })).status).toBe(200);
  });

  it('validates the destination of a BOLETO refund: a PIX key of each kind, or a bank account', async () => {
    const m = await service().merchant();
    const cases: [Record<string, unknown>, string | null][] = [
      [{}, '01.05.0035'],
      [{ pix_key: 'maria@example.com', bank_number: '001' }, '01.05.0036'],
      [{ pix_key: 'not a key' }, '01.05.0037'],
      [{ pix_key: '+5511912345678' }, null],
      [{ pix_key: '52998224725' }, null],
      [{ pix_key: '123e4567-e89b-42d3-a456-426614174000' }, null],
      [{ type: 'CHECKING', bank_number: '1', agency_number: '1234', account_number: '12345', account_check_digit: '6' }, '01.05.0038'],
      [{ type: 'CURRENT', bank_number: '001', agency_number: '1234', account_number: '12345', account_check_digit: '6' }, '01.05.0038'],
      [{ type: 'CHECKING', bank_number: '001', agency_number: '1234', account_number: '12345' }, '01.05.0038'],
      [{ type: 'SAVINGS', bank_number: '001', agency_number: '1234', agency_check_digit: 'X', account_number: '12345', account_check_digit: '6' }, null],
    ];
    for (const [destination, code] of cases) {
      const boleto = await paidPaymentOfMethod(service(), m, 'BOLETO');
      const response = await service().post('/refund', { payment_token: boleto, ...destination }, { token: m.token });
      if (code === null) expect(response.status, JSON.stringify(destination)).toBe(200);
      else expect(response.body.errors?.[0]?.code, JSON.stringify(destination)).toBe(code);
    }
  });

  it('keeps the refund windows on the merchant clock: the day before and after PIX 90 days and card 6 months; BOLETO none', async () => {
    const secondsUntil = async (m: TestMerchant, target: Date) => {
      const now = new Date((await service().get('/sandbox/clock', { token: m.token })).body.now);
      return Math.round((target.getTime() - now.getTime()) / 1000);
    };
    const paidAt = async (m: TestMerchant, token: string) => {
      const details = await waitForStatus(service(), m, token, settled);
      return new Date(`${details.transaction_history[0].timestamp.replace(' ', 'T')}Z`);
    };
    /** Six calendar months later, the day clamped to the month's length (31 Aug → 28/29 Feb). */
    const sixMonthsAfter = (date: Date) => {
      const target = new Date(date);
      const day = target.getUTCDate();
      target.setUTCDate(1);
      target.setUTCMonth(target.getUTCMonth() + 6);
      const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
      target.setUTCDate(Math.min(day, lastDay));
      return target;
    };
    const scenarios = [
      { method: 'PIX' as const, deadline: (paid: Date) => new Date(paid.getTime() + 90 * DAY * 1000), offsetDays: -1, ok: true },
      { method: 'PIX' as const, deadline: (paid: Date) => new Date(paid.getTime() + 90 * DAY * 1000), offsetDays: 1, ok: false },
      { method: 'CARD' as const, deadline: sixMonthsAfter, offsetDays: -1, ok: true },
      { method: 'CARD' as const, deadline: sixMonthsAfter, offsetDays: 1, ok: false },
      { method: 'BOLETO' as const, deadline: (paid: Date) => new Date(paid.getTime() + 3 * 366 * DAY * 1000), offsetDays: 0, ok: true },
    ];
    for (const scenario of scenarios) {
      const m = await service().merchant();
      const token = scenario.method === 'CARD' ? await paidCardPayment(service(), m) : await paidPaymentOfMethod(service(), m, scenario.method);
      const target = new Date(scenario.deadline(await paidAt(m, token)).getTime() + scenario.offsetDays * DAY * 1000);
      await service().post('/sandbox/clock/advance', { seconds: await secondsUntil(m, target) }, { token: m.token });
      const response = await service().post('/refund', { payment_token: token, ...(scenario.method === 'BOLETO' ? { pix_key: 'maria@example.com' } : {}) }, { token: m.token });
      if (scenario.ok) expect(response.status, JSON.stringify(scenario)).toBe(200);
      else expect(response.body.errors?.[0]?.code, JSON.stringify(scenario)).toBe('01.05.0033');
    }
  });

  it('answers 502 00.03.0001 when the processor cannot be reached, with nothing refunded or reserved', async () => {
    const m = await service().merchant();
    const token = await paidCardPayment(service(), m);
    await service().post('/sandbox/processor/faults', { operation: 'refund', fault: 'UNAVAILABLE', times: 1 }, { token: m.token });
    const failed = await service().post('/refund', { payment_token: token, amount: 40 }, { token: m.token });
    expect(failed.status).toBe(502);
    expect(failed.body.errors).toEqual([{ code: '00.03.0001', description: 'There was an issue when contacting an external API, please contact support' }]);
    expect(await service().ctx.db.selectFrom('refunds').select('refund_id').where('payment_token', '=', token).execute()).toEqual([]);
    // The whole amount is still refundable.
    const whole = await service().post('/refund', { payment_token: token }, { token: m.token });
    expect(whole.status).toBe(200);
    expect((await waitForRefund(service(), m, whole.body.refund_id)).amount).toBe(100);
  });

  it('marks a refund the processor rejects FAILED and releases its amount', async () => {
    const m = await service().merchant();
    const token = await paidCardPayment(service(), m);
    const rejected = await service().post('/refund', { payment_token: token, amount: 10.13 }, { token: m.token });
    expect(rejected.body.refund_status).toBe('FAILED');
    const whole = await service().post('/refund', { payment_token: token }, { token: m.token });
    expect((await waitForRefund(service(), m, whole.body.refund_id)).amount).toBe(100);
  });

  it('never refunds more than a payment holds under 50 parallel partial refunds', async () => {
    const m = await service().merchant();
    const token = await paidCardPayment(service(), m);
    const responses = await Promise.all(Array.from({ length: 50 }, () => service().post('/refund', { payment_token: token, amount: 7 }, { token: m.token })));
    const accepted = responses.filter((r) => r.status === 200);
    expect(accepted).toHaveLength(14); // 14 × 7.00 = 98.00 ≤ 100.00 < 15 × 7.00
    for (const r of responses.filter((x) => x.status !== 200)) expect(r.body.errors[0].code).toBe('01.05.0034');
    for (const r of accepted) await waitForRefund(service(), m, r.body.refund_id);
    const payment = await service().ctx.db.selectFrom('payments').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
    expect(payment.refunded_minor).toBe(9800n);
    expect(payment.status).toBe('PARTIALLY_REFUNDED');
  });

  it("does not refund another merchant's payment, and says not found", async () => {
    const a = await service().merchant();
    const b = await service().merchant();
    const token = await paidCardPayment(service(), a);
    const response = await service().post('/refund', { payment_token: token }, { token: b.token });
    expect(response.status).toBe(404);
    const refund = await service().post('/refund', { payment_token: token, amount: 1 }, { token: a.token });
    expect((await service().get(`/refund/${refund.body.refund_id}`, { token: b.token })).status).toBe(404);
  });

  it('keeps refunded ≤ captured and the ledger balanced over random refund sequences (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(fc.integer({ min: 1, max: 6000 }), { nil: undefined }), { minLength: 1, maxLength: 5 }), async (amounts) => {
        const m = await service().merchant();
        const token = await paidCardPayment(service(), m, '50.00');
        for (const cents of amounts) {
          const response = await service().post('/refund', { payment_token: token, ...(cents === undefined ? {} : { amount: cents / 100 }) }, { token: m.token });
          expect([200, 400]).toContain(response.status);
          if (response.status === 200) await waitForRefund(service(), m, response.body.refund_id);
        }
        const payment = await service().ctx.db.selectFrom('payments').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
        expect(payment.refunded_minor <= payment.captured_minor + payment.customer_fees_minor).toBe(true);
        const unbalanced = await sql`select journal_id from ledger_entries where merchant_id = ${m.merchant_id} group by journal_id having sum(amount_minor) <> 0`.execute(service().ctx.db);
        expect(unbalanced.rows).toEqual([]);
        const b = await balances(service().ctx.db, m.merchant_id);
        expect(b.processor_receivable).toBe(payment.captured_minor + payment.customer_fees_minor - payment.refunded_minor);
      }),
      { numRuns: 8, seed: Number(process.env.PROPERTY_SEED ?? 6) },
    );
  }, 120_000);
});
