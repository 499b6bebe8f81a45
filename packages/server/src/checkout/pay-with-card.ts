import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { formatAmount } from '../lib/money';
import { joinCheckout } from '../payments/create-payment';
import type { StoredPayment } from '../payments/create-payment';
import { exponentOf } from '../lib/currencies';
import { sendPayment } from '../payments/send-payment';
import { cardFieldChecks, createCard } from '../vault/create-card';
import { createPerson, personFieldChecks } from '../vault/create-person';
import type { ErrorKey } from '../http/errors';
import { findCheckout, lockCheckout, updateCheckout, type CheckoutRow } from './checkout-record';
import type { CardAttemptInput } from './schemas';
import { prepareAttempt } from './start-attempt';
import { syncCheckout } from './sync-checkout';

/**
 * The card form of the public page: the same person → card → sendPayment path a merchant's own
 * integration takes, run server-side so card data never reaches the merchant. Phases:
 * 1. check the payer's and the card's fields (the vault's own rules), before anything is stored;
 * 2. claim the session for this attempt (lock, sync, cancel an open PIX or boleto of a switching
 *    customer, mark the card attempt started so a second submit is refused with 409);
 * 3. create the person and card (the processor verifies the card) and send the payment: the one a
 *    single-method session opened at generation, waiting CREATED for this card, or a new one created in
 *    the session, so that its outcome is told to the session whenever it comes (payment-changed.ts);
 * 4. attach the payment to the session. Without saveCard the card is made INACTIVE at once, so it can
 *    never be charged again; with saveCard it stays ACTIVE for the merchant's later sendPayment.
 * A failure in step 3 releases the claim and answers the vault's error, so the customer can correct
 * the card and submit again.
 * @example const { payment } = await payWithCard(ctx, checkoutId, body, { ipAddress: request.ip });
 */
export async function payWithCard(ctx: AppContext, checkoutId: string, input: CardAttemptInput, client: { ipAddress?: string | undefined } = {}): Promise<{ session: CheckoutRow; payment: StoredPayment }> {
  const seen = await findCheckout(ctx.db, checkoutId);
  if (!seen) throw new ApiError('NOT_FOUND', 'checkout_id: checkout session not found.');
  const merchantId = seen.merchant_id;
  const now = await merchantNow(ctx.db, merchantId);

  const taxIdType = input.tax_id_type ?? taxIdTypeOf(input.tax_id);
  const personBody = { name: input.name, email: input.email, tax_id: input.tax_id, tax_id_type: taxIdType };
  const cardBody = { number: input.number, exp_month: input.exp_month, exp_year: input.exp_year, cvv: input.cvv, holder_name: input.holder_name };
  const failures = payerCardFieldChecks(input, now);
  if (failures.length > 0) throw ApiError.fields(failures);

  const previous = await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockCheckout(trx, checkoutId);
    if (!locked) throw new ApiError('NOT_FOUND', 'checkout_id: checkout session not found.');
    const session = await syncCheckout(trx, locked, now);
    const waiting = await prepareAttempt(trx, session, 'CREDITCARD', now);
    // The payment generation opened is this attempt (no new one is counted); otherwise one starts now.
    await updateCheckout(trx, session, now, { status: 'PROCESSING', current_payment_status: null, card_attempt_started_at: now, attempts: session.attempts + (waiting ? 0 : 1) });
    return { token: session.current_payment_token, status: session.current_payment_status, attempts: session.attempts, waiting: waiting?.payment_token };
  });

  let payment: StoredPayment;
  try {
    const { personId } = await createPerson(ctx.db, merchantId, personBody);
    const card = await createCard(ctx, merchantId, { public_person_id: personId, ...cardBody });
    ({ payment } = await sendPayment(ctx, merchantId, {
      contract_id: seen.contract_id,
      reference_id: seen.reference_id,
      ...(seen.notification_url ? { notification_url: seen.notification_url } : {}),
      public_person_id: personId,
      public_card_id: card.cardId,
      // The page's client address (behind the trusted proxies, COLIBRI_TRUST_PROXY) is the payer's: its country is looked up.
      ...(client.ipAddress ? { ip_address: client.ipAddress } : {}),
      payment: {
        amount: formatAmount(seen.original_amount_minor, exponentOf(seen.original_currency)),
        method: 'CREDITCARD',
        asset: seen.original_currency,
        installments: input.installments,
      },
    }, { checkoutId: seen.checkout_id, ...(previous.waiting ? { paymentToken: previous.waiting } : {}) }));
  } catch (error) {
    await ctx.db.transaction().execute(async (trx) => {
      const session = await lockCheckout(trx, checkoutId);
      if (session?.card_attempt_started_at) {
        await updateCheckout(trx, session, await merchantNow(trx, merchantId), {
          current_payment_token: previous.token,
          current_payment_status: previous.status,
          card_attempt_started_at: null,
          attempts: previous.attempts,
        });
      }
    });
    throw error;
  }

  const session = await attachCardPayment(ctx, seen, payment, now);
  return { session, payment };
}

/**
 * The last step of a card attempt (credit, or debit after 3DS): the payment joins the session, the
 * card is made INACTIVE unless the merchant asked to keep it (saveCard), and the session applies the
 * payment's status, in one transaction.
 * @example const session = await attachCardPayment(ctx, seen, payment, now);
 */
export async function attachCardPayment(ctx: AppContext, seen: CheckoutRow, payment: Pick<StoredPayment, 'payment_token' | 'card_id' | 'status'>, now: Date): Promise<CheckoutRow> {
  return ctx.db.transaction().execute(async (trx) => {
    // Session first, then payment: the order every checkout path locks in (syncCheckout, the sweep), so
    // this transaction never waits on a settlement that holds the session and waits on the payment.
    const locked = await lockCheckout(trx, seen.checkout_id);
    if (!locked) throw new Error('invariant: a claimed checkout session exists');
    await joinCheckout(trx, payment.payment_token, seen.checkout_id);
    if (!seen.save_card && payment.card_id) {
      await trx.updateTable('cards').set({ status: 'INACTIVE' }).where('id', '=', payment.card_id).execute();
    }
    const attached = await updateCheckout(trx, locked, now, { current_payment_token: payment.payment_token, current_payment_status: payment.status, card_attempt_started_at: null });
    return syncCheckout(trx, attached, await merchantNow(trx, seen.merchant_id));
  });
}

/** The tax id type a form that does not say one means: CNPJ for 14 characters, CPF otherwise. */
export function taxIdTypeOf(taxId: string): 'CPF' | 'CNPJ' {
  return taxId.replace(/[^0-9A-Za-z]/g, '').length === 14 ? 'CNPJ' : 'CPF';
}

/**
 * The payer's and the card's rules beyond the schema, together, in the order of the form's fields: the
 * page's card form (and the route's `fieldChecks`, when the schema refused other fields) tells every
 * wrong field in one answer. The expiry is checked only with `now`, the merchant's clock.
 * @example payerCardFieldChecks({ name: 'Ana', tax_id: '111.111.111-12', number: '4111111111111112' }) // tax_id and number failures
 */
export function payerCardFieldChecks(body: unknown, now?: Date): { key: ErrorKey; description: string }[] {
  if (body === null || typeof body !== 'object') return [];
  const { name, tax_id: taxId, tax_id_type: type } = body as Record<string, unknown>;
  // Only the person's own fields: a debit form's phone follows its own (Brazilian) rule.
  const person = { name, tax_id: taxId, tax_id_type: type ?? (typeof taxId === 'string' ? taxIdTypeOf(taxId) : undefined) };
  return [...personFieldChecks(person), ...cardFieldChecks(body, now)];
}
