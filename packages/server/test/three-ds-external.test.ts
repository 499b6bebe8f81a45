import { randomBytes, randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { customerWithCard, paymentBody, settled, waitForStatus } from './fixtures';
import { describeEachEngine, type TestMerchant } from './harness';

/**
 * 3DS data from a merchant's own 3DS server (not Colibri's): accepted when well formed, once per
 * merchant, and answered in sandbox by its ECI as an acquirer would (docs/3ds.md), on both engines.
 */
const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';
const cavv = () => randomBytes(20).toString('base64');
const external = (eci: string, overrides: Record<string, string> = {}) => ({ cavv: cavv(), eci, version: '2.2.0', dstrans_id: randomUUID(), ...overrides });

describeEachEngine('3DS data of another 3DS server', (service) => {
  const debit = async (m: TestMerchant, number: string, authentication: Record<string, string>, ids?: { personId: string; cardId: string }) => {
    const card = ids ?? (await customerWithCard(service(), m, number));
    return service().post('/checkout/sendPayment', paymentBody(m, card, { payment: { method: 'DEBITCARD' }, authentication }), { token: m.token });
  };
  const outcome = async (m: TestMerchant, number: string, authentication: Record<string, string>) => {
    const sent = await debit(m, number, authentication);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    return waitForStatus(service(), m, sent.body.payment_token, settled);
  };

  it('answers each ECI as an acquirer would: authenticated and attempted are paid, not authenticated is refused', async () => {
    const m = await service().merchant();
    const full = await outcome(m, VISA, external('05'));
    expect(full.general_info.transaction_status).toBe('PAID');
    expect(full.other_info.three_ds).toMatchObject({ eci: '05', version: '2.2.0', outcome: 'AUTHENTICATED', liability_shift: true });

    const attempted = await outcome(m, VISA, external('06', { version: '2.1.0' }));
    expect(attempted.general_info.transaction_status).toBe('PAID');
    expect(attempted.other_info.three_ds).toEqual({ eci: '06', version: '2.1.0', outcome: 'ATTEMPTED', liability_shift: false, note: expect.stringMatching(/attempted/i) });

    const none = await outcome(m, VISA, external('07', { version: '2.3.1' }));
    expect(none.general_info.transaction_status).toBe('DECLINED');
    expect(none.payment_info.error_code).toBe('NOT_AUTHENTICATED');
    expect(none.other_info.three_ds).toMatchObject({ outcome: 'NOT_AUTHENTICATED', liability_shift: false });

    // Mastercard's own values: 02, 01, 00.
    expect((await outcome(m, MASTERCARD, external('02'))).general_info.transaction_status).toBe('PAID');
    expect((await outcome(m, MASTERCARD, external('01'))).other_info.three_ds.outcome).toBe('ATTEMPTED');
    expect((await outcome(m, MASTERCARD, external('00'))).payment_info.error_code).toBe('NOT_AUTHENTICATED');

    // Fully authenticated data leaves the card's own outcome: this test card has no funds.
    const poor = await outcome(m, '4000000000000002', external('05'));
    expect([poor.general_info.transaction_status, poor.payment_info.error_code]).toEqual(['DECLINED', '51']);
  });

  it('refuses each malformed field with 400 00.04.0015 naming it, and stores nothing', async () => {
    const m = await service().merchant();
    const visa = await customerWithCard(service(), m, VISA);
    const master = await customerWithCard(service(), m, MASTERCARD);
    const cases: [Record<string, string>, string, { personId: string; cardId: string }][] = [
      [external('05', { dstrans_id: 'not-a-uuid' }), 'dstrans_id', visa],
      [external('05', { version: '1.0.2' }), 'version', visa],
      [external('05', { version: '2.2' }), 'version', visa],
      [external('02'), 'eci', visa],
      [external('08'), 'eci', visa],
      [external('05'), 'eci', master],
      [external('05', { cavv: 'AAAB' }), 'cavv', visa],
      [external('05', { cavv: randomBytes(21).toString('base64') }), 'cavv', visa],
      [external('05', { cavv: 'not base64 at all, 28 chars=' }), 'cavv', visa],
    ];
    for (const [authentication, field, ids] of cases) {
      const response = await debit(m, '', authentication, ids);
      expect(response.status, JSON.stringify(authentication)).toBe(400);
      expect(response.body.errors, JSON.stringify(authentication)).toEqual([{ code: '00.04.0015', description: expect.stringMatching(new RegExp(`^authentication\\.${field}: `)) }]);
    }
    const db = service().ctx.db;
    expect(await db.selectFrom('payments').select('payment_token').where('merchant_id', '=', m.merchant_id).execute()).toEqual([]);
    expect(await db.selectFrom('external_authentications').selectAll().where('merchant_id', '=', m.merchant_id).execute()).toEqual([]);
  });

  it('lets one authentication pay once per merchant', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m, VISA);
    const data = external('05');
    expect((await debit(m, VISA, data, ids)).status).toBe(200);
    const reused = await debit(m, VISA, data, ids);
    expect(reused.status).toBe(400);
    expect(reused.body.errors).toEqual([{ code: '00.04.0016', description: expect.stringMatching(/^authentication\.dstrans_id: /) }]);
    // Written in upper case it is the same authentication.
    expect((await debit(m, VISA, { ...data, dstrans_id: data.dstrans_id.toUpperCase() }, ids)).body.errors?.[0]?.code).toBe('00.04.0016');
    // Two racing payments with one new authentication: one pays.
    const racing = external('05');
    const answers = await Promise.all([debit(m, VISA, racing, ids), debit(m, VISA, racing, ids)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    // Another merchant's 3DS server may have its own transaction with that id: it is that merchant's once.
    const other = await service().merchant('Other shop');
    expect((await debit(other, VISA, data)).status).toBe(200);
  });
});
