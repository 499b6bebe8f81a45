import type { Db } from '../db/database';
import { springPage, type Page } from '../http/page';
import { exponentOf } from '../lib/currencies';
import { toJsonNumber } from '../lib/money';
import { formatDateTimeMillis } from '../lib/time-format';
import type { PaymentMethod } from './methods';
import type { PaymentStatus } from './states';

export interface PaymentListQuery {
  page: number;
  size: number;
  reference_id?: string | undefined;
  status?: PaymentStatus | undefined;
  method?: PaymentMethod | undefined;
  /** YYYY-MM-DD, inclusive, on the day the payment was created (UTC, merchant clock). */
  from?: string | undefined;
  to?: string | undefined;
  /** An instant (ISO 8601): only payments created before it, so that pages stay put while new payments arrive. */
  created_before?: string | undefined;
}

/** A payment as the list shows it; its whole record is GET /transactionDetails/<payment_token>. */
export interface PaymentSummary {
  payment_token: string;
  reference_id: string;
  status: PaymentStatus;
  method: PaymentMethod;
  amount: number;
  asset: string;
  captured: number;
  refunded: number;
  installments: number;
  created_at: string;
}

/**
 * `GET /payments`: the merchant's payments, newest first, filtered by the merchant's own reference,
 * status, method and creation day, one page with the total count. Indexed by (merchant, created_at) and
 * (reference_id, merchant).
 * @example const page = await listPayments(db, merchantId, { page: 0, size: 20, reference_id: 'order-42' });
 */
export async function listPayments(db: Db, merchantId: string, query: PaymentListQuery): Promise<Page<PaymentSummary>> {
  let base = db.selectFrom('payments').where('merchant_id', '=', merchantId);
  if (query.reference_id !== undefined) base = base.where('reference_id', '=', query.reference_id);
  if (query.status) base = base.where('status', '=', query.status);
  if (query.method) base = base.where('method', '=', query.method);
  if (query.from) base = base.where('created_at', '>=', new Date(`${query.from}T00:00:00Z`));
  if (query.to) base = base.where('created_at', '<', new Date(Date.parse(`${query.to}T00:00:00Z`) + 86_400_000));
  if (query.created_before) base = base.where('created_at', '<', new Date(query.created_before));
  const [rows, count] = await Promise.all([
    base
      .select(['payment_token', 'reference_id', 'status', 'method', 'amount_minor', 'currency', 'captured_minor', 'refunded_minor', 'installments', 'created_at'])
      .orderBy('created_at', 'desc')
      .orderBy('payment_token')
      .limit(query.size)
      .offset(query.page * query.size)
      .execute(),
    base.select((eb) => eb.fn.countAll<string | number | bigint>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const summaries = rows.map((row) => {
    const exponent = exponentOf(row.currency);
    return {
      payment_token: row.payment_token,
      reference_id: row.reference_id,
      status: row.status as PaymentStatus,
      method: row.method as PaymentMethod,
      amount: toJsonNumber(BigInt(row.amount_minor), exponent),
      asset: row.currency,
      captured: toJsonNumber(BigInt(row.captured_minor), exponent),
      refunded: toJsonNumber(BigInt(row.refunded_minor), exponent),
      installments: row.installments,
      created_at: formatDateTimeMillis(row.created_at),
    };
  });
  return springPage(summaries, Number(count.n), query);
}
