import type { Selectable } from 'kysely';
import type { Db } from '../db/database';
import type { ThreeDsAuthenticationsTable } from '../db/tables/three-ds';
import { allowedFrom, assertMove, movedMeanwhile, stampOf } from '../lib/state-machine';
import { THREE_DS_STATES, type ThreeDsStatus } from './states';

export type ThreeDsRow = Selectable<ThreeDsAuthenticationsTable>;

/** What a status change may record beside the status: the issued authentication value, or why it failed. */
export interface ThreeDsStatusPatch {
  readonly eci?: string;
  readonly version?: string;
  /** The CAVV, encrypted (set when AUTHENTICATED; null to erase it). */
  readonly cavv_ciphertext?: string | null;
  readonly cavv_key_id?: string | null;
  readonly error_code?: string;
  readonly error_description?: string;
}

/**
 * Moves a 3DS authentication to a new status: the move is checked against the state table
 * (three-ds/states.ts), then the row is updated where its status still allows the move, with the
 * target status's timestamp and the patch. A move the table refuses throws IllegalMoveError before
 * anything is written; when another request moved the authentication first, the guard matches no row
 * and it throws `movedMeanwhile`. Callers that answer with a code of their own (the challenge was
 * answered, the authentication already paid) check first, or turn that refusal into their code.
 * Runs in the caller's transaction when given one (the answer to a challenge locks the row first).
 * @example const used = await changeThreeDsStatus(trx, row, 'USED', now);
 */
export async function changeThreeDsStatus(
  db: Db,
  authentication: Pick<ThreeDsRow, 'id' | 'status'>,
  status: ThreeDsStatus,
  at: Date,
  patch: ThreeDsStatusPatch = {},
): Promise<ThreeDsRow> {
  assertMove(THREE_DS_STATES, authentication.status, status);
  const updated = await db
    .updateTable('three_ds_authentications')
    .set({ ...patch, status, updated_at: at, ...stampOf(THREE_DS_STATES, status, at) })
    .where('id', '=', authentication.id)
    .where('status', 'in', allowedFrom(THREE_DS_STATES, status))
    .returningAll()
    .executeTakeFirst();
  if (!updated) throw movedMeanwhile(THREE_DS_STATES, authentication.status, status);
  return updated;
}

/**
 * An authentication claimed for a payment (AUTHENTICATED → USED by changeThreeDsStatus) before the
 * payment is stored: what releaseThreeDsClaim needs to undo the claim if the payment never is.
 */
export interface ThreeDsClaim {
  /** The authentication as read before the claim, while AUTHENTICATED. */
  readonly before: Pick<ThreeDsRow, 'id' | 'updated_at' | 'cavv_ciphertext' | 'cavv_key_id'>;
  /** The time of the claim: the `used_at` it wrote. */
  readonly usedAt: Date;
}

/**
 * The compensation of a claim whose payment was not stored: USED back to AUTHENTICATED, which is no
 * move of the state table but the undoing of one that did not take effect. An authentication pays
 * once, so it is claimed (USED) before its payment is stored, and the payment's insert is a statement
 * of its own, shared with other requests (payments/hot-path.ts): when sendPayment refuses or fails
 * after the claim, the claim is released so the customer's authentication can still pay.
 *
 * The row goes back exactly as it was read before the claim: AUTHENTICATED, no `used_at`, its
 * `updated_at` and its CAVV (a sendPayment claim erases it). Guarded on status USED and on the
 * claim's own `used_at`, so it undoes this claim only: never a payment that committed, never a later
 * claim. Returns whether it released anything.
 * @example
 * const claim = { before: row, usedAt: now };
 * try { await storePayment(); } catch (error) { await releaseThreeDsClaim(ctx.db, claim); throw error; }
 */
export async function releaseThreeDsClaim(db: Db, claim: ThreeDsClaim): Promise<boolean> {
  const { before, usedAt } = claim;
  const released = await db
    .updateTable('three_ds_authentications')
    .set({ status: 'AUTHENTICATED', used_at: null, updated_at: before.updated_at, cavv_ciphertext: before.cavv_ciphertext, cavv_key_id: before.cavv_key_id })
    .where('id', '=', before.id)
    .where('status', '=', 'USED')
    .where('used_at', '=', usedAt)
    .returning('id')
    .executeTakeFirst();
  return released !== undefined;
}
