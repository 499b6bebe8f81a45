import { sql } from 'kysely';
import type { Db } from '../db/database';
import { feesOf, SANDBOX_FEES } from './matching-rules';
import { settlementHeaderLine, settlementLine } from './settlement-details-format';

/**
 * The simulator's daily settlement report, in Adyen's Settlement details format, written from the
 * simulator's own books (`sandbox_operations`, processor/sandbox-simulator.ts): every operation it
 * settled on the day (UTC, on the merchant clock) for one merchant. A sale or a capture is a Settled line
 * (a credit), a refund a Refunded line (a debit), with the simulator's fees (matching-rules.ts
 * SANDBOX_FEES) and the net they leave. The merchant account is the merchant's id, so a run of this
 * report speaks for that merchant; the psp reference is the authorisation's id at the simulator, the
 * merchant reference Colibri's `<payment token>:authorize`, and the modification merchant reference the
 * operation's own reference. Imported back (`processor=sandbox`), it matches everything Colibri settled
 * that day.
 */

const PAGE = 1_000;
const COMPANY = 'ColibriSandbox';

interface SettledOperation {
  reference: string;
  operation: string;
  processor_id: string | null;
  payment_processor_id: string | null;
  settled_minor: bigint;
  currency: string;
  settled_at: Date;
  /** The time as the database keeps it (microseconds): the page's key. */
  settled_text: string;
}

/**
 * The report of `day` (`YYYY-MM-DD`) for one merchant, a page of the simulator's books at a time.
 * @example reply.type('text/csv').send(Readable.from(sandboxSettlementReport(db, merchantId, '2026-11-25')))
 */
export async function* sandboxSettlementReport(db: Db, merchantId: string, day: string): AsyncGenerator<string> {
  yield settlementHeaderLine();
  const from = new Date(`${day}T00:00:00.000Z`);
  const to = new Date(from.getTime() + 86_400_000);
  const batchNumber = Number(day.replaceAll('-', ''));
  let after: { at: string; reference: string } | undefined;
  for (;;) {
    const { rows } = await sql<SettledOperation>`
      select o.reference, o.operation, o.result->>'processorId' as processor_id, a.result->>'processorId' as payment_processor_id,
        o.settled_minor, o.currency, o.settled_at, o.settled_at::text as settled_text
      from sandbox_operations as o
      left join sandbox_operations as a on a.merchant_id = o.merchant_id and a.reference = split_part(o.reference, ':', 1) || ':authorize'
      where o.merchant_id = ${merchantId} and o.settled_minor is not null and o.settled_at >= ${from} and o.settled_at < ${to}
        ${after ? sql`and (o.settled_at, o.reference) > (${after.at}::timestamptz, ${after.reference})` : sql``}
      order by o.settled_at, o.reference
      limit ${PAGE}`.execute(db);
    let text = '';
    for (const op of rows) {
      const refund = op.operation === 'refund';
      const type = refund ? 'Refunded' : 'Settled';
      const grossMinor = BigInt(op.settled_minor);
      const token = op.reference.split(':')[0] as string;
      text += settlementLine({
        companyAccount: COMPANY,
        merchantAccount: merchantId,
        pspReference: op.payment_processor_id ?? '',
        merchantReference: `${token}:authorize`,
        paymentMethod: op.payment_processor_id ? 'card' : '',
        creationDate: new Date(op.settled_at),
        type,
        modificationReference: op.processor_id ?? '',
        currency: op.currency,
        grossMinor,
        credit: !refund,
        fees: feesOf(SANDBOX_FEES, type, grossMinor),
        modificationMerchantReference: op.reference,
        batchNumber,
      });
    }
    if (text !== '') yield text;
    const last = rows.at(-1);
    if (!last || rows.length < PAGE) return;
    after = { at: last.settled_text, reference: last.reference };
  }
}
