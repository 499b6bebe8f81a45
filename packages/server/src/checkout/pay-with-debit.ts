import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { formatAmount } from '../lib/money';
import { dropNotificationUrl, type StoredPayment } from '../payments/create-payment';
import { payWithAuthentication } from '../three-ds/pay-with-authentication';
import { startAuthentication } from '../three-ds/start-authentication';
import { findCheckout, lockCheckout, updateCheckout, type CheckoutRow } from './checkout-record';
import { cardFieldChecks } from '../vault/create-card';
import { personFieldChecks } from '../vault/create-person';
import { attachCardPayment, taxIdTypeOf } from './pay-with-card';
import type { ErrorKey } from '../http/errors';
import type { DebitAttemptInput } from './schemas';
import { prepareAttempt } from './start-attempt';
import { syncCheckout } from './sync-checkout';

/** What the page does next: pay is done (the outcome follows on the status poll), or show the challenge. */
export type DebitAnswer = { status: 'SENT'; payment: StoredPayment } | { status: 'CHALLENGE'; challengeUrl: string };

/**
 * Reads a Brazilian mobile number as the 3DS request wants it: a two-digit area code and 8 or 9 digits,
 * with or without +55, spaces, hyphens and parentheses.
 * @example parseBrazilianPhone('(11) 91234-5678') // { area: 11, number: 912345678 }
 */
export function parseBrazilianPhone(input: string): { area: number; number: number } | null {
  let digits = input.replace(/[\s()+-]/g, '');
  if (!/^\d+$/.test(digits)) return null;
  if ((digits.length === 12 || digits.length === 13) && digits.startsWith('55')) digits = digits.slice(2);
  if (digits.length !== 10 && digits.length !== 11) return null;
  return { area: Number(digits.slice(0, 2)), number: Number(digits.slice(2)) };
}

/**
 * The debit form's rules beyond the schema: the payer's and the card's (as the credit card form's) and
 * the Brazilian mobile phone, every failing field in one answer, in the order of the form's fields.
 * @example debitFieldChecks({ name: 'Ana', tax_id: '111.111.111-12', phone: '123' }) // tax_id and phone failures
 */
export function debitFieldChecks(body: unknown, now?: Date): { key: ErrorKey; description: string }[] {
  if (body === null || typeof body !== 'object') return [];
  const { name, tax_id: taxId, phone } = body as Record<string, unknown>;
  // The debit form does not say the tax id's type; its phone follows a Brazilian rule, not the person's E.164 one.
  const payer = personFieldChecks({ name, tax_id: taxId, tax_id_type: typeof taxId === 'string' ? taxIdTypeOf(taxId) : undefined });
  const phoneFailures: { key: ErrorKey; description: string }[] =
    typeof phone === 'string' && parseBrazilianPhone(phone) === null
      ? [{ key: 'FIELD_FORMAT', description: 'phone: must be a Brazilian mobile number: a two-digit area code and 8 or 9 digits.' }]
      : [];
  return [...payer, ...phoneFailures, ...cardFieldChecks(body, now)];
}

/**
 * The debit card form of the public page: a debit card is authenticated with 3DS before it pays, and the
 * challenge, when the issuer asks for one, is shown inside the checkout page. Phases:
 * 1. check the payer's, the phone's and the card's fields before anything is stored;
 * 2. claim the session for this attempt (as the credit card form does: card_attempt_started_at, 409 to a second submit);
 * 3. authenticate with the same 3DS server the browser library uses (three-ds/start-authentication.ts),
 *    with the session's contract, reference, amount and language; the page's own origin is the one the
 *    challenge page may talk to;
 * 4. frictionless: pay at once through the 3DS payment path (three-ds/pay-with-authentication.ts) and
 *    attach the payment; challenge: keep the claim, remember the authentication's reserved payment token
 *    on the session, and answer the challenge URL; anything else: release the claim and answer
 *    `422 03.02.0004`.
 * @example const answer = await startDebitAttempt(ctx, checkoutId, body, 'http://127.0.0.1:8080');
 */
