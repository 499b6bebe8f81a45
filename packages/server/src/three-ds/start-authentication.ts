import { loadFeePlan, maxInstallments } from '../fees/fee-plan';
import { randomUUID } from 'node:crypto';
import { validateRequest } from '@colibri/client-3ds/validate';
import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError, ERRORS, type ErrorKey } from '../http/errors';
import { detectCardScheme, maskCardNumber } from '../rails/cards';
import { createCard } from '../vault/create-card';
import { createPerson } from '../vault/create-person';
import { issueAuthenticationValue, lookUpEnrolment, newDsTransactionId, type EnrolmentOutcome } from './directory-server';
import type { AuthenticationAnswerBody, AuthenticationRequest } from './schemas';
import { LIBRARY_STATUS, type ThreeDsStatus } from './states';

/**
 * The 3DS server's side of `authenticate3DS` (`POST /3ds/authentications`), in phases:
 * 1. the merchant, identified by its public contract id (the browser holds no API token);
 * 2. the spec's request rules, by the library's own validator, so both sides agree exactly;
 * 3. the directory server and the issuer's ACS decide: frictionless, challenge, unenrolled, not
 *    allowed or error (directory-server.ts);
 * 4. a card that can authenticate is verified with the processor and stored in the vault
 *    (encrypted; the CVV goes to the processor only), with its person, as `/checkout/person` and
 *    `/checkout/card` would; cards that cannot authenticate are not stored at all; a card whose
 *    verification the processor declines is not stored either, and the answer does not say so;
 * 5. the authentication is stored with a reserved payment token (new, or the waiting payment of a
 *    single-method debit checkout, checkout/pay-with-debit.ts) and, on success, its ECI, the
 *    directory-server transaction id and the CAVV, encrypted until the payment uses it.
 */

/** The vault's field names, as the library calls them, so its errors point at the request's fields. */
const VAULT_FIELDS: Readonly<Record<string, string>> = {
  name: 'customer.name',
  tax_id: 'customer.id',
  phone: 'customer.phones[0]',
  number: 'paymentMethod.card.number',
  exp_month: 'paymentMethod.card.expMonth',
  exp_year: 'paymentMethod.card.expYear',
  cvv: 'paymentMethod.card.cvv',
  holder_name: 'paymentMethod.card.holder.name',
};

/** The stored status of each issuer answer. */
const STATUS_OF_OUTCOME: Readonly<Record<EnrolmentOutcome, ThreeDsStatus>> = {
  FRICTIONLESS: 'AUTHENTICATED',
  CHALLENGE: 'CHALLENGE_PENDING',
  UNENROLLED: 'UNENROLLED',
  NOT_ALLOWED: 'NOT_ALLOWED',
  ERROR: 'ERROR',
};

/**
 * Authenticates a card for a merchant's checkout page; `paymentToken` reserves a payment that exists
 * already, waiting CREATED for its card.
 * @example const answer = await startAuthentication(ctx, request.body, request.headers.origin ?? null);
 * // { id: '…', status: 'CHALLENGE', challengeUrl: '/3ds/challenges/…' }
 */
