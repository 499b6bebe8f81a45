import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';
import { settledCardPayment, waitForStatus } from './fixtures';

/**
 * Transaction details keeps each answer with the stamp of what it was built from
 * (payment-details/transaction-details.ts) and reads only the stamp while it is unchanged. These tests change
 * every part of a payment's answer, through the API and from outside the service (as another process
 * would), and check that the next read shows the change. A payment's fee lines and status history are
 * columns of its row (migration 0048), so the row's stamp covers them.
 */

/** A card payment with the given payment fields, settled. */
const paid = (service: TestService, m: TestMerchant, payment: Record<string, unknown> = {}) => settledCardPayment(service, m, { payment });

const details = async (service: TestService, m: TestMerchant, token: string) => {
  const response = await service.get(`/transactionDetails/${token}`, { token: m.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
};

/** This process's count of details answers from the given source, from /metrics. */
async function answered(service: TestService, source: 'kept' | 'built'): Promise<number> {
  const metrics = await service.get('/metrics', { headers: { authorization: `Bearer ${service.ctx.adminToken}` } });
  const line = metrics.text.split('\n').find((l: string) => l.startsWith(`colibri_transaction_details_answers_total{source="${source}"}`));
  return Number(line?.split(' ').at(-1) ?? 0);
}

describeEachEngine('transaction details kept per version', (service) => {
  it('shows every committed change on the next read, whoever wrote it', async () => {
    const m = await service().merchant();
    const { token, personId } = await paid(service(), m);
    const first = await details(service(), m, token);
    expect(await details(service(), m, token)).toEqual(first);
    const db = service().ctx.db;

    // Written from outside the service's paths, as another process or an operator would: the payment row,
    // its person and its card each show at once.
    await db.updateTable('payments').set({ reference_id: 'changed-elsewhere' }).where('payment_token', '=', token).execute();
    expect((await details(service(), m, token)).general_info.external_id).toBe('changed-elsewhere');
    await db.updateTable('persons').set({ name: 'Outra Pessoa' }).where('id', '=', personId).execute();
    expect((await details(service(), m, token)).customer_info.payer_name).toBe('Outra Pessoa');
    await sql`update cards set scheme = 'MASTERCARD' where id = (select card_id from payments where payment_token = ${token})`.execute(db);
    expect((await details(service(), m, token)).payment_info.card_scheme).toBe('MASTERCARD');

    // A refund request writes the refund alone (the payment row is unchanged until it completes).
    const refund = await service().post('/refund', { payment_token: token, amount: 30 }, { token: m.token });
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    const withRefund = await details(service(), m, token);
    expect(withRefund.refunds).toEqual([expect.objectContaining({ refund_id: refund.body.refund_id, amount: 30 })]);
    const done = await waitForStatus(service(), m, token, (status) => status === 'PARTIALLY_REFUNDED');
    expect(done.refunds).toEqual([expect.objectContaining({ refund_status: 'COMPLETED' })]);
    expect(done.payment_info.refunded_amount).toBe(30);
    await db.updateTable('refunds').set({ error_description: 'noted elsewhere' }).where('payment_token', '=', token).execute();
    expect((await details(service(), m, token)).refunds[0].error_description).toBe('noted elsewhere');
  });

  it('shows a dispute opened, and its flag gone once it closes, though the payment row never changed', async () => {
    const m = await service().merchant();
    const { token } = await paid(service(), m);
    expect((await details(service(), m, token)).other_info.dispute_id).toBeNull();
    const opened = await service().post(`/sandbox/payments/${token}/dispute`, {}, { token: m.token });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const disputed = await details(service(), m, token);
    expect(disputed.other_info.dispute_id).toBe(opened.body.dispute_id);
    expect(disputed.payment_info.flags).toEqual(['DISPUTED']);
    expect((await service().post(`/disputes/${opened.body.dispute_id}/accept`, {}, { token: m.token })).body.status).toBe('ACCEPTED');
    const closed = await details(service(), m, token);
    expect(closed.payment_info.flags).toEqual([]);
    expect(closed.other_info.dispute_id).toBe(opened.body.dispute_id);
  });

  it('answers a kept answer while its stamp is unchanged, and never to another merchant', async () => {
    const m = await service().merchant();
    const other = await service().merchant();
    const { token } = await paid(service(), m);
    await service().ctx.db.updateTable('payments').set({ reference_id: 'changed-once' }).where('payment_token', '=', token).execute();
    const [kept, built] = [await answered(service(), 'kept'), await answered(service(), 'built')];
    const first = await details(service(), m, token);
    expect(first.fee_info.fee.length).toBeGreaterThan(0);
    expect(await details(service(), m, token)).toEqual(first);
    // The first read built the answer (the payment had changed since the last); the second sent the kept one.
    expect([(await answered(service(), 'kept')) - kept, (await answered(service(), 'built')) - built]).toEqual([1, 1]);
    // Another merchant reads it as missing, kept or not; so does everyone for an unknown or malformed token.
    for (const [merchant, path] of [
      [other, `/transactionDetails/${token}`],
      [other, `/transactionDetails/${token.toUpperCase()}`],
      [m, `/transactionDetails/${crypto.randomUUID()}`],
      [m, '/transactionDetails/not-a-token'],
    ] as const) {
      const response = await service().get(path, { token: merchant.token });
      expect(response.status, path).toBe(404);
      expect(response.body.errors[0].code).toBe('00.05.0001');
    }
    // The same payment in capitals is the same payment.
    expect(await details(service(), m, token.toUpperCase())).toEqual(first);
  });
});
