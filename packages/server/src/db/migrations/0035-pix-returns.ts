import { sql, type Kysely } from 'kysely';

/**
 * The returns of a PIX received through a PSP are read back (`GET /pix/{e2eid}`) while a MED devolução
 * can still come (checkout/pix-returns.ts), in case its notification was lost. Each paid PIX is watched
 * by a connector operation of reference `<payment_token>:returns`, PENDING while watched, its
 * `updated_at` the last reading; this partial index holds exactly those, so the pass reads only them,
 * oldest reading first. PIX paid before this migration, within the window, are watched from now on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index connector_operations_pix_returns_idx on connector_operations (updated_at)
    where result->>'status' = 'PENDING' and reference like '%:returns'`.execute(db);
  await sql`
    insert into connector_operations (connector, reference, merchant_id, provider_reference, result, updated_at)
    select o.connector, p.payment_token::text || ':returns', p.merchant_id, p.end_to_end_id,
      jsonb_build_object('status', 'PENDING', 'processorId', p.end_to_end_id), now()
    from connector_operations o
    join payments p on o.reference = p.payment_token::text || ':charge' and p.merchant_id = o.merchant_id
    where o.result->>'status' = 'APPROVED' and p.method = 'PIX' and p.end_to_end_id is not null
      and p.status in ('PAID', 'PARTIALLY_REFUNDED') and p.paid_at >= now() - interval '92 days'
    on conflict do nothing`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from connector_operations where reference like '%:returns'`.execute(db);
  await sql`drop index connector_operations_pix_returns_idx`.execute(db);
}
