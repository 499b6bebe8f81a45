import { expect, it } from 'vitest';
import { recordDisputeNotice, type DisputeNotice } from '../src/connectors/dispute-notices';
import { balances } from '../src/ledger/ledger';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';
import { settledCardPayment, waitForStatus } from './fixtures';

const DAY = 86_400;
const DISPUTE_CARD = '4000000000000259';

/** A paid card payment of `amount`: its token. */
async function paid(service: TestService, m: TestMerchant, amount = '100.00', number?: string): Promise<string> {
  const { token, details } = await settledCardPayment(service, m, { payment: { amount } }, number);
  expect(details.general_info.transaction_status).toBe('PAID');
  return token;
}

/** Opens a sandbox dispute on a payment (the sandbox control). */
async function dispute(service: TestService, m: TestMerchant, token: string, body: Record<string, unknown> = {}) {
  const response = await service.post(`/sandbox/payments/${token}/dispute`, body, { token: m.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** The merchant's dispute events' data, in the order recorded. */
async function disputeEvents(service: TestService, m: TestMerchant) {
  const rows = await service.ctx.db.selectFrom('events').select(['data', 'resource_id']).where('merchant_id', '=', m.merchant_id).where('type', '=', 'dispute.status_changed').orderBy('sequence').execute();
  return rows.map((r) => r.data as { dispute_id: string; status: string; sequence: number; reminder?: string });
}

/** The ledger's accounts of a merchant, as numbers of minor units; the whole ledger must balance. */
async function books(service: TestService, m: TestMerchant) {
  const b = await balances(service.ctx.db, m.merchant_id);
  const sum = Object.values(b).reduce((t, v) => t + (v ?? 0n), 0n);
  expect(sum, 'the journal balances').toBe(0n);
  return b;
}

describeEachEngine('disputes', (service) => {
  it('the dispute test card is paid, then disputed for its full amount a day later on the merchant clock', async () => {
    const m = await service().merchant();
    const token = await paid(service(), m, '80.00', DISPUTE_CARD);
    await service().background.sweep();
    expect((await service().get('/disputes', { token: m.token })).body.totalElements).toBe(0);
    await service().post('/sandbox/clock/advance', { seconds: DAY }, { token: m.token });
    const list = await service().get('/disputes', { token: m.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ totalElements: 1, totalPages: 1, number: 0, first: true, last: true, empty: false });
    const [item] = list.body.content;
    expect(item).toMatchObject({ payment_token: token, status: 'NEEDS_RESPONSE', reason_code: '10.4', reason_category: 'FRAUD', stage: 'CHARGEBACK', amount: 80, asset: 'BRL', fee: 15 });
    expect(item.evidence_due_by).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const read = await service().get(`/disputes/${item.dispute_id}`, { token: m.token });
    expect(read.status).toBe(200);
    expect(Object.keys(read.body)).toEqual(expect.arrayContaining(['dispute_id', 'payment_token', 'reference_id', 'status', 'reason_code', 'reason_category', 'stage', 'amount', 'asset', 'evidence_due_by', 'created_at', 'evidence', 'refresh_token']));
    const details = await waitForStatus(service(), m, token, (s) => s === 'PAID');
    expect(details.other_info.dispute_id).toBe(item.dispute_id);
    expect(details.payment_info.flags).toEqual(['DISPUTED']);
    expect(read.body.reference_id).toBe(details.general_info.external_id);
  });

  it('won: the chargeback holds amount and fee, the win gives the amount back, the fee stays; the books balance', async () => {
    const m = await service().merchant();
    const token = await paid(service(), m);
    const before = await books(service(), m);
    const opened = await dispute(service(), m, token);
    const held = await books(service(), m);
    expect(held.disputes_held).toBe(-10000n);
    expect((held.merchant_payable ?? 0n) - (before.merchant_payable ?? 0n)).toBe(11500n);
    const evidence = await service().post(`/disputes/${opened.dispute_id}/evidence`, { product_description: 'A blue kite', shipping_carrier: 'Correios' }, { token: m.token });
    expect(evidence.status, JSON.stringify(evidence.body)).toBe(200);
    expect(evidence.body.evidence).toMatchObject({ product_description: 'A blue kite', shipping_carrier: 'Correios', customer_communication: null, files: [] });
    const submitted = await service().post(`/disputes/${opened.dispute_id}/submit`, {}, { token: m.token });
    expect(submitted.body).toMatchObject({ status: 'UNDER_REVIEW' });
    expect(submitted.body.submitted_at).not.toBeNull();
    const late = await service().post(`/disputes/${opened.dispute_id}/evidence`, { uncategorized_text: 'more' }, { token: m.token });
    expect(late.status).toBe(409);
    expect(late.body.errors[0].code).toBe('09.02.0001');
    const won = await service().post(`/sandbox/disputes/${opened.dispute_id}/close`, { outcome: 'WON' }, { token: m.token });
    expect(won.body).toMatchObject({ status: 'WON' });
    const after = await books(service(), m);
    expect(after.disputes_held).toBe(0n);
    expect((after.merchant_payable ?? 0n) - (before.merchant_payable ?? 0n)).toBe(1500n);
    const details = await waitForStatus(service(), m, token, (s) => s === 'PAID');
    expect(details.payment_info.flags).toEqual([]);
    expect(details.other_info.dispute_id).toBe(opened.dispute_id);
    expect((await disputeEvents(service(), m)).map((e) => e.status)).toEqual(['NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON']);
  });

  it('lost and accepted: the held amount goes to the processor; an inquiry moves no money', async () => {
    const m = await service().merchant();
    const before = await books(service(), m);
    const lostOne = await dispute(service(), m, await paid(service(), m, '50.00'));
    await service().post(`/disputes/${lostOne.dispute_id}/evidence`, { uncategorized_text: 'Delivered on time.' }, { token: m.token });
    await service().post(`/disputes/${lostOne.dispute_id}/submit`, {}, { token: m.token });
    expect((await service().post(`/sandbox/disputes/${lostOne.dispute_id}/close`, { outcome: 'LOST' }, { token: m.token })).body.status).toBe('LOST');
    const accepted = await service().post(`/disputes/${(await dispute(service(), m, await paid(service(), m, '20.00'))).dispute_id}/accept`, {}, { token: m.token });
    expect(accepted.body).toMatchObject({ status: 'ACCEPTED' });
    expect(accepted.body.accepted_at).not.toBeNull();
    const inquiry = await dispute(service(), m, await paid(service(), m, '30.00'), { stage: 'INQUIRY' });
    expect(inquiry).toMatchObject({ stage: 'INQUIRY', fee: 0 });
    const after = await books(service(), m);
    expect(after.disputes_held).toBe(0n);
    // The processor took back 50 + 20 (and the fees stay with Colibri): what it owes fell by 70.
    const captured = 50_00n + 20_00n + 30_00n;
    expect((after.processor_receivable ?? 0n) - (before.processor_receivable ?? 0n)).toBe(captured - 70_00n);
  });

  it('a dispute still NEEDS_RESPONSE at its deadline becomes LOST by the clock, warned 48 hours before', async () => {
    const m = await service().merchant();
    const opened = await dispute(service(), m, await paid(service(), m));
    await service().post('/sandbox/clock/advance', { seconds: 4 * DAY }, { token: m.token });
    expect((await disputeEvents(service(), m)).map((e) => [e.status, e.reminder ?? null])).toEqual([['NEEDS_RESPONSE', null]]);
    await service().post('/sandbox/clock/advance', { seconds: 2 * DAY }, { token: m.token });
    expect((await disputeEvents(service(), m)).map((e) => [e.status, e.reminder ?? null])).toEqual([['NEEDS_RESPONSE', null], ['NEEDS_RESPONSE', 'EVIDENCE_DUE_SOON']]);
    await service().post('/sandbox/clock/advance', { seconds: DAY + 1 }, { token: m.token });
    const read = await service().get(`/disputes/${opened.dispute_id}`, { token: m.token });
    expect(read.body).toMatchObject({ status: 'LOST' });
    expect(read.body.lost_at).not.toBeNull();
    expect((await books(service(), m)).disputes_held).toBe(0n);
    const events = await disputeEvents(service(), m);
    expect(events.map((e) => e.status)).toEqual(['NEEDS_RESPONSE', 'NEEDS_RESPONSE', 'LOST']);
    expect(events.map((e) => e.sequence)).toEqual([...events.map((e) => e.sequence)].sort((a, b) => a - b));
  });

  it('a partial dispute on a partially refunded payment; a refund of the disputed amount is refused', async () => {
    const m = await service().merchant();
    const token = await paid(service(), m);
    const refund = await service().post('/refund', { payment_token: token, amount: 30 }, { token: m.token });
    expect(refund.status).toBe(200);
    await waitForStatus(service(), m, token, (s) => s === 'PARTIALLY_REFUNDED');
    const tooMuch = await service().post(`/sandbox/payments/${token}/dispute`, { amount: 70.01 }, { token: m.token });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.errors[0].code).toBe('09.03.0001');
    const opened = await dispute(service(), m, token, { amount: 50 });
    expect(opened).toMatchObject({ amount: 50 });
    const refused = await service().post('/refund', { payment_token: token, amount: 25 }, { token: m.token });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ code: '01.05.0041', description: 'amount: 50.00 of the payment is held by a dispute; at most 20.00 can be refunded.' }]);
    const allowed = await service().post('/refund', { payment_token: token, amount: 20 }, { token: m.token });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
  });

  it("another merchant's dispute is not found, nor can it be answered", async () => {
    const owner = await service().merchant();
    const other = await service().merchant();
    const opened = await dispute(service(), owner, await paid(service(), owner));
    for (const [method, path, body] of [
      ['GET', `/disputes/${opened.dispute_id}`, undefined],
      ['POST', `/disputes/${opened.dispute_id}/evidence`, { uncategorized_text: 'x' }],
      ['POST', `/disputes/${opened.dispute_id}/submit`, {}],
      ['POST', `/disputes/${opened.dispute_id}/accept`, {}],
      ['POST', `/sandbox/disputes/${opened.dispute_id}/close`, { outcome: 'WON' }],
    ] as const) {
      const response = await service().request(method, path, body, { token: other.token });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.errors[0].code).toBe('09.01.0001');
    }
    expect((await service().get('/disputes', { token: other.token })).body.totalElements).toBe(0);
    expect((await service().get('/disputes/not-a-uuid', { token: owner.token })).status).toBe(404);
  });
});