export async function startDebitAttempt(ctx: AppContext, checkoutId: string, input: DebitAttemptInput, pageOrigin: string): Promise<DebitAnswer> {
  const seen = await findCheckout(ctx.db, checkoutId);
  if (!seen) throw new ApiError('NOT_FOUND', 'checkout_id: checkout session not found.');
  const now = await merchantNow(ctx.db, seen.merchant_id);
  const failures = debitFieldChecks(input, now);
  if (failures.length > 0) throw ApiError.fields(failures);
  const phone = parseBrazilianPhone(input.phone);
  if (!phone) throw new Error('invariant: debitFieldChecks accepted the phone');

  const previous = await claim(ctx, checkoutId, now);
  try {
    const answer = await startAuthentication(
      ctx,
      {
        contractId: seen.contract_id,
        env: 'SANDBOX',
        notificationUrl: seen.notification_url ?? `${pageOrigin}/pay/${seen.checkout_id}`,
        referenceId: seen.reference_id,
        disableAddress: true,
        customer: { id: input.tax_id, name: input.name, email: input.email, phones: [{ country: 55, area: phone.area, number: phone.number, type: 'MOBILE' }] },
        paymentMethod: {
          type: 'DEBIT_CARD',
          installments: 1,
          card: { number: input.number.replace(/[\s-]/g, ''), expMonth: input.exp_month.padStart(2, '0'), expYear: input.exp_year.length === 2 ? `20${input.exp_year}` : input.exp_year, cvv: input.cvv, holder: { name: input.holder_name } },
        },
        amount: { value: Number(seen.amount_minor), currency: 'BRL' },
      },
      pageOrigin,
      // The authentication reserves the payment that generation opened, so paying with it sends that payment.
      previous.waiting,
    );
    // The 3DS request needs a notification URL; a session without one lends the page's address to the
    // authentication only, so that no callback of the payment is ever posted to it.
    if (!seen.notification_url) await ctx.db.updateTable('three_ds_authentications').set({ notification_url: '' }).where('id', '=', answer.id).execute();
    if (answer.status === 'SUCCESS' && answer.paymentToken) {
      const payment = await pay(ctx, seen, answer.id, answer.paymentToken);
      return { status: 'SENT', payment };
    }
    if (answer.status === 'CHALLENGE' && answer.challengeUrl) {
      const row = await ctx.db.selectFrom('three_ds_authentications').select('payment_token').where('id', '=', answer.id).executeTakeFirstOrThrow();
      await ctx.db.transaction().execute(async (trx) => {
        const session = await lockCheckout(trx, checkoutId);
        if (session?.card_attempt_started_at) await updateCheckout(trx, session, now, { current_payment_token: row.payment_token, current_payment_status: null });
      });
      return { status: 'CHALLENGE', challengeUrl: `${answer.challengeUrl}?lang=${input.lang ?? 'pt'}` };
    }
    throw new ApiError('CHECKOUT_AUTHENTICATION_FAILED', undefined, { message: `3DS answered ${answer.status}: the card cannot pay by debit without authentication.` });
  } catch (error) {
    await release(ctx, checkoutId, previous);
    throw error;
  }
}

/**
 * After the challenge inside the page: the page reports that the challenge was answered, and the
 * session's authentication (the one it claimed, never one named by the browser) pays if it succeeded;
 * a failed challenge releases the claim so the customer may try again.
 * @example const answer = await completeDebitAttempt(ctx, checkoutId);
 */
