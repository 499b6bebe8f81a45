import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Db } from '../src/db/database';
import { IllegalMoveError } from '../src/lib/state-machine';
import { changeThreeDsStatus, releaseThreeDsClaim, type ThreeDsRow } from '../src/three-ds/change-status';
import type { ThreeDsStatus } from '../src/three-ds/states';
import { claimAuthentication } from '../src/three-ds/verify-authentication';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';
import { authRequest, CARDS, payBody } from './three-ds-fixtures';

/**
 * The 3DS authentication's status changes (three-ds/change-status.ts) on both engines: every write of a
 * status goes through changeThreeDsStatus, which checks the move against THREE_DS_STATES before it
 * writes, stamps the target's time and lets only one of two racing requests move a row; a claim whose
 * payment was not stored is undone by releaseThreeDsClaim, and only that claim.
 */

const CREATED_AT = new Date('2026-03-04T05:06:07.000Z');
const LATER = new Date('2026-03-04T05:08:09.123Z');

/** A stored authentication in `status`, with only what the status changes read and write. */
async function stored(service: TestService, merchant: TestMerchant, status: ThreeDsStatus, columns: Partial<ThreeDsRow> = {}): Promise<ThreeDsRow> {
  return service.ctx.db
    .insertInto('three_ds_authentications')
    .values({
      merchant_id: merchant.merchant_id,
      payment_token: randomUUID(),
      status,
      env: 'SANDBOX',
      merchant_origin: null,
      reference_id: `order-${randomUUID()}`,
      notification_url: 'https://shop.example/callbacks/3ds',
      method: 'CREDITCARD',
      installments: 1,
      amount_minor: 15050n,
      currency: 'BRL',
      person_id: null,
      card_id: null,
      eci: null,
      version: null,
      dstrans_id: randomUUID(),
      cavv_ciphertext: null,
      cavv_key_id: null,
      error_code: null,
      error_description: null,
      created_at: CREATED_AT,
      updated_at: CREATED_AT,
      authenticated_at: null,
      used_at: null,
      challenge_failed_at: null,
      ...columns,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

async function reread(service: TestService, id: string): Promise<ThreeDsRow> {
  return service.ctx.db.selectFrom('three_ds_authentications').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** A handle that fails the test if the change touches the database at all. */
const untouchable = new Proxy({} as Db, {
  get: (_target, property) => {
    throw new Error(`the database was used (${String(property)}) for a move the table refuses`);
  },
});

describeEachEngine('3DS authentication status changes', (service) => {
  it('fails a challenge: CHALLENGE_FAILED with its own time and the error, in one guarded update', async () => {
    const m = await service().merchant();
    const row = await stored(service(), m, 'CHALLENGE_PENDING');
    const failed = await changeThreeDsStatus(service().ctx.db, row, 'CHALLENGE_FAILED', LATER, { error_code: 'CHALLENGE_FAILED', error_description: 'The customer did not pass the challenge.' });
    expect(failed).toMatchObject({
      status: 'CHALLENGE_FAILED',
      challenge_failed_at: LATER,
      updated_at: LATER,
      authenticated_at: null,
      used_at: null,
      error_code: 'CHALLENGE_FAILED',
      created_at: CREATED_AT,
    });
    expect(await reread(service(), row.id)).toEqual(failed);
  });

  it('authenticates a challenge with authenticated_at and the authentication value, then claims it with used_at', async () => {
    const m = await service().merchant();
    const row = await stored(service(), m, 'CHALLENGE_PENDING');
    const authenticated = await changeThreeDsStatus(service().ctx.db, row, 'AUTHENTICATED', LATER, { eci: '05', version: '2.2.0', cavv_ciphertext: 'sealed', cavv_key_id: 'k1' });
    expect(authenticated).toMatchObject({ status: 'AUTHENTICATED', authenticated_at: LATER, updated_at: LATER, eci: '05', version: '2.2.0', cavv_ciphertext: 'sealed', challenge_failed_at: null });
    const usedAt = new Date(LATER.getTime() + 1000);
    const used = await changeThreeDsStatus(service().ctx.db, authenticated, 'USED', usedAt, { cavv_ciphertext: null, cavv_key_id: null });
    expect(used).toMatchObject({ status: 'USED', authenticated_at: LATER, used_at: usedAt, updated_at: usedAt, cavv_ciphertext: null, cavv_key_id: null });
  });

  it('refuses a move the table does not list with IllegalMoveError before anything is written', async () => {
    const m = await service().merchant();
    const refusals: [ThreeDsStatus, ThreeDsStatus, string][] = [
      ['AUTHENTICATED', 'CHALLENGE_FAILED', 'status: the 3DS authentication is AUTHENTICATED; it can become CHALLENGE_FAILED only from CHALLENGE_PENDING.'],
      ['CHALLENGE_PENDING', 'USED', 'status: the 3DS authentication is CHALLENGE_PENDING; it can become USED only from AUTHENTICATED.'],
      ['USED', 'AUTHENTICATED', 'status: the 3DS authentication is USED; it can become AUTHENTICATED only from CHALLENGE_PENDING.'],
      ['UNENROLLED', 'USED', 'status: the 3DS authentication is UNENROLLED; it can become USED only from AUTHENTICATED.'],
      ['CHALLENGE_PENDING', 'ERROR', 'status: the 3DS authentication is CHALLENGE_PENDING; no 3DS authentication becomes ERROR by a move.'],
    ];
    for (const [from, to, description] of refusals) {
      const row = await stored(service(), m, from);
      // No statement at all: the handle throws if it is used.
      const error = await changeThreeDsStatus(untouchable, row, to, LATER).catch((e: unknown) => e);
      expect(error, `${from}→${to}`).toBeInstanceOf(IllegalMoveError);
      expect((error as IllegalMoveError).items).toEqual([{ code: '00.10.0001', description }]);
      await expect(changeThreeDsStatus(service().ctx.db, row, to, LATER)).rejects.toBeInstanceOf(IllegalMoveError);
      expect(await reread(service(), row.id)).toEqual(row);
    }
  });

  it('lets one of two requests that read the same status move the row; the guard refuses the other', async () => {
    const m = await service().merchant();
    const row = await stored(service(), m, 'AUTHENTICATED', { authenticated_at: CREATED_AT });
    const times = [new Date(LATER.getTime() + 1), new Date(LATER.getTime() + 2)];
    const outcomes = await Promise.allSettled(times.map((at) => changeThreeDsStatus(service().ctx.db, row, 'USED', at)));
    const won = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const lost = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    expect([won.length, lost.length]).toEqual([1, 1]);
    expect(lost[0]).toBeInstanceOf(IllegalMoveError);
    expect((lost[0] as IllegalMoveError).items[0]?.description).toBe('status: the 3DS authentication is no longer AUTHENTICATED; it can become USED only from AUTHENTICATED.');
    // The row is the winner's: its time, written once.
    expect(await reread(service(), row.id)).toEqual(won[0]);

    // A stale read the other way: answered AUTHENTICATED meanwhile, a late CHALLENGE_FAILED changes nothing.
    const pending = await stored(service(), m, 'CHALLENGE_PENDING');
    const answered = await changeThreeDsStatus(service().ctx.db, pending, 'AUTHENTICATED', LATER);
    await expect(changeThreeDsStatus(service().ctx.db, pending, 'CHALLENGE_FAILED', LATER)).rejects.toThrow(/no longer CHALLENGE_PENDING/);
    expect(await reread(service(), pending.id)).toEqual(answered);
  });

  it('releases a claim whose payment was not stored: the row as it was before the claim, and that claim only', async () => {
    const m = await service().merchant();
    const before = await stored(service(), m, 'AUTHENTICATED', { authenticated_at: CREATED_AT, eci: '05', version: '2.2.0', cavv_ciphertext: 'sealed', cavv_key_id: 'k1' });
    await changeThreeDsStatus(service().ctx.db, before, 'USED', LATER, { cavv_ciphertext: null, cavv_key_id: null });
    // Another claim's time does not match this row's: nothing is undone.
    expect(await releaseThreeDsClaim(service().ctx.db, { before, usedAt: new Date(LATER.getTime() + 5) })).toBe(false);
    expect((await reread(service(), before.id)).status).toBe('USED');

    expect(await releaseThreeDsClaim(service().ctx.db, { before, usedAt: LATER })).toBe(true);
    expect(await reread(service(), before.id)).toEqual(before);
    // Released once: a second release, or one of a row that is not USED, writes nothing.
    expect(await releaseThreeDsClaim(service().ctx.db, { before, usedAt: LATER })).toBe(false);
    expect(await reread(service(), before.id)).toEqual(before);
    // The authentication can be claimed again.
    const again = await changeThreeDsStatus(service().ctx.db, before, 'USED', LATER);
    expect(again.status).toBe('USED');
  });

  it("releases a sendPayment claim of Colibri's own authentication: its CAVV comes back and it can pay", async () => {
    const m = await service().merchant();
    const auth = await service().post('/3ds/authentications', { contractId: m.contract_id, env: 'SANDBOX', ...authRequest(CARDS.frictionless) });
    expect(auth.body.status).toBe('SUCCESS');
    const row = await reread(service(), auth.body.id);
    const presented = { cavv: service().ctx.secretBox.decrypt(row.cavv_key_id ?? '', row.cavv_ciphertext ?? ''), eci: row.eci ?? '', version: row.version ?? '', dstrans_id: row.dstrans_id ?? '' };
    const payment = { merchantId: m.merchant_id, cardId: row.card_id ?? '', amountMinor: row.amount_minor, currency: row.currency, now: new Date(row.created_at.getTime() + 1000) };
    const claim = await claimAuthentication(service().ctx, presented, payment);
    if ('external' in claim) throw new Error('expected a claim of the authentication Colibri issued');
    expect(await reread(service(), row.id)).toMatchObject({ status: 'USED', used_at: payment.now, cavv_ciphertext: null });
    // While claimed, a second payment with the same data is told it already paid.
    await expect(claimAuthentication(service().ctx, presented, payment)).rejects.toThrow(/already paid/);
    expect(await releaseThreeDsClaim(service().ctx.db, claim)).toBe(true);
    expect(await reread(service(), row.id)).toEqual(row);
    expect(await claimAuthentication(service().ctx, presented, payment)).not.toBeNull();
  });

  it('gives the authentication back when POST /checkout/3ds/payment claimed it and sendPayment refused the payment', async () => {
    const m = await service().merchant();
    const auth = await service().post('/3ds/authentications', { contractId: m.contract_id, env: 'SANDBOX', ...authRequest(CARDS.frictionless) });
    const row = await reread(service(), auth.body.id);
    const body = await payBody(service(), auth.body);
    // The card stops being ACTIVE after the authentication: the claim passes, sendPayment refuses.
    await service().ctx.db.updateTable('cards').set({ status: 'INACTIVE' }).where('id', '=', row.card_id ?? '').execute();
    const refused = await service().post('/checkout/3ds/payment', body, { token: m.token });
    expect([refused.status, refused.body.errors[0].code]).toEqual([400, '00.04.0006']);
    expect(await reread(service(), row.id)).toEqual(row);

    await service().ctx.db.updateTable('cards').set({ status: 'ACTIVE' }).where('id', '=', row.card_id ?? '').execute();
    const paid = await service().post('/checkout/3ds/payment', body, { token: m.token });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await reread(service(), row.id)).toMatchObject({ status: 'USED', cavv_ciphertext: null });
  });
});
