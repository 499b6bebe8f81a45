import type { ColumnType, Generated } from 'kysely';

/**
 * Table types of the subscription domain (migration 0010-subscriptions); merged into db/schema.ts's
 * Database. Dates a customer is billed on are calendar days written 'YYYY-MM-DD' (text), never
 * instants, so no time zone can move them; they are days of the merchant clock in UTC.
 */

/** The statuses and intervals of subscriptions/states.ts, which holds their moves; the columns' check constraints hold the same lists. */
type SubscriptionStatus = 'ACTIVE' | 'PAST_DUE' | 'CANCELED';
type SubscriptionInterval = 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'YEARLY';
type ChargeStatus = 'PENDING' | 'PAID' | 'FAILED' | 'CANCELED';
export interface SubscriptionsTable {
  id: Generated<string>;
  merchant_id: string;
  person_id: string;
  card_id: string;
  amount_type: 'FIXED' | 'VARIABLE';
  /** The amount of every automatic charge, in minor units of `currency`; null for VARIABLE. */
  amount_minor: bigint | null;
  currency: string | null;
  billing_interval: SubscriptionInterval;
  /** The schedule's anchor: period n is due on first_due_date plus n intervals (month ends clamp). */
  first_due_date: string;
  force_work_day: boolean;
  reference_id: string | null;
  notification_url: string | null;
  status: SubscriptionStatus;
  /** The next period the scheduler will charge (FIXED only). */
  next_period: Generated<number>;
  /** The date that period is attempted on (adjusted to a business day when force_work_day); null for VARIABLE. */
  next_due_date: string | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
  past_due_at: Date | null;
  canceled_at: Date | null;
}

export interface SubscriptionChargesTable {
  id: Generated<string>;
  subscription_id: string;
  merchant_id: string;
  /** The schedule period of an automatic charge; null for a charge made through the charge endpoint. */
  period: number | null;
  /** The due date as asked (or as the schedule computed it), before any business-day move. */
  requested_date: string;
  /** The day the charge is attempted on; unique per subscription. */
  due_date: string;
  force_work_day: boolean;
  reference_id: string;
  amount_minor: bigint;
  currency: string;
  status: ChargeStatus;
  /** The card payment of the latest attempt (CREATED while waiting for a future due date). */
  payment_token: string | null;
  attempts: Generated<number>;
  first_attempt_on: string | null;
  /** When the next attempt is due; null while one is with the processor, and once the charge is settled. */
  next_attempt_on: string | null;
  error_code: string | null;
  error_description: string | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
  paid_at: Date | null;
  failed_at: Date | null;
  canceled_at: Date | null;
}

export interface SubscriptionChargeAttemptsTable {
  charge_id: string;
  merchant_id: string;
  attempt: number;
  payment_token: string;
  attempted_on: string;
}

export interface SubscriptionTables {
  subscriptions: SubscriptionsTable;
  subscription_charges: SubscriptionChargesTable;
  subscription_charge_attempts: SubscriptionChargeAttemptsTable;
}