describeEachEngine('dispute notices from processors', (service) => {
  /** Keeps a processor's notice as a connector does, and waits until the disputes domain applied it. */
  async function notice(m: TestMerchant, token: string, fields: Partial<DisputeNotice> & Pick<DisputeNotice, 'noticeKey' | 'kind' | 'stage' | 'occurredAt'>) {
    const kept = await service().ctx.db.transaction().execute((trx) =>
      recordDisputeNotice(trx, {
        processor: 'adyen',
        merchantId: m.merchant_id,
        processorReference: `psp-${token.slice(0, 8)}`,
        paymentToken: token,
        amountMinor: 10000n,
        currency: 'BRL',
        reasonCode: '4837',
        reasonCategory: 'FRAUD',
        evidenceDueBy: new Date(Date.now() + 10 * DAY * 1000),
        ...fields,
      }),
    );
    service().ctx.workerSignal.poke();
    const deadline = Date.now() + 10_000;
    while ((await service().ctx.db.selectFrom('dispute_notices').select('applied_at').where('merchant_id', '=', m.merchant_id).where('applied_at', 'is', null).execute()).length > 0) {
      if (Date.now() > deadline) throw new Error('notices not applied');
      await new Promise((r) => setTimeout(r, 25));
    }
    return kept;
  }
  const disputesOf = (m: TestMerchant) => service().ctx.db.selectFrom('disputes').selectAll().where('merchant_id', '=', m.merchant_id).orderBy('created_at').execute();
  const at = (hours: number) => new Date(Date.UTC(2026, 10, 1) + hours * 3_600_000);

  it('applies a decision that arrives before the chargeback, once; the late chargeback changes nothing', async () => {
    const m = await service().merchant();
    const token = await paid(service(), m);
    const before = await books(service(), m);
    await notice(m, token, { noticeKey: 'k-won', kind: 'WON', stage: 'CHARGEBACK', occurredAt: at(5) });
    expect(await notice(m, token, { noticeKey: 'k-won', kind: 'WON', stage: 'CHARGEBACK', occurredAt: at(5) })).toBe(false);
    await notice(m, token, { noticeKey: 'k-cb', kind: 'OPENED', stage: 'CHARGEBACK', occurredAt: at(1) });
    const [only, ...rest] = await disputesOf(m);
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ status: 'WON', held_minor: 0n, fee_minor: 1500n });
    const after = await books(service(), m);
    expect(after.disputes_held ?? 0n).toBe(0n);
    expect((after.merchant_payable ?? 0n) - (before.merchant_payable ?? 0n)).toBe(1500n);
    const outcomes = await service().ctx.db.selectFrom('dispute_notices').select(['notice_key', 'outcome']).where('merchant_id', '=', m.merchant_id).orderBy('received_at').execute();
    expect(outcomes.map((o) => o.outcome)).toEqual([`${only!.dispute_id} WON`, `ignored: ${only!.dispute_id} is WON`]);
  });

  it('takes an inquiry to a chargeback (money held once), then a second round after it was won', async () => {
    const m = await service().merchant();
    const token = await paid(service(), m);
    await notice(m, token, { noticeKey: 'rfi', kind: 'OPENED', stage: 'INQUIRY', occurredAt: at(1) });
    let [first] = await disputesOf(m);
    expect(first).toMatchObject({ stage: 'INQUIRY', held_minor: 0n, fee_minor: 0n, status: 'NEEDS_RESPONSE' });
    await service().post(`/disputes/${first!.dispute_id}/evidence`, { uncategorized_text: 'Order shipped' }, { token: m.token });
    await notice(m, token, { noticeKey: 'cb', kind: 'OPENED', stage: 'CHARGEBACK', occurredAt: at(2) });
    await notice(m, token, { noticeKey: 'cb-again', kind: 'OPENED', stage: 'CHARGEBACK', occurredAt: at(3) });
    [first] = await disputesOf(m);
    expect(first).toMatchObject({ stage: 'CHARGEBACK', held_minor: 10000n, fee_minor: 1500n, status: 'NEEDS_RESPONSE' });
    expect((await books(service(), m)).disputes_held).toBe(-10000n);
    await notice(m, token, { noticeKey: 'reversed', kind: 'WON', stage: 'CHARGEBACK', occurredAt: at(4) });
    await notice(m, token, { noticeKey: 'second', kind: 'OPENED', stage: 'SECOND_CHARGEBACK', occurredAt: at(5) });
    const rounds = await disputesOf(m);
    expect(rounds.map((d) => [d.stage, d.status, d.processor_reference])).toEqual([
      ['CHARGEBACK', 'WON', `psp-${token.slice(0, 8)}`],
      ['SECOND_CHARGEBACK', 'NEEDS_RESPONSE', `psp-${token.slice(0, 8)}#SECOND_CHARGEBACK`],
    ]);
    await notice(m, token, { noticeKey: 'ended', kind: 'DEFENSE_PERIOD_ENDED', stage: 'SECOND_CHARGEBACK', occurredAt: at(6) });
    expect((await disputesOf(m))[1]).toMatchObject({ status: 'LOST', held_minor: 0n, fee_minor: 1500n });
    expect((await books(service(), m)).disputes_held ?? 0n).toBe(0n);
    // Events of each dispute in the order of its moves.
    const events = await disputeEvents(service(), m);
    expect(events.filter((e) => e.dispute_id === rounds[0]!.dispute_id).map((e) => e.status)).toEqual(['NEEDS_RESPONSE', 'NEEDS_RESPONSE', 'WON']);
    expect(events.filter((e) => e.dispute_id === rounds[1]!.dispute_id).map((e) => e.status)).toEqual(['NEEDS_RESPONSE', 'LOST']);
  });

  it('refuses a notice for more than can be disputed, keeping why', async () => {
    const m = await service().merchant();
    const token = await paid(service(), m, '50.00');
    await notice(m, token, { noticeKey: 'big', kind: 'OPENED', stage: 'CHARGEBACK', occurredAt: at(1), amountMinor: 5001n });
    expect(await disputesOf(m)).toEqual([]);
    const [kept] = await service().ctx.db.selectFrom('dispute_notices').select('outcome').where('merchant_id', '=', m.merchant_id).execute();
    expect(kept!.outcome).toMatch(/^refused: .*50\.00 BRL that can still be disputed/);
  });
});
