import { sql, type Kysely } from 'kysely';

/**
 * Subscriptions (docs/subscriptions.md): the subscription, its charges (one per due date) and each
 * charge's attempts (one card payment each).
 *
 * The unique constraints are what make the scheduler safe to run in several processes at once and to
 * restart at any point: a subscription has at most one charge per due date and per schedule period,
 * and a charge at most one payment per attempt number, whatever the workers do.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table subscriptions (
      id uuid primary key default gen_random_uuid(),
      merchant_id uuid not null references merchants(id),
      person_id uuid not null references persons(id),
      card_id uuid not null references cards(id),
      amount_type text not null check (amount_type in ('FIXED', 'VARIABLE')),
      amount_minor bigint check (amount_minor > 0),
      currency text,
      billing_interval text not null check (billing_interval in ('WEEKLY', 'MONTHLY', 'QUARTERLY', 'YEARLY')),
      first_due_date text not null check (first_due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
      force_work_day boolean not null,
      reference_id text,
      notification_url text,
      status text not null check (status in ('ACTIVE', 'PAST_DUE', 'CANCELED')),
      next_period integer not null default 0,
      next_due_date text check (next_due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
      created_at timestamptz not null,
      updated_at timestamptz not null,
      past_due_at timestamptz,
      canceled_at timestamptz,
      check ((amount_type = 'FIXED') = (amount_minor is not null and currency is not null)),
      check (amount_type = 'FIXED' or next_due_date is null)
    )`.execute(db);
  await sql`create index subscriptions_merchant_idx on subscriptions (merchant_id, created_at, id)`.execute(db);
  await sql`create index subscriptions_due_idx on subscriptions (next_due_date) where amount_type = 'FIXED' and status <> 'CANCELED'`.execute(db);
  await sql`
    create table subscription_charges (
      id uuid primary key default gen_random_uuid(),
      subscription_id uuid not null references subscriptions(id),
      merchant_id uuid not null references merchants(id),
      period integer,
      requested_date text not null check (requested_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
      due_date text not null check (due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
      force_work_day boolean not null,
      reference_id text not null,
      amount_minor bigint not null check (amount_minor > 0),
      currency text not null,
      status text not null check (status in ('PENDING', 'PAID', 'FAILED', 'CANCELED')),
      payment_token uuid references payments(payment_token),
      attempts integer not null default 0,
      first_attempt_on text,
      next_attempt_on text,
      error_code text,
      error_description text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      paid_at timestamptz,
      failed_at timestamptz,
      canceled_at timestamptz,
      unique (subscription_id, due_date),
      unique (subscription_id, period)
    )`.execute(db);
  await sql`create index subscription_charges_list_idx on subscription_charges (subscription_id, requested_date, id)`.execute(db);
  await sql`create index subscription_charges_attempt_idx on subscription_charges (next_attempt_on) where status = 'PENDING'`.execute(db);
  await sql`create index subscription_charges_payment_idx on subscription_charges (payment_token) where status = 'PENDING'`.execute(db);
  await sql`
    create table subscription_charge_attempts (
      charge_id uuid not null references subscription_charges(id),
      attempt integer not null check (attempt > 0),
      payment_token uuid not null unique references payments(payment_token),
      attempted_on text not null,
      primary key (charge_id, attempt)
    )`.execute(db);
}
