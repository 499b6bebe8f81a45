import { constantTimeEqual } from '../auth/secrets';
import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { CHALLENGE_PASS_CODE, issueAuthenticationValue } from './directory-server';
import type { AuthenticationAnswerBody } from './schemas';
import { answerOf } from './start-authentication';
import { changeThreeDsStatus } from './change-status';
import { canMove } from '../lib/state-machine';
import { CHALLENGE_TTL_MS, THREE_DS_STATES } from './states';
import { isUuid } from '../lib/identifiers';

/**
 * The simulated ACS takes the customer's answer to its challenge (`POST /3ds/challenges/<id>`):
 * the authentication row is locked, so of two racing answers one decides and the other is told the
 * challenge was answered. One answer only: the right code authenticates (the CAVV is issued and kept
 * encrypted until the payment), any other fails the authentication, as an issuer would after its
 * attempts run out.
 * @example await answerChallenge(ctx, id, '123456') // { id, status: 'SUCCESS', paymentToken }
 */
export async function answerChallenge(ctx: AppContext, id: string, code: string): Promise<AuthenticationAnswerBody> {
  if (!isUuid(id)) throw new ApiError('THREE_DS_CHALLENGE_NOT_FOUND');
  const answered = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('three_ds_authentications').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    // Only authentications that asked for a challenge have one (a card row exists for them, unless the
    // processor declined its verification, which the challenge must not reveal).
    if (!row || (row.card_id === null && !row.card_declined) || row.dstrans_id === null) throw new ApiError('THREE_DS_CHALLENGE_NOT_FOUND');
    if (!canMove(THREE_DS_STATES, row.status, 'AUTHENTICATED')) throw new ApiError('THREE_DS_CHALLENGE_ANSWERED');
    const now = await merchantNow(trx, row.merchant_id);
    if (now.getTime() - row.created_at.getTime() > CHALLENGE_TTL_MS) throw new ApiError('THREE_DS_CHALLENGE_EXPIRED');

    if (!constantTimeEqual(code.trim(), CHALLENGE_PASS_CODE)) {
      return changeThreeDsStatus(trx, row, 'CHALLENGE_FAILED', now, { error_code: 'CHALLENGE_FAILED', error_description: 'The customer did not pass the challenge.' });
    }
    const card = row.card_id === null ? undefined : await trx.selectFrom('cards').select('scheme').where('id', '=', row.card_id).executeTakeFirstOrThrow();
    const value = issueAuthenticationValue(card?.scheme ?? 'VISA');
    const cavv = ctx.secretBox.encrypt(value.cavv);
    return changeThreeDsStatus(trx, row, 'AUTHENTICATED', now, { eci: value.eci, version: value.version, cavv_ciphertext: cavv.ciphertext, cavv_key_id: cavv.keyId });
  });
  return answerOf(answered);
}
