import { expect, it } from 'vitest';
import { batchCalls } from '../src/lib/batch';
import { applyOutcomes, applyOutcomesQuietly } from '../src/payments/apply-outcome';
import type { PaymentRow } from '../src/payments/payment-record';
import { createPayment, createPayments, STORED_PAYMENT_COLUMNS, type NewPayment } from '../src/payments/create-payment';
import { ProcessorTimeoutError, ProcessorUnavailableError, type AuthorizeInput } from '../src/processor/processor';
import { describeEachEngine, type TestMerchant } from './harness';
import { customerWithCard, operationJobs, operationWithoutJob, paymentBody, pricedCardPayment, settled, waitForStatus } from './fixtures';

/**
 * The statements that calls arriving together share (lib/batch.ts, payments/hot-path.ts): sendPayment's
 * read and insert, the authorisation job's read and settlement. Each payment of a shared statement must
 * come out exactly as if it had been written alone, and one bad item must cost only itself.
 */
describeEachEngine('statements shared by concurrent payments', (service) => {
  it('stores every payment of 30 sent at once by two merchants whole: row, fees, history, events, journals and job', async () => {
    const merchants = [await service().merchant('A'), await service().merchant('B')];
    const customers = [await customerWithCard(service(), merchants[0] as TestMerchant), await customerWithCard(service(), merchants[1] as TestMerchant)];
    const sent = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const m = merchants[i % 2] as TestMerchant;
        const amount = `${10 + i}.${String(i).padStart(2, '0')}`;
        const response = await service().post('/checkout/sendPayment', paymentBody(m, customers[i % 2] as { personId: string; cardId: string }, { payment: { amount } }), { token: m.token });
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        return { m, amount, token: response.body.payment_token as string };
      }),
    );
    expect(new Set(sent.map((s) => s.token)).size).toBe(30);
    const db = service().ctx.db;
    for (const { m, amount, token } of sent) {
      const details = await waitForStatus(service(), m, token, settled);
      expect(details.general_info).toMatchObject({ transaction_status: 'PAID', project_id: m.contract_id });
      expect(details.payment_info.order_amount).toBe(Number(amount));
      expect(details.transaction_history.map((h: { status: string }) => h.status)).toEqual(['PAID', 'PROCESSING', 'CREATED']);
      expect(details.fee_info.fee.map((f: { fee_type: string }) => f.fee_type)).toEqual(['SERVICE_FEE', 'TAXES_FEE']);
      const payment = await db.selectFrom('payments').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
      expect(payment.merchant_id).toBe(m.merchant_id);
      expect(payment.captured_minor).toBe(BigInt(amount.replace('.', '')));
      const events = await db.selectFrom('events').select(['merchant_id', 'data']).where('resource_id', '=', token).execute();
      expect(events.map((e) => (e.data as { status: string }).status).sort()).toEqual(['PAID', 'PROCESSING']);
      expect(events.every((e) => e.merchant_id === m.merchant_id)).toBe(true);
      const lines = await db.selectFrom('ledger_entries').select(['amount_minor', 'merchant_id']).where('resource_id', '=', token).execute();
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.reduce((sum, l) => sum + l.amount_minor, 0n)).toBe(0n);
      expect(lines.every((l) => l.merchant_id === m.merchant_id)).toBe(true);
    }
    for (const { token } of sent) expect(await operationJobs(db, token)).toEqual([]);
  });

  it('fails only the payment whose row the database refuses; the others of its statement are stored', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const insert = batchCalls((inputs: readonly NewPayment[]) => createPayments(service().ctx.db, inputs));
    // A card id that does not exist violates the payments -> cards foreign key, failing the whole statement.
    const missingCard = '00000000-0000-4000-8000-000000000000';
    const results = await Promise.allSettled([insert(pricedCardPayment(m, ids.personId, ids.cardId)), insert(pricedCardPayment(m, ids.personId, missingCard)), insert(pricedCardPayment(m, ids.personId, ids.cardId))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const db = service().ctx.db;
    const stored = await db.selectFrom('payments').select(['payment_token', 'card_id']).where('merchant_id', '=', m.merchant_id).execute();
    expect(stored.map((p) => p.card_id)).toEqual([ids.cardId, ids.cardId]);
    for (const { payment_token: token } of stored) {
      expect(await db.selectFrom('payment_status_history').select('status').where('payment_token', '=', token).orderBy('position').execute()).toEqual([{ status: 'CREATED' }, { status: 'PROCESSING' }]);
      expect(await db.selectFrom('events').select('id').where('resource_id', '=', token).execute()).toHaveLength(1);
    }
    const events = await db.selectFrom('events').select('resource_id').where('merchant_id', '=', m.merchant_id).execute();
    expect(events.map((e) => e.resource_id).sort()).toEqual(stored.map((p) => p.payment_token).sort());
  });

  it('stores the same rows through createPayment alone as through the shared createPayments, however the payment starts', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const card = pricedCardPayment(m, ids.personId, ids.cardId);
    const code: NewPayment = {
      ...card,
      method: 'OXXO',
      personId: null,
      cardId: null,
      originalCurrency: 'USD',
      price: { amountMinor: 17_250n, currency: 'MXN', fxRate: '17.25', fxRateDate: '2026-01-01' },
      extraData: null,
      notificationUrl: 'https://merchant.example/cb',
      expiresAt: new Date('2031-01-01T00:00:00Z'),
      start: 'await-payer',
    };
    const inputs: NewPayment[] = [{ ...card, start: 'authorize' }, { ...card, start: 'hold' }, { ...card, start: 'draft' }, code];
    // Read inside the transaction that writes them, before the worker may settle the authorised ones.
    const written = await service().ctx.db.transaction().execute(async (trx) => {
      const alone = [];
      for (const input of inputs) alone.push(await createPayment(trx, input));
      const shared = await createPayments(trx, inputs);
      // The shared form answers only STORED_PAYMENT_COLUMNS, each exactly as stored.
      for (const answered of shared) {
        const stored = await trx.selectFrom('payments').select(STORED_PAYMENT_COLUMNS).where('payment_token', '=', answered.payment_token).executeTakeFirstOrThrow();
        expect(answered).toEqual(stored);
      }
      const rows = async ({ payment_token: token }: Pick<PaymentRow, 'payment_token'>) => {
        const { payment_token: _token, ...row } = await trx.selectFrom('payments').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
        const history = await trx.selectFrom('payment_status_history').select(['status', 'at']).where('payment_token', '=', token).orderBy('position').execute();
        const fees = await trx.selectFrom('payment_fees').select(['fee_type', 'payer', 'amount_minor', 'currency']).where('payment_token', '=', token).orderBy('position').execute();
        const stored = await trx.selectFrom('events').select(['type', 'data', 'notification_urls']).where('resource_id', '=', token).execute();
        // The database numbers every event (its sequence, migration 0012), which differs between the two.
        const events = stored.map(({ data, ...event }) => ({ ...event, data: { ...(data as object), sequence: undefined } }));
        const operations = await trx.selectFrom('payment_operations').selectAll().where('payment_token', '=', token).execute();
        const jobs = (await operationJobs(trx, token)).map(({ id: _id, last_error: _error, ...job }) => job);
        // Operation ids are random: each is named by its place.
        const anonymous = (value: unknown) =>
          JSON.parse(operations.reduce((text, o, n) => text.replaceAll(o.id, `OPERATION-${n}`), JSON.stringify(value).replaceAll(token, 'TOKEN'))) as unknown[];
        return {
          row: { ...row, created_at: row.created_at.toISOString() },
          history,
          fees,
          events: anonymous(events),
          operations: anonymous(operations.map((o) => ({ ...o, amount_minor: String(o.amount_minor), requested_at: o.requested_at.toISOString() }))),
          jobs: anonymous(jobs),
        };
      };
      return { alone: await Promise.all(alone.map(rows)), shared: await Promise.all(shared.map(rows)) };
    });
    expect(written.shared).toEqual(written.alone);
    expect(written.alone.map((p) => [p.row.status, p.history.length, p.events.length, p.operations.length, p.jobs.length])).toEqual([
      ['PROCESSING', 2, 1, 1, 1],
      ['PROCESSING', 2, 1, 0, 0],
      ['CREATED', 1, 0, 0, 0],
      ['CREATED', 1, 1, 0, 0],
    ]);
    expect(written.alone[3]?.row).toMatchObject({ currency: 'MXN', amount_minor: 17_250n, fx_rate: '17.25', original_currency: 'USD', person_id: null, extra_data: null });
    expect(written.alone[3]?.fees.every((f) => f.currency === 'MXN')).toBe(true);
  });

  it('gives injected faults to as many concurrent operations as the fault allows, and records the rest', async () => {
    const m = await service().merchant();
    const set = await service().post('/sandbox/processor/faults', { operation: 'authorize', fault: 'UNAVAILABLE', times: 2 }, { token: m.token });
    expect(set.status, JSON.stringify(set.body)).toBeLessThan(300);
    const references = Array.from({ length: 5 }, (_, i) => `batch-${m.merchant_id}-${i}`);
    const results = await Promise.allSettled(references.map((reference) => service().ctx.processor.authorize(authorization(m, reference))));
    const unavailable = references.filter((_, i) => results[i]?.status === 'rejected');
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason)).toEqual([expect.any(ProcessorUnavailableError), expect.any(ProcessorUnavailableError)]);
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => r.value.status)).toEqual(['APPROVED', 'APPROVED', 'APPROVED']);
    const db = service().ctx.db;
    const recorded = await db.selectFrom('sandbox_operations').select('reference').where('merchant_id', '=', m.merchant_id).execute();
    expect(recorded.map((r) => r.reference).sort()).toEqual(references.filter((reference) => !unavailable.includes(reference)).sort());
    const fault = await db.selectFrom('sandbox_faults').select('remaining').where('merchant_id', '=', m.merchant_id).executeTakeFirst();
    expect(fault?.remaining ?? 0).toBe(0);

    // A timeout comes after the processor acted: the operation is on record, its answer lost; the
    // same reference asked again at the same time answers what is on record, once.
    await service().post('/sandbox/processor/faults', { operation: 'authorize', fault: 'TIMEOUT', times: 1 }, { token: m.token });
    const again = await Promise.allSettled([service().ctx.processor.authorize(authorization(m, 'timeout-ref')), service().ctx.processor.authorize(authorization(m, 'timeout-ref'))]);
    expect(again.filter((r) => r.status === 'rejected')).toEqual([{ status: 'rejected', reason: expect.any(ProcessorTimeoutError) }]);
    expect(again.filter((r) => r.status === 'fulfilled')).toEqual([{ status: 'fulfilled', value: expect.objectContaining({ status: 'APPROVED' }) }]);
    const timedOut = await db.selectFrom('sandbox_operations').select('result').where('reference', '=', 'timeout-ref').execute();
    expect(timedOut).toHaveLength(1);
    expect(await service().ctx.processor.status(m.merchant_id, 'timeout-ref')).toEqual(timedOut[0]?.result);
  });

  it('settles a batch of answers of every outcome, skipping an operation no longer in flight and a second answer to one operation', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const db = service().ctx.db;
    const [paid, held, declined, stale] = await createPayments(db, [
      { ...pricedCardPayment(m, ids.personId, ids.cardId), start: 'hold' },
      { ...pricedCardPayment(m, ids.personId, ids.cardId), delayCapture: true, start: 'hold' },
      { ...pricedCardPayment(m, ids.personId, ids.cardId), start: 'hold' },
      { ...pricedCardPayment(m, ids.personId, ids.cardId), start: 'hold' },
    ]);
    if (!paid || !held || !declined || !stale) throw new Error('payments not stored');
    const paidOp = await operationWithoutJob(db, paid, 'authorize');
    const heldOp = await operationWithoutJob(db, held, 'authorize');
    const declinedOp = await operationWithoutJob(db, declined, 'authorize');
    const staleOp = await operationWithoutJob(db, stale, 'authorize');
    const now = new Date();
    const approved = (processorId: string) => ({ status: 'APPROVED' as const, processorId });
    // This operation was answered already: a second answer (as a job run again brings) writes nothing.
    await applyOutcomes(db, [{ ...staleOp, result: approved('sim_0'), at: now }]);
    const settledRows = await applyOutcomes(db, [
      { ...staleOp, result: { status: 'ERROR', code: '96', description: 'Processor system malfunction' }, at: now },
      { ...paidOp, result: approved('sim_1'), at: now },
      { ...heldOp, result: approved('sim_2'), at: now },
      { ...declinedOp, result: { status: 'DECLINED', code: '51', description: 'Insufficient funds' }, at: now },
      // A second answer to one operation in the same turn: the first settles it.
      { ...paidOp, result: { status: 'ERROR', code: '96', description: 'Processor system malfunction' }, at: now },
    ]);
    expect(settledRows.map((row) => row?.status)).toEqual([undefined, 'PAID', 'PRE_AUTHORIZED', 'DECLINED', undefined]);
    expect(settledRows[1]).toMatchObject({ captured_minor: paid.amount_minor, paid_at: now, failed_at: null, processor_id: 'sim_1' });
    expect(settledRows[2]).toMatchObject({ authorized_minor: held.amount_minor, captured_minor: 0n, pre_authorized_at: now, paid_at: null });
    expect(settledRows[3]).toMatchObject({ error_code: '51', failed_at: now, merchant_fees_minor: 0n, customer_fees_minor: 0n });
    const history = async (token: string) => (await db.selectFrom('payment_status_history').select('status').where('payment_token', '=', token).orderBy('position').execute()).map((h) => h.status);
    expect(await history(stale.payment_token)).toEqual(['CREATED', 'PROCESSING', 'PAID']);
    expect(await history(paid.payment_token)).toEqual(['CREATED', 'PROCESSING', 'PAID']);
    expect(await history(held.payment_token)).toEqual(['CREATED', 'PROCESSING', 'PRE_AUTHORIZED']);
    expect(await history(declined.payment_token)).toEqual(['CREATED', 'PROCESSING', 'DECLINED']);
    const operations = await db.selectFrom('payment_operations').select(['payment_token', 'status', 'processor_id', 'result_code']).where('merchant_id', '=', m.merchant_id).execute();
    const operationOf = (token: string) => operations.find((o) => o.payment_token === token);
    expect(operationOf(stale.payment_token)).toMatchObject({ status: 'APPROVED', processor_id: 'sim_0' });
    expect(operationOf(paid.payment_token)).toMatchObject({ status: 'APPROVED', processor_id: 'sim_1' });
    expect(operationOf(declined.payment_token)).toMatchObject({ status: 'DECLINED', result_code: '51' });
    const fees = async (token: string) => (await db.selectFrom('payment_fees').select('position').where('payment_token', '=', token).execute()).length;
    expect([await fees(paid.payment_token), await fees(declined.payment_token)]).toEqual([2, 0]);
    const ledger = await db.selectFrom('ledger_entries').select(['resource_id', 'amount_minor']).where('merchant_id', '=', m.merchant_id).execute();
    expect(new Set(ledger.map((l) => l.resource_id))).toEqual(new Set([stale.payment_token, paid.payment_token, held.payment_token]));
    expect(ledger.reduce((sum, l) => sum + l.amount_minor, 0n)).toBe(0n);
    const events = await db.selectFrom('events').select(['resource_id', 'data']).where('merchant_id', '=', m.merchant_id).execute();
    // PROCESSING (at insert) for the four, and one settlement event each.
    expect(events.filter((e) => (e.data as { status: string }).status !== 'PROCESSING').map((e) => (e.data as { status: string }).status).sort()).toEqual(['DECLINED', 'PAID', 'PAID', 'PRE_AUTHORIZED']);
    expect(events).toHaveLength(8);
  });

  it("settles as applyOutcomes does in the job's quiet form, answering only which answers moved a payment", async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const db = service().ctx.db;
    const [paid, declined] = await createPayments(db, [
      { ...pricedCardPayment(m, ids.personId, ids.cardId), start: 'hold' },
      { ...pricedCardPayment(m, ids.personId, ids.cardId), start: 'hold' },
    ]);
    if (!paid || !declined) throw new Error('payments not stored');
    const paidOp = await operationWithoutJob(db, paid, 'authorize');
    const declinedOp = await operationWithoutJob(db, declined, 'authorize');
    const now = new Date();
    const applied = await applyOutcomesQuietly(db, [
      { ...paidOp, result: { status: 'APPROVED', processorId: 'sim_q' }, at: now },
      { ...paidOp, result: { status: 'ERROR', code: '96', description: 'Processor system malfunction' }, at: now },
      { ...declinedOp, result: { status: 'DECLINED', code: '51', description: 'Insufficient funds' }, at: now },
    ]);
    expect(applied).toEqual([true, false, true]);
    // Run again (a job that runs twice): nothing moves.
    expect(await applyOutcomesQuietly(db, [{ ...paidOp, result: { status: 'APPROVED', processorId: 'sim_q' }, at: now }])).toEqual([false]);
    const rows = await db.selectFrom('payments').select(['payment_token', 'status', 'captured_minor', 'processor_id']).where('payment_token', 'in', [paid.payment_token, declined.payment_token]).execute();
    expect(rows.find((r) => r.payment_token === paid.payment_token)).toMatchObject({ status: 'PAID', captured_minor: paid.amount_minor, processor_id: 'sim_q' });
    expect(rows.find((r) => r.payment_token === declined.payment_token)?.status).toBe('DECLINED');
    const history = await db.selectFrom('payment_status_history').select('status').where('payment_token', '=', paid.payment_token).orderBy('position').execute();
    expect(history.map((h) => h.status)).toEqual(['CREATED', 'PROCESSING', 'PAID']);
    const ledger = await db.selectFrom('ledger_entries').select('amount_minor').where('resource_id', '=', paid.payment_token).execute();
    expect(ledger.length).toBeGreaterThan(0);
    expect(ledger.reduce((sum, l) => sum + l.amount_minor, 0n)).toBe(0n);
  });
});

