import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { clockAt } from '../clock/merchant-clock';
import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { balanceDay, postJournal } from '../ledger/ledger';
import { isCurrency } from '../lib/currencies';
import { parseAmount } from '../lib/money';
import { assertMove } from '../lib/state-machine';
import { exponentOf } from '../lib/currencies';
import { LINE_STATES } from './states';
import { loadLine, type LineView } from './run-record';

/**
 * An operator resolves a line that did not match: with an adjustment of the merchant's balance when
 * money must move (a journal of kind `adjustment`, its balance transaction ADJUSTMENT, and a row of
 * `balance_adjustments` with the reason and who made it), or without one when nothing must (the
 * operator's note says why). Nothing else is edited: the payment, refund or dispute the line names
 * keeps its rows, and the books change only by the new journal. Resolving is the line's one move
 * (line-records.ts LINE_STATES): a resolved line answers 409.
 */

export interface AdjustmentInput {
  readonly merchantId: string;
  /** Decimal, in the currency's units: positive adds to what Colibri owes the merchant, negative takes from it. */
  readonly amount: number;
  readonly currency: string;
  readonly reason: string;
}

/**
 * @example await resolveLine(db, { runId, lineId, operator: 'ana', adjustment: { merchantId, amount: -1.5, currency: 'BRL', reason: 'fee charged by Adyen' } })
 */
export async function resolveLine(
  db: Db,
  input: { runId: string; lineId: string; operator: string; note?: string | undefined; adjustment?: AdjustmentInput | undefined },
): Promise<LineView> {
  const amountMinor = input.adjustment ? adjustmentMinor(input.adjustment) : undefined;
  await db.transaction().execute(async (trx) => {
    const line = await lockLine(trx, input.runId, input.lineId);
    if (!line) throw new ApiError('RECONCILIATION_LINE_NOT_FOUND');
    assertMove(LINE_STATES, line.status, 'RESOLVED');
    let adjustmentId: string | null = null;
    if (input.adjustment && amountMinor !== undefined) {
      const { merchantId, currency, reason } = input.adjustment;
      if (line.merchant_id !== null && line.merchant_id !== merchantId) {
        throw new ApiError('RECONCILIATION_ADJUSTMENT_MERCHANT', `adjustment.merchant_id: the line belongs to merchant ${line.merchant_id}.`);
      }
      const merchant = await trx.selectFrom('merchants').select(['id', 'clock_offset_ms']).where('id', '=', merchantId).executeTakeFirst();
      if (!merchant) throw new ApiError('RECONCILIATION_MERCHANT_NOT_FOUND');
      const at = clockAt(merchant.clock_offset_ms);
      adjustmentId = randomUUID();
      await trx
        .insertInto('balance_adjustments')
        .values({ id: adjustmentId, merchant_id: merchantId, amount_minor: amountMinor, currency, reason, operator: input.operator, run_id: input.runId, line_id: input.lineId, created_at: at })
        .execute();
      // Positive: Colibri owes the merchant more (a credit of merchant_payable), from the adjustments account.
      await postJournal(trx, {
        merchantId,
        kind: 'adjustment',
        currency,
        resourceId: adjustmentId,
        at,
        balance: { type: 'ADJUSTMENT', sourceId: adjustmentId },
        lines: [
          { account: 'merchant_payable', amountMinor: -amountMinor, availableOn: balanceDay(at, currency) },
          { account: 'adjustments', amountMinor },
        ],
      });
    }
    const table = line.merchant_id === null ? 'reconciliation_unattributed_lines' : 'reconciliation_lines';
    await sql`
      update ${sql.table(table)} set status = 'RESOLVED', resolved_at = now(), resolved_by = ${input.operator},
        resolution_note = ${input.adjustment?.reason ?? input.note ?? null}, adjustment_id = ${adjustmentId}
      where id = ${input.lineId} and run_id = ${input.runId} and status = 'OPEN'`.execute(trx);
  });
  const resolved = await loadLine(db, input.runId, input.lineId);
  if (!resolved) throw new ApiError('RECONCILIATION_LINE_NOT_FOUND');
  return resolved;
}

/** The line, locked for the resolution (a second resolution of it waits, then finds it resolved). */
async function lockLine(db: Db, runId: string, lineId: string): Promise<{ merchant_id: string | null; status: string } | undefined> {
  const { rows } = await sql<{ merchant_id: string | null; status: string }>`
    select merchant_id::text as merchant_id, status from reconciliation_lines where run_id = ${runId} and id = ${lineId} for update`.execute(db);
  if (rows[0]) return rows[0];
  const unattributed = await sql<{ status: string }>`
    select status from reconciliation_unattributed_lines where run_id = ${runId} and id = ${lineId} for update`.execute(db);
  return unattributed.rows[0] ? { merchant_id: null, status: unattributed.rows[0].status } : undefined;
}

/** The adjustment's amount in minor units of its currency, signed; refused when it is zero or not an amount of the currency. */
function adjustmentMinor(adjustment: AdjustmentInput): bigint {
  if (!isCurrency(adjustment.currency)) throw new ApiError('CURRENCY_UNSUPPORTED', `adjustment.currency: ${adjustment.currency} is not a currency Colibri keeps balances in.`);
  const parsed = parseAmount(Math.abs(adjustment.amount), exponentOf(adjustment.currency));
  if (!parsed.ok || parsed.minor === 0n) {
    throw new ApiError('FIELD_FORMAT', `adjustment.amount: must be a non-zero decimal number with at most ${exponentOf(adjustment.currency)} decimals in ${adjustment.currency}.`);
  }
  return adjustment.amount < 0 ? -parsed.minor : parsed.minor;
}
