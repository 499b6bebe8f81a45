import { expect, it } from 'vitest';
import { merchantBalances } from '../src/balance/balance';
import { upcomingAvailability } from '../src/balance/upcoming';
import { DEFAULT_FEE_PLAN } from '../src/fees/fee-plan';
import { PAYOUT_EXAMPLES } from '../src/payouts/validation/examples';
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

  it('adds up after a partial capture, and after payouts paid and rejected', async () => {
    const m = await service().merchant();
    const held = await settledCardPayment(service(), m, { payment: { amount: '80.00', delay_capture: true } });
    expect(held.details.general_info.transaction_status).toBe('PRE_AUTHORIZED');
    expect((await assertBooksAgree(service(), m)).filter((b) => b.asset === 'BRL')).toEqual([]);
    const captured = await service().post(`/checkout/${held.token}/capture`, { amount: 50 }, { token: m.token });
    expect(captured.status, JSON.stringify(captured.body)).toBe(200);
    await waitForStatus(service(), m, held.token, (s) => s === 'PAID');
    const [brl] = await assertBooksAgree(service(), m);
    const listed = await service().get('/balance/transactions?type=PAYMENT', { token: m.token });
    expect(listed.body.content).toEqual([expect.objectContaining({ source_id: held.token, amount: 50 })]);
    expect(Math.round((brl!.available + brl!.pending) * 100)).toBe(Math.round(listed.body.content[0].net * 100));

    // A Colombian payout the sandbox bank pays, and one it rejects (an account ending in 0000): the paid one
    // stays out of the balance, the rejected one comes back.
    const item = (reference: string, account: string) => {
      const copy = structuredClone(PAYOUT_EXAMPLES.find((e) => e.item.reference_id === 'co-cc-0001')!.item) as Record<string, unknown> & { required_CO: Record<string, unknown> };
      return { ...copy, contract_id: m.payout_contract_id, reference_id: reference, required_CO: { ...copy.required_CO, account_number: account } };
    };
    const sent = await service().post('/payoutTransaction', { payoutTransactions: [item('po-paid', '12345678901'), item('po-rejected', '12345670000')] }, { token: m.token });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const [paid, rejected] = sent.body.payoutTransactionResponses.map((p: { tx_id: string }) => p.tx_id);
    const final = async (txId: string) => {
      await expect.poll(async () => (await service().get(`/payoutTransaction/${txId}`, { token: m.token })).body.status).not.toMatch(/^(CREATED|PROCESSING)$/);
      return (await service().get(`/payoutTransaction/${txId}`, { token: m.token })).body.status;
    };
    expect(await final(paid)).toBe('PAID');
    expect(await final(rejected)).toBe('REJECTED');
    const [cop] = (await assertBooksAgree(service(), m)).filter((b) => b.asset === 'COP');
    const payouts = (await service().get('/balance/transactions?type=PAYOUT&size=100', { token: m.token })).body.content as { source_id: string; net: number }[];
    const net = (txId: string) => Math.round(payouts.filter((p) => p.source_id === txId).reduce((sum, p) => sum + p.net * 100, 0));
    expect(net(paid)).toBeLessThan(0);
    expect(net(rejected)).toBe(0);
    expect(Math.round((cop!.available + cop!.pending + cop!.reserved) * 100)).toBe(net(paid));
  });

  it('counts a movement as pending until its day on the merchant clock, then available', async () => {
    const m = await service().merchant();
    await settledCardPayment(service(), m, { payment: { amount: '10.00' } });
    const [now] = await merchantBalances(service().ctx.db, m.merchant_id);
    const [before] = await merchantBalances(service().ctx.db, m.merchant_id, { today: () => '2000-01-01' });
    expect(before!.pending).toBe(now!.available + now!.pending);
    expect(before!.available).toBe(0n);
  });

  it('makes a credit card in installments available one part every 30 days, and holds a rolling reserve', async () => {
    const m = await service().merchant();
    const plan = { ...DEFAULT_FEE_PLAN, availability: { reserve_ppm: 100_000, reserve_days: 90 } };
    const set = await service().request('PUT', `/admin/merchants/${m.merchant_id}/fee-plan`, plan, { headers: { authorization: `Bearer ${service().ctx.adminToken}` } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const { token, details } = await settledCardPayment(service(), m, { payment: { amount: '300.00', installments: 3 } });
    expect(details.general_info.transaction_status).toBe('PAID');
    const parts = (await service().get('/balance/transactions?type=PAYMENT&size=100', { token: m.token })).body.content as { source_id: string; net: number; fee: number; amount: number; reserved: boolean; available_on: string }[];
    expect(parts.every((p) => p.source_id === token)).toBe(true);
    const sum = (list: typeof parts, field: 'net' | 'fee' | 'amount') => Math.round(list.reduce((t, p) => t + p[field] * 100, 0));
    // 300.00 less the default fees (2.99% + 0.39 and 0.38%): 10.50; 10% of each part's net held for 90 days.
    expect(sum(parts, 'amount')).toBe(30000);
    expect(sum(parts, 'fee')).toBe(1050);
    expect(sum(parts, 'net')).toBe(28950);
    const main = parts.filter((p) => !p.reserved).sort((a, b) => a.available_on.localeCompare(b.available_on));
    const reserve = parts.filter((p) => p.reserved);
    expect(main).toHaveLength(3);
    expect(reserve).toHaveLength(3);
    expect(sum(reserve, 'net')).toBe(2895);
    const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;
    const gaps = main.slice(1).map((p, i) => day(p.available_on) - day(main[i]!.available_on));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(27);
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(33);
    const [brl] = await assertBooksAgree(service(), m);
    expect(brl).toMatchObject({ available: 0, pending: 260.55, reserved: 28.95 });
    // By day: the parts due within 60 days, the others and every reserve (90 days on) later; together the
    // pending and reserved.
    const [upcoming] = await upcomingAvailability(service().ctx.db, m.merchant_id, 60);
    const soon = main.filter((p) => p.available_on <= upcoming!.until);
    expect(soon.length).toBeGreaterThanOrEqual(1);
    expect(soon.length).toBeLessThanOrEqual(2);
    expect(upcoming!.days.map((d) => d.day)).toEqual(soon.map((p) => p.available_on));
    expect(upcoming!.later.pending).toBe(BigInt(Math.round(main.slice(soon.length).reduce((t, p) => t + p.net * 100, 0))));
    const inDays = (part: 'pending' | 'reserved') => upcoming!.days.reduce((t, d) => t + d[part], 0n) + upcoming!.later[part];
    expect([inDays('pending'), inDays('reserved'), upcoming!.held]).toEqual([26_055n, 2_895n, 0n]);
    expect(upcoming!.days[0]!.pending).toBe(BigInt(Math.round(main[0]!.net * 100)));
    // 200 days on, every part and every reserve is available.
    await service().post('/sandbox/clock/advance', { seconds: 200 * 86_400 }, { token: m.token });
    const [later] = await assertBooksAgree(service(), m);
    expect(later).toMatchObject({ available: 289.5, pending: 0, reserved: 0 });
  });

  it("shows no other merchant's balance", async () => {
    const a = await service().merchant();
    const b = await service().merchant();
    await settledCardPayment(service(), a);
    expect((await service().get('/balance', { token: b.token })).body.balances).toEqual([]);
    expect((await service().get('/balance/transactions', { token: b.token })).body.totalElements).toBe(0);
  });
});
