import { expect, it } from 'vitest';
import type { FeePlan } from '../src/fees/fee-plan';
import { createPaymentsIfCurrent, type AssumedContext } from '../src/payments/create-payment';
import { sendPaymentStatements } from '../src/payments/hot-path';
import { describeEachEngine } from './harness';
import { customerWithCard, operationJobs, paymentBody, pricedCardPayment } from './fixtures';

/**
 * sendPayment's one round trip (payments/hot-path.ts): a request whose merchant the process has read
 * is priced on what it read and stored only where that still holds. Every change of what it assumed
 * must give the answer a fresh read gives, and a payment stored on a stale assumption must write nothing.
 */
describeEachEngine('sendPayment priced on what it read before', (service) => {
  const CUSTOMER_TAXES: FeePlan = {
    payments: [
      { type: 'SERVICE_FEE', payer: 'MERCHANT', ppm: 20_000, fixed_minor: 0 },
      { type: 'TAXES_FEE', payer: 'CUSTOMER', ppm: 10_000, fixed_minor: 50 },
    ],
    installment_interest_ppm: 0,
    payouts: [],
  };

  it('reads again when the fee plan, the clock, the contract or the card has changed, and answers as the read does', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const db = service().ctx.db;
    const send = (overrides: Record<string, unknown> = {}, ofIds = ids) => service().post('/checkout/sendPayment', paymentBody(m, ofIds, { payment: { amount: '100.00' }, ...overrides }), { token: m.token });
    const key = { merchantId: m.merchant_id, personId: ids.personId, cardId: ids.cardId };
    expect(sendPaymentStatements(db).assumedContext(key)).toBeUndefined();
    const first = await send();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.customer_fees).toEqual({});
    expect(sendPaymentStatements(db).assumedContext(key)).toMatchObject({ merchant: { contractId: m.contract_id }, card: { id: ids.cardId, status: 'ACTIVE' } });

    // A new fee plan: the payment pays it, not the plan the process read first.
    const set = await service().request('PUT', `/admin/merchants/${m.merchant_id}/fee-plan`, CUSTOMER_TAXES, { headers: { authorization: `Bearer ${service().ctx.adminToken}` } });
    expect(set.status).toBe(200);
    const second = await send();
    expect(second.body.customer_fees).toEqual({ TAXES_FEE: 1.5 });
    expect((await send()).body.customer_fees).toEqual({ TAXES_FEE: 1.5 });

    // The sandbox clock moved two days on: the payment is made at the merchant's new time.
    expect((await service().post('/sandbox/clock/advance', { seconds: 2 * 86_400 }, { token: m.token })).status).toBe(200);
    const later = await send();
    const made = await db.selectFrom('payments').select('created_at').where('payment_token', '=', later.body.payment_token).executeTakeFirstOrThrow();
    expect(new Date(made.created_at).getTime() - Date.now()).toBeGreaterThan(86_400_000);

    // Another contract, another person's card, another merchant's card, a card no longer ACTIVE.
    const refused = async (overrides: Record<string, unknown>, code: string, ofIds = ids) => {
      const response = await send(overrides, ofIds);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.errors.map((e: { code: string }) => e.code)).toEqual([code]);
    };
    await refused({ contract_id: 'CT-NOTMINE' }, '00.04.0001');
    const other = await customerWithCard(service(), m, '5555555555554444');
    await refused({}, '00.04.0005', { personId: ids.personId, cardId: other.cardId });
    const elsewhere = await customerWithCard(service(), await service().merchant('B'));
    await refused({}, '00.04.0009', { personId: ids.personId, cardId: elsewhere.cardId });
    await db.updateTable('cards').set({ status: 'BLOCKED' }).where('id', '=', ids.cardId).execute();
    await refused({}, '00.04.0006');
    const stored = await db.selectFrom('payments').select('payment_token').where('merchant_id', '=', m.merchant_id).execute();
    expect(stored).toHaveLength(4);
  });

  it('stores a payment whose assumptions hold, and writes nothing at all for one whose merchant facts or card have changed', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const db = service().ctx.db;
    const merchant = await db.selectFrom('merchants').select(['contract_id', 'clock_offset_ms']).where('id', '=', m.merchant_id).executeTakeFirstOrThrow();
    const plan = await db.selectFrom('fee_plans').select('plan').where('merchant_id', '=', m.merchant_id).executeTakeFirst();
    const current: AssumedContext = { contractId: merchant.contract_id, clockOffsetMs: merchant.clock_offset_ms, plan: (plan?.plan as FeePlan | undefined) ?? null };
    const stale: AssumedContext[] = [{ ...current, plan: CUSTOMER_TAXES }, { ...current, clockOffsetMs: 1000n }, { ...current, contractId: 'CT-OTHER' }];
    const other = await customerWithCard(service(), m, '5555555555554444');
    const items = [
      { payment: { ...pricedCardPayment(m, ids.personId, ids.cardId), paymentToken: crypto.randomUUID() }, assumed: current },
      ...stale.map((assumed) => ({ payment: { ...pricedCardPayment(m, ids.personId, ids.cardId), paymentToken: crypto.randomUUID() }, assumed })),
      { payment: { ...pricedCardPayment(m, ids.personId, other.cardId), paymentToken: crypto.randomUUID() }, assumed: current },
    ];
    const tokens = items.map((item) => item.payment.paymentToken as string);
    // Read inside the transaction that writes them, before a worker may run the stored payment's job and delete it.
    await db.transaction().execute(async (trx) => {
      // One statement: each payment is checked against the facts it was priced on, though they name one merchant.
      const answers = await createPaymentsIfCurrent(trx, items);
      expect(answers.map((a) => a !== null)).toEqual([true, false, false, false, false]);
      const written = await trx.selectFrom('payments').select('payment_token').where('merchant_id', '=', m.merchant_id).execute();
      expect(written.map((p) => p.payment_token)).toEqual([tokens[0]]);
      for (const token of tokens.slice(1)) {
        expect(await trx.selectFrom('payment_operations').select('id').where('payment_token', '=', token).execute()).toEqual([]);
        expect(await trx.selectFrom('events').select('id').where('resource_id', '=', token).execute()).toEqual([]);
        expect(await operationJobs(trx, token)).toEqual([]);
      }
      expect(await operationJobs(trx, tokens[0] as string)).toHaveLength(1);
    });
  });
});
