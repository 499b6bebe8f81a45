import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError, type ErrorKey } from '../http/errors';
import { isIsoDate } from '../rails/calendar';
import { findCard, findPerson } from '../vault/lookup';
import { checkAmount } from './amount';
import { MAX_DAYS_AHEAD, isWithinWindow, merchantToday, scheduledDueDate } from './schedule';
import { scheduleSubscription } from './schedule-charges';
import type { CreateSubscriptionInput } from './schemas';
import type { SubscriptionRow } from './subscription-record';

/**
 * `POST /subscriptions`: validate (every failing rule at once, in a fixed order) → store the
 * subscription ACTIVE → for a FIXED one whose first due date is today, charge that period now rather
 * than at the next scheduler pass. The card on file is charged by the schedule (FIXED) or through
 * `POST /subscriptions/<id>/charge` (both amount types).
 * @example const subscription = await createSubscription(ctx, merchantId, body);
 */
export async function createSubscription(ctx: AppContext, merchantId: string, input: CreateSubscriptionInput): Promise<SubscriptionRow> {
  const failures: { key: ErrorKey; description: string }[] = [];
  const fail = (key: ErrorKey, description: string) => failures.push({ key, description });
  // Subscription charges are card payments: refused in live mode without a card connector.
  await ctx.connectors.requireMethod(merchantId, 'CREDITCARD');
  const now = await merchantNow(ctx.db, merchantId);

  const person = await findPerson(ctx.db, merchantId, input.public_person_id);
  const card = await findCard(ctx.db, merchantId, input.public_card_id);
  if (!person) fail('PERSON_NOT_FOUND', 'public_person_id: person not found.');
  if (!card) fail('CARD_NOT_FOUND', 'public_card_id: card not found.');
  if (person && card && card.person_id !== person.id) fail('CARD_NOT_OF_PERSON', 'public_card_id: the card does not belong to this person.');
  if (card && card.status !== 'ACTIVE') fail('CARD_NOT_ACTIVE', 'public_card_id: the card is not ACTIVE.');

  const fixed = input.amount_type === 'FIXED';
  let money: Awaited<ReturnType<typeof checkAmount>>;
  if (fixed && (input.amount === undefined || input.asset === undefined)) {
    fail('SUBSCRIPTION_AMOUNT_REQUIRED', `${input.amount === undefined ? 'amount' : 'asset'}: is required for a FIXED subscription.`);
  } else if (!fixed && (input.amount !== undefined || input.asset !== undefined)) {
    fail('SUBSCRIPTION_AMOUNT_NOT_ALLOWED', `${input.amount !== undefined ? 'amount' : 'asset'}: is not accepted for a VARIABLE subscription; each charge gives its own.`);
  } else if (fixed && input.amount !== undefined && input.asset !== undefined) {
    money = await checkAmount(ctx.db, input.amount, input.asset, fail);
  }

  if (!isIsoDate(input.first_due_date)) {
    fail('SUBSCRIPTION_DATE_INVALID', 'first_due_date: must be a real calendar date written YYYY-MM-DD.');
  } else if (!isWithinWindow(input.first_due_date, merchantToday(now), 0, MAX_DAYS_AHEAD)) {
    fail('SUBSCRIPTION_DATE_OUT_OF_RANGE', 'first_due_date: must be today or later on the merchant clock, and at most 5 years ahead.');
  }
  if (failures.length > 0 || !person || !card || (fixed && !money)) throw ApiError.fields(failures);

  const forceWorkDay = input.force_work_day ?? false;
  const created = await ctx.db
    .insertInto('subscriptions')
    .values({
      merchant_id: merchantId,
      person_id: person.id,
      card_id: card.id,
      amount_type: input.amount_type,
      amount_minor: money?.minor ?? null,
      currency: money?.currency ?? null,
      billing_interval: input.interval,
      first_due_date: input.first_due_date,
      force_work_day: forceWorkDay,
      reference_id: input.reference_id ?? null,
      notification_url: input.notification_url ?? null,
      status: 'ACTIVE',
      next_due_date: fixed ? scheduledDueDate({ first_due_date: input.first_due_date, billing_interval: input.interval, force_work_day: forceWorkDay }, 0) : null,
      created_at: now,
      updated_at: now,
      past_due_at: null,
      canceled_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (!fixed) return created;
  await scheduleSubscription(ctx, created.id);
  return (await ctx.db.selectFrom('subscriptions').selectAll().where('id', '=', created.id).executeTakeFirst()) ?? created;
}