export async function completeDebitAttempt(ctx: AppContext, checkoutId: string): Promise<DebitAnswer> {
  const seen = await findCheckout(ctx.db, checkoutId);
  if (!seen) throw new ApiError('NOT_FOUND', 'checkout_id: checkout session not found.');
  const token = seen.card_attempt_started_at ? seen.current_payment_token : null;
  const auth = token
    ? await ctx.db.selectFrom('three_ds_authentications').select(['id', 'status', 'payment_token']).where('payment_token', '=', token).where('merchant_id', '=', seen.merchant_id).executeTakeFirst()
    : undefined;
  if (!auth) throw new ApiError('CHECKOUT_AUTHENTICATION_FAILED', undefined, { message: 'No debit card authentication of this session awaits its payment.' });
  if (auth.status === 'CHALLENGE_PENDING') throw new ApiError('THREE_DS_PENDING');
  // Released, the session goes back to the payment generation opened (still CREATED), or to no attempt.
  const before = await releasedState(ctx, seen, token);
  if (auth.status !== 'AUTHENTICATED') {
    await release(ctx, checkoutId, before);
    throw new ApiError('CHECKOUT_AUTHENTICATION_FAILED', undefined, { message: 'The customer did not pass the challenge.' });
  }
  try {
    return { status: 'SENT', payment: await pay(ctx, seen, auth.id, auth.payment_token) };
  } catch (error) {
    await release(ctx, checkoutId, before);
    throw error;
  }
}

/** What a released claim restores: the CREATED payment of generation when the claim reserved it, or no attempt. */
async function releasedState(ctx: AppContext, seen: CheckoutRow, token: string | null): Promise<Previous> {
  const waiting = token ? await ctx.db.selectFrom('payments').select(['payment_token', 'status']).where('payment_token', '=', token).where('merchant_id', '=', seen.merchant_id).executeTakeFirst() : undefined;
  if (waiting?.status === 'CREATED') return { token: waiting.payment_token, status: 'CREATED', attempts: seen.attempts };
  return { token: null, status: null, attempts: Math.max(0, seen.attempts - 1) };
}

async function pay(ctx: AppContext, seen: CheckoutRow, id: string, paymentToken: string): Promise<StoredPayment> {
  const { payment } = await payWithAuthentication(
    ctx,
    seen.merchant_id,
    { id, paymentToken, amount: formatAmount(seen.amount_minor, 2), reference_id: seen.reference_id },
    { checkoutId: seen.checkout_id },
  );
  if (!seen.notification_url) await dropNotificationUrl(ctx.db, payment.payment_token);
  await attachCardPayment(ctx, seen, payment, await merchantNow(ctx.db, seen.merchant_id));
  return payment;
}

/** The session before a claim; `waiting`: the payment generation opened for this card, if any. */
type Previous = { token: string | null; status: string | null; attempts: number; waiting?: string | undefined };

async function claim(ctx: AppContext, checkoutId: string, now: Date): Promise<Previous> {
  return ctx.db.transaction().execute(async (trx) => {
    const locked = await lockCheckout(trx, checkoutId);
    if (!locked) throw new ApiError('NOT_FOUND', 'checkout_id: checkout session not found.');
    const session = await syncCheckout(trx, locked, now);
    const waiting = await prepareAttempt(trx, session, 'DEBITCARD', now);
    await updateCheckout(trx, session, now, { status: 'PROCESSING', current_payment_status: null, card_attempt_started_at: now, attempts: session.attempts + (waiting ? 0 : 1) });
    return { token: session.current_payment_token, status: session.current_payment_status, attempts: session.attempts, waiting: waiting?.payment_token };
  });
}

/** Gives the session back as it was before the claim, if the claim still holds it. */
async function release(ctx: AppContext, checkoutId: string, previous: Previous): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const session = await lockCheckout(trx, checkoutId);
    if (!session?.card_attempt_started_at) return;
    await updateCheckout(trx, session, await merchantNow(trx, session.merchant_id), {
      current_payment_token: previous.token,
      current_payment_status: previous.status,
      card_attempt_started_at: null,
      attempts: previous.attempts,
    });
  });
}
