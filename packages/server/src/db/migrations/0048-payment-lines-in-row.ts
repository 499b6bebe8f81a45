import { sql, type Kysely } from 'kysely';

/**
 * A payment keeps its status history and its fee lines in its own row (issue 35, docs/performance.md):
 *
 * - Both were tables of their own, a row per line: three history lines and two fee lines for a settled
 *   card payment, five of the nineteen rows it wrote, each with two index entries and a foreign-key
 *   check against the payment. Every one of those lines is written together with the payment's row (a
 *   status change updates the payment and adds its line; fees change only with the payment's amounts),
 *   so the payment's row now carries them: `status_history`, an array of `{ "status", "at" }` in the
 *   order they happened, and `fee_lines`, an array of `{ "fee_type", "payer", "amount_minor" }`
 *   (amounts as decimal strings of minor units, in the payment's currency), in the order they were priced.
 * - A line can no longer name another merchant's payment, or outlive its payment: it is part of it.
 * - `payment_status_history` and `payment_fees` remain, as views over those arrays with the columns
 *   they had (`position`, the line's place in its payment, stands for the old serial `id`), for the
 *   books' and an operator's queries. They are read-only.
 *
 * The backfill rewrites `payments`: on a large installation, run `colibri migrate` for this version in a
 * quiet hour (docs/operations.md, "The image").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table payments
      add column status_history jsonb not null default '[]',
      add column fee_lines jsonb not null default '[]'`.execute(db);
  // Times with their microseconds, in UTC: what both PostgreSQL and JavaScript read back exactly.
  await sql`
    update payments as p set status_history = h.lines
    from (
      select payment_token,
        jsonb_agg(jsonb_build_object('status', status, 'at', to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')) order by id) as lines
      from payment_status_history group by payment_token
    ) as h
    where h.payment_token = p.payment_token`.execute(db);
  await sql`
    update payments as p set fee_lines = f.lines
    from (
      select payment_token, jsonb_agg(jsonb_build_object('fee_type', fee_type, 'payer', payer, 'amount_minor', amount_minor::text) order by id) as lines
      from payment_fees group by payment_token
    ) as f
    where f.payment_token = p.payment_token`.execute(db);
  await sql`drop table payment_status_history`.execute(db);
  await sql`drop table payment_fees`.execute(db);
  await sql`
    create view payment_status_history as
    select p.payment_token, p.merchant_id, h.position, h.line ->> 'status' as status, (h.line ->> 'at')::timestamptz as at
    from payments as p cross join lateral jsonb_array_elements(p.status_history) with ordinality as h(line, position)`.execute(db);
  await sql`
    create view payment_fees as
    select p.payment_token, p.merchant_id, f.position, f.line ->> 'fee_type' as fee_type, f.line ->> 'payer' as payer,
      (f.line ->> 'amount_minor')::bigint as amount_minor, p.currency
    from payments as p cross join lateral jsonb_array_elements(p.fee_lines) with ordinality as f(line, position)`.execute(db);
}