export async function startAuthentication(ctx: AppContext, input: AuthenticationRequest, merchantOrigin: string | null, paymentToken?: string): Promise<AuthenticationAnswerBody> {
  const merchant = await ctx.db.selectFrom('merchants').select(['id']).where('contract_id', '=', input.contractId).executeTakeFirst();
  if (!merchant) throw new ApiError('THREE_DS_CONTRACT_UNKNOWN');
  if (ctx.config.mode !== 'sandbox') throw new ApiError('THREE_DS_UNAVAILABLE');

  const { contractId: _contractId, env: _env, ...request } = input;
  const checked = validateRequest(request);
  if (!checked.ok) throw ApiError.fields(checked.fields.map((f) => ({ key: 'THREE_DS_REQUEST_INVALID', description: `${f.field}: ${f.message}` })));
  const { customer, paymentMethod } = checked.request;
  const debit = paymentMethod.type === 'DEBIT_CARD';
  // Refused now rather than at payment time, after the customer has been through the challenge.
  if (debit && (paymentMethod.installments ?? 1) > 1) throw new ApiError('THREE_DS_DEBIT_INSTALLMENTS');
  // Installments beyond the merchant's plan are refused before the customer authenticates, as sendPayment
  // would refuse them after; the library hands the code and the field to onError.
  const most = maxInstallments(await loadFeePlan(ctx.db, merchant.id));
  if ((paymentMethod.installments ?? 1) > most) throw new ApiError('INSTALLMENTS_BEYOND_PLAN', `paymentMethod.installments: this merchant's plan offers at most ${most} installments.`);

  const outcome = lookUpEnrolment(paymentMethod.card.number);
  const now = await merchantNow(ctx.db, merchant.id);
  let personId: string | null = null;
  let card: { cardId: string; scheme: string } | null = null;
  let cardDeclined = false;
  if (outcome === 'FRICTIONLESS' || outcome === 'CHALLENGE') {
    const phone = customer.phones[0];
    const taxId = customer.id.replace(/[^0-9A-Za-z]/g, '');
    ({ personId } = await inVaultTerms(() =>
      createPerson(ctx.db, merchant.id, {
        name: customer.name,
        email: customer.email,
        tax_id: customer.id,
        tax_id_type: taxId.length === 14 ? 'CNPJ' : 'CPF',
        ...(phone ? { phone: `+${phone.country ?? 55}${phone.area}${phone.number}` } : {}),
      }),
    ));
    const created = await withoutVerificationAnswer(() =>
      inVaultTerms(() =>
        createCard(ctx, merchant.id, {
          public_person_id: personId ?? '',
          number: paymentMethod.card.number,
          exp_month: paymentMethod.card.expMonth,
          exp_year: paymentMethod.card.expYear,
          cvv: paymentMethod.card.cvv,
          holder_name: paymentMethod.card.holder.name,
        }),
      ),
    );
    card = created ? { cardId: created.cardId, scheme: created.scheme } : null;
    cardDeclined = created === null;
  }

  const status = STATUS_OF_OUTCOME[outcome];
  const value = outcome === 'FRICTIONLESS' ? issueAuthenticationValue(card?.scheme ?? detectCardScheme(paymentMethod.card.number) ?? 'VISA') : null;
  const cavv = value ? ctx.secretBox.encrypt(value.cavv) : null;
  // A checkout's debit attempt reserves the payment its session opened; an earlier authentication of
  // that attempt which did not pay (a failed challenge, a retry) gives the token up and gets one of its own.
  if (paymentToken) {
    await ctx.db.updateTable('three_ds_authentications').set({ payment_token: randomUUID() }).where('payment_token', '=', paymentToken).where('status', '!=', 'USED').execute();
  }
  const row = await ctx.db
    .insertInto('three_ds_authentications')
    .values({
      merchant_id: merchant.id,
      payment_token: paymentToken ?? randomUUID(),
      status,
      env: input.env,
      merchant_origin: merchantOrigin,
      reference_id: checked.request.referenceId,
      notification_url: checked.request.notificationUrl,
      method: debit ? 'DEBITCARD' : 'CREDITCARD',
      installments: paymentMethod.installments ?? 1,
      amount_minor: BigInt(checked.request.amount.value),
      currency: checked.request.amount.currency,
      person_id: personId,
      card_id: card?.cardId ?? null,
      card_declined: cardDeclined,
      masked_number: card || cardDeclined ? maskCardNumber(paymentMethod.card.number) : null,
      eci: value?.eci ?? null,
      version: value?.version ?? null,
      dstrans_id: outcome === 'ERROR' ? null : newDsTransactionId(),
      cavv_ciphertext: cavv?.ciphertext ?? null,
      cavv_key_id: cavv?.keyId ?? null,
      error_code: outcome === 'ERROR' ? 'ACS_UNAVAILABLE' : null,
      error_description: outcome === 'ERROR' ? "The card issuer's access control server did not answer." : null,
      created_at: now,
      updated_at: now,
      authenticated_at: value ? now : null,
      used_at: null,
      challenge_failed_at: null,
    })
    .returning(['id', 'payment_token', 'status', 'error_code', 'error_description'])
    .executeTakeFirstOrThrow();
  return answerOf(row);
}

/** The library's view of a stored authentication. @example answerOf(row) // { id, status: 'SUCCESS', paymentToken } */
export function answerOf(row: { id: string; payment_token: string; status: string; error_code: string | null; error_description: string | null }): AuthenticationAnswerBody {
  const status = LIBRARY_STATUS[row.status as ThreeDsStatus];
  return {
    id: row.id,
    status,
    ...(status === 'SUCCESS' ? { paymentToken: row.payment_token } : {}),
    ...(status === 'CHALLENGE' ? { challengeUrl: `/3ds/challenges/${row.id}` } : {}),
    ...(status === 'ERROR' ? { error: { code: 'AUTHENTICATION_ERROR', message: row.error_description ?? 'The authentication failed.' } } : {}),
  };
}

/**
 * Runs the card's creation and turns the processor's refusal of its verification (a wrong CVV, for
 * example) into null. The library's answer must not depend on it: an endpoint that any page can call
 * with only a public contract id would otherwise tell a card tester which CVV is right. The
 * authentication goes on as the issuer decides, and the payment is refused later, to the merchant's
 * server only (06.03.0009).
 */
async function withoutVerificationAnswer<T>(create: () => Promise<T>): Promise<T | null> {
  try {
    return await create();
  } catch (error) {
    if (error instanceof ApiError && error.items.some((item) => item.code === ERRORS.CARD_VERIFICATION_FAILED.code)) return null;
    throw error;
  }
}

/** Runs a vault verb and renames the fields its errors name (`tax_id: …`) to the request's (`customer.id: …`). */
async function inVaultTerms<T>(verb: () => Promise<T>): Promise<T> {
  try {
    return await verb();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    const keyOf = (code: string) => (Object.keys(ERRORS) as ErrorKey[]).find((k) => ERRORS[k].code === code) ?? 'THREE_DS_REQUEST_INVALID';
    throw ApiError.fields(
      error.items.map((item) => {
        const colon = item.description.indexOf(': ');
        const field = colon > 0 ? VAULT_FIELDS[item.description.slice(0, colon)] : undefined;
        return { key: keyOf(item.code), description: field ? `${field}: ${item.description.slice(colon + 2)}` : item.description };
      }),
    );
  }
}
