import { addDays, addMonthsClamped, daysBetween, isIsoDate, nextBusinessDay, type IsoDate } from '../rails/calendar';
import { formatDate } from '../lib/time-format';
import type { SubscriptionInterval } from './states';

/**
 * The calendar rules of subscriptions, as pure functions on 'YYYY-MM-DD' dates (docs/subscriptions.md,
 * "Schedule"). Kept free of the database so every rule is unit-tested on its own.
 */

/** Months per interval; WEEKLY is counted in days instead. */
const INTERVAL_MONTHS: Readonly<Record<Exclude<SubscriptionInterval, 'WEEKLY'>, number>> = { MONTHLY: 1, QUARTERLY: 3, YEARLY: 12 };

/**
 * Days after the first attempt on which a declined charge is tried again. After the last retry fails
 * the charge is FAILED and its subscription PAST_DUE, so a charge has at most four attempts.
 */
export const RETRY_OFFSETS_DAYS: readonly number[] = [1, 3, 5];

/** The most periods one scheduler pass charges for one subscription (a service down for months catches up in steps). */
export const MAX_CATCH_UP_PERIODS = 24;

/** How far ahead a first_due_date or a charge's due_date may lie, and how far back a charge's due_date. */
export const MAX_DAYS_AHEAD = 5 * 366;
export const MAX_CHARGE_DAYS_BEHIND = 366;

/**
 * The nominal due date of period `period` (0 is the first). Every period is computed from the anchor,
 * never from the previous period, so a schedule anchored on the 31st bills 31 Jan, 28 Feb, 31 Mar…
 * instead of drifting to the 28th.
 * @example nominalDueDate('2026-01-31', 'MONTHLY', 1) // '2026-02-28'
 */
export function nominalDueDate(anchor: IsoDate, interval: SubscriptionInterval, period: number): IsoDate {
  if (interval === 'WEEKLY') return addDays(anchor, 7 * period);
  return addMonthsClamped(anchor, INTERVAL_MONTHS[interval] * period);
}

/**
 * The day a charge is attempted on: with force_work_day a weekend or Brazilian banking holiday moves to
 * the next business day; without it the date stands.
 * @example attemptDate('2026-12-25', true) // '2026-12-28'
 */
export function attemptDate(date: IsoDate, forceWorkDay: boolean): IsoDate {
  return forceWorkDay ? nextBusinessDay(date) : date;
}

/**
 * The due date of a period after the business-day rule.
 * @example scheduledDueDate({ first_due_date: '2027-01-08', billing_interval: 'MONTHLY', force_work_day: true }, 1) // '2027-02-10' (after Carnival)
 */
export function scheduledDueDate(
  subscription: { first_due_date: IsoDate; billing_interval: SubscriptionInterval; force_work_day: boolean },
  period: number,
): IsoDate {
  return attemptDate(nominalDueDate(subscription.first_due_date, subscription.billing_interval, period), subscription.force_work_day);
}

/**
 * When a charge whose `attempts` attempts all failed is tried next, counted from its first attempt
 * (and moved to a business day with force_work_day); null when no retry is left.
 * @example retryDate('2026-03-02', 1, false) // '2026-03-03'
 */
export function retryDate(firstAttemptOn: IsoDate, attempts: number, forceWorkDay: boolean): IsoDate | null {
  const offset = RETRY_OFFSETS_DAYS[attempts - 1];
  return offset === undefined ? null : attemptDate(addDays(firstAttemptOn, offset), forceWorkDay);
}

/**
 * The merchant clock's calendar day (UTC): what "today" means for every due date of the merchant.
 * @example merchantToday(await merchantNow(db, merchantId)) // '2026-11-22'
 */
export function merchantToday(now: Date): IsoDate {
  return formatDate(now);
}

/**
 * Whether `date` is a real date within [today − behind, today + ahead] days.
 * @example isWithinWindow('2026-12-01', '2026-11-22', 0, MAX_DAYS_AHEAD) // true
 */
export function isWithinWindow(date: IsoDate, today: IsoDate, behindDays: number, aheadDays: number): boolean {
  if (!isIsoDate(date)) return false;
  const offset = daysBetween(today, date);
  return offset >= -behindDays && offset <= aheadDays;
}
