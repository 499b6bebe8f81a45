import { sql, type Kysely } from 'kysely';

/**
 * A DECLINED or ERROR payment moved no money, so it carries no fees (docs/payments.md). Payments that
 * ended so before this rule still hold the fees priced at their creation: drop them, as a status change
 * into those statuses now does, so transaction details, reports and callbacks agree.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    delete from payment_fees as f using payments as p
    where p.payment_token = f.payment_token and p.status in ('DECLINED', 'ERROR')`.execute(db);
  await sql`
    update payments set merchant_fees_minor = 0, customer_fees_minor = 0
    where status in ('DECLINED', 'ERROR') and (merchant_fees_minor <> 0 or customer_fees_minor <> 0)`.execute(db);
}
