import { expect, it } from 'vitest';
import { merchantBalances } from '../src/balance/balance';
import { assertBooksAgree } from './balance-fixtures';
import { describeEachEngine } from './harness';
import { settledCardPayment, waitForStatus } from './fixtures';

// The balance is its transactions: assertBooksAgree (balance-fixtures.ts) checks, after every kind of movement,
// that the nets of a merchant's transactions add up to its balance and to what the ledger owes it.

describeEachEngine('balance', (service) => {
  it('adds up after payments, refunds, dispute holds, fees, wins and losses', async () => {
    const m = await service().merchant();
    expect((await service().get('/balance', { token: m.token })).body.balances).toEqual([]);
    const { token } = await settledCardPayment(service(), m, { payment: { amount: '100.00' } });
    let [brl] = await assertBooksAgree(service(), m);
    // 100.00 less the default plan's 3.76 in fees.
    expect((brl!.available * 100 + brl!.pending * 100) / 100).toBeCloseTo(96.24);
    const listed = await service().get('/balance/transactions?type=PAYMENT', { token: m.token });
    expect(listed.body.content).toEqual([expect.objectContaining({ type: 'PAYMENT', source_id: token, amount: 100, fee: 3.76, net: 96.24, asset: 'BRL', reserved: false })]);
    expect(listed.body.content[0].available_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const refund = await service().post('/refund', { payment_token: token, amount: 10 }, { token: m.token });
    expect(refund.status).toBe(200);
    await waitForStatus(service(), m, token, (s) => s === 'PARTIALLY_REFUNDED');
    await assertBooksAgree(service(), m);

    const dispute = (await service().post(`/sandbox/payments/${token}/dispute`, { amount: 50 }, { token: m.token })).body;
    [brl] = await assertBooksAgree(service(), m);
    expect(brl!.reserved).toBe(50);
    const kinds = (await service().get('/balance/transactions?size=100', { token: m.token })).body.content.map((t: { type: string; net: number; reserved: boolean }) => [t.type, t.net, t.reserved]);
    expect(kinds).toEqual(expect.arrayContaining([['DISPUTE', -50, false], ['DISPUTE', 50, true], ['FEE', -15, false]]));
    await service().post(`/disputes/${dispute.dispute_id}/accept`, {}, { token: m.token });
    [brl] = await assertBooksAgree(service(), m);
    expect(brl!.reserved).toBe(0);

    const { token: second } = await settledCardPayment(service(), m, { payment: { amount: '20.00' } });
    const won = (await service().post(`/sandbox/payments/${second}/dispute`, {}, { token: m.token })).body;
    await service().post(`/disputes/${won.dispute_id}/evidence`, { uncategorized_text: 'Delivered' }, { token: m.token });
    await service().post(`/disputes/${won.dispute_id}/submit`, {}, { token: m.token });
    await service().post(`/sandbox/disputes/${won.dispute_id}/close`, { outcome: 'WON' }, { token: m.token });
    await assertBooksAgree(service(), m);
    expect((await service().get('/balance/transactions?type=DISPUTE_REVERSAL', { token: m.token })).body.content).toHaveLength(2);
  });

  it('counts a movement as pending until its day on the merchant clock, then available', async () => {
    const m = await service().merchant();
    await settledCardPayment(service(), m, { payment: { amount: '10.00' } });
    const [now] = await merchantBalances(service().ctx.db, m.merchant_id);
    const [before] = await merchantBalances(service().ctx.db, m.merchant_id, { today: () => '2000-01-01' });
    expect(before!.pending).toBe(now!.available + now!.pending);
    expect(before!.available).toBe(0n);
  });

  it("shows no other merchant's balance", async () => {
    const a = await service().merchant();
    const b = await service().merchant();
    await settledCardPayment(service(), a);
    expect((await service().get('/balance', { token: b.token })).body.balances).toEqual([]);
    expect((await service().get('/balance/transactions', { token: b.token })).body.totalElements).toBe(0);
  });
});