describeEachEngine('a shared settlement statement', (service) => {
  it('writes all of its answers or none: an answer the database refuses undoes the others', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const db = service().ctx.db;
    const [a, b] = await createPayments(db, [
      { ...pricedCardPayment(m, ids.personId, ids.cardId), start: 'hold' },
      { ...pricedCardPayment(m, ids.personId, ids.cardId), delayCapture: true, start: 'hold' },
    ]);
    if (!a || !b) throw new Error('payments not stored');
    const now = new Date();
    await applyOutcomes(db, [{ ...(await operationWithoutJob(db, b, 'authorize')), result: { status: 'APPROVED', processorId: 'sim_0' }, at: now }]);
    await db.updateTable('payments').set({ status: 'PROCESSING' }).where('payment_token', '=', b.payment_token).execute();
    const [opA, opB] = [await operationWithoutJob(db, a, 'authorize'), await operationWithoutJob(db, b, 'capture', b.amount_minor * 2n)];
    const call = applyOutcomes(db, [
      { ...opA, result: { status: 'DECLINED', code: '51', description: 'Insufficient funds' }, at: now },
      // Captures more than it authorised: the payments table's check refuses it.
      { ...opB, result: { status: 'APPROVED', processorId: 'sim_1' }, at: now },
    ]);
    await expect(call).rejects.toThrow();
    const statuses = await db.selectFrom('payments').select('status').where('payment_token', 'in', [a.payment_token, b.payment_token]).execute();
    expect(statuses.map((p) => p.status)).toEqual(['PROCESSING', 'PROCESSING']);
    const history = await db.selectFrom('payment_status_history').select('status').where('payment_token', '=', a.payment_token).execute();
    expect(history.map((h) => h.status)).toEqual(['CREATED', 'PROCESSING']);
    expect(await db.selectFrom('payment_fees').select('position').where('payment_token', '=', a.payment_token).execute()).toHaveLength(2);
    const operations = await db.selectFrom('payment_operations').select('status').where('id', 'in', [opA.operation.id, opB.operation.id]).execute();
    expect(operations.map((o) => o.status)).toEqual(['REQUESTED', 'REQUESTED']);
  });
});

function authorization(m: TestMerchant, reference: string): AuthorizeInput {
  return {
    merchantId: m.merchant_id,
    reference,
    card: { number: '4111111111111111', expMonth: 12, expYear: 2035, holderName: 'MARIA SILVA', scheme: 'VISA' },
    amountMinor: 1000n,
    currency: 'BRL',
    installments: 1,
    capture: true,
  };
}
