import { clockAt } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { recordEvents } from '../events/outbox';
import { loadFeePlan } from '../fees/fee-plan';
import { checksPayouts } from '../connectors/connector';
import { ApiError } from '../http/errors';
import { enqueueMany } from '../jobs/queue';
import { postJournals } from '../ledger/ledger';
import { payoutIssueFailure, type PayoutFailure } from './payout-errors';
import { payoutCreatedLines, payoutEventData, payoutItem, type PayoutItem, type PayoutRecord } from './payout-record';
import { pricePayout, type PayoutPrice } from './price-payout';
import { PROCESS_PAYOUT_JOB, type ProcessPayoutJob } from './process-payout';
import { PAYOUT_BATCH_MAX_ITEMS } from './schemas';
import { PAYOUT_BATCH_FIELD, parsePayoutBatch } from './validation/validate-payout';
import type { PayoutIssue } from './validation/rules';
import { RECIPIENT_FIELDS, type ValidPayoutItem } from './validation/types';
import { timeOrderedId } from '../lib/identifiers';

/**
 * Rows per INSERT statement. A payout row has 37 columns and PostgreSQL allows 65,535 parameters per
 * statement, so 500 rows (18,500 parameters) stays well inside the limit for any batch size.
 */
const INSERT_CHUNK_ROWS = 500;

/**
 * Creates a batch of payouts (`POST /payoutTransaction`), in explicit phases:
 *
 * 1. validate the whole batch (every rule of docs/payouts.md) and check that each item names the
 *    merchant's own payout contract;
 * 2. price every item (FX, fees) and refuse any the customer fees would swallow;
 * 3. store every item in one transaction with its history row, ledger journal, `payout.status_changed`
 *    event and processing job.
 *
 * Phases 1 and 2 only read, so a refused batch stores nothing; phase 3 is one transaction, so a
 * failure half-way stores nothing either. Each problem of a refused batch is answered with its own
 * code and the failing item's field path.
 * @example
 * const items = await createPayouts(ctx, merchantId, body.payoutTransactions);
 * items[0].status // 'CREATED'; the worker takes it from there
 */
export async function createPayouts(ctx: AppContext, merchantId: string, rawItems: readonly unknown[]): Promise<PayoutItem[]> {
  // The route's schema already bounds the batch; this keeps the bound for any other caller too.
  if (rawItems.length > PAYOUT_BATCH_MAX_ITEMS) {
    throw new ApiError('PAYOUT_BATCH_TOO_LARGE', `${PAYOUT_BATCH_FIELD}: must have at most ${PAYOUT_BATCH_MAX_ITEMS} payout items.`);
  }
  // In live mode payouts are refused until a payout connector is configured.
  const connector = await ctx.connectors.connectorFor(merchantId, 'PAYOUT');
  const merchant = await ctx.db
    .selectFrom('merchants')
    .select(['payout_contract_id', 'clock_offset_ms'])
    .where('id', '=', merchantId)
    .executeTakeFirstOrThrow();

  const parsed = parsePayoutBatch(rawItems);
  const contractFailures = foreignContracts(rawItems, merchant.payout_contract_id);
  if (!parsed.ok || contractFailures.size > 0) {
    throw ApiError.fields(inItemOrder(parsed.ok ? [] : parsed.issues, contractFailures));
  }

  // What the merchant's payout connector needs beyond the interface (docs/connectors.md, "dLocal").
  if (checksPayouts(connector)) {
    const needed = parsed.items.flatMap((item, index) => {
      const recipient = recipientOf(item);
      return connector.payoutIssues({ country: item.payment_country, ...recipient }).map((issue) => ({
        key: 'PAYOUT_CONNECTOR_FIELD_REQUIRED' as const,
        description: `${PAYOUT_BATCH_FIELD}[${index}].${RECIPIENT_FIELDS[item.payment_country]}.${issue.field}: ${issue.sentence}`,
      }));
    });
    if (needed.length > 0) throw ApiError.fields(needed);
  }

  const plan = await loadFeePlan(ctx.db, merchantId);
  const prices: PayoutPrice[] = [];
  const priceFailures: PayoutFailure[] = [];
  for (const [index, item] of parsed.items.entries()) {
    const result = await pricePayout(
      ctx.db,
      { originalMinor: item.original_amount_minor, originalCurrency: item.original_currency, paymentCurrency: item.payment_currency },
      plan.payouts,
    );
    if (result.ok) prices.push(result.price);
    else priceFailures.push({ key: result.key, description: `${PAYOUT_BATCH_FIELD}[${index}].${result.field}: ${result.sentence}` });
  }
  if (priceFailures.length > 0) throw ApiError.fields(priceFailures);

  const now = clockAt(merchant.clock_offset_ms);
  const batchId = timeOrderedId();
  const records = parsed.items.map((item, index) => toRecord(merchantId, batchId, index, item, prices[index] as PayoutPrice, now));
  await ctx.db.transaction().execute(async (trx) => {
    for (let start = 0; start < records.length; start += INSERT_CHUNK_ROWS) {
      await trx.insertInto('payouts').values(records.slice(start, start + INSERT_CHUNK_ROWS)).execute();
    }
    await trx
      .insertInto('payout_status_history')
      .values(records.map((record) => ({ tx_id: record.tx_id, merchant_id: record.merchant_id, status: record.status, previous_status: null, error_code: null, at: now })))
      .execute();
    // One statement per kind of row, not per payout: a 1,000-item batch is a handful of round trips.
    await postJournals(
      trx,
      records.map((record) => ({
        merchantId,
        kind: 'payout.created',
        currency: record.currency,
        resourceId: record.tx_id,
        at: now,
        balance: { type: 'PAYOUT' as const, sourceId: record.tx_id },
        lines: payoutCreatedLines(record, now),
      })),
    );
    await recordEvents(
      trx,
      records.map((record) => ({
        merchantId,
        type: 'payout.status_changed',
        resourceType: 'payout',
        resourceId: record.tx_id,
        data: payoutEventData(record),
        notificationUrls: [record.notification_url],
      })),
    );
    await enqueueMany(
      trx,
      records.map((record) => {
        const payload: ProcessPayoutJob = { txId: record.tx_id };
        return { kind: PROCESS_PAYOUT_JOB, payload, options: { uniqueKey: `${PROCESS_PAYOUT_JOB}:${record.tx_id}` } };
      }),
    );
  });
  ctx.workerSignal.poke();
  return records.map(payoutItem);
}

/**
 * The contract id an item carries, read as validation reads it (a string, or a positive integer
 * carried as its decimal form), or undefined when validation reports the field itself. It is read from
 * the raw item so that a batch with other mistakes also hears about foreign contracts in one answer.
 */
function rawContractId(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
  const value = (item as Record<string, unknown>).contract_id;
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  return undefined;
}

/** Items whose contract_id is not the merchant's payout contract, by item index. */
function foreignContracts(rawItems: readonly unknown[], payoutContractId: string): Map<number, PayoutFailure> {
  const failures = new Map<number, PayoutFailure>();
  rawItems.forEach((item, index) => {
    const contractId = rawContractId(item);
    if (contractId !== undefined && contractId !== payoutContractId) {
      failures.set(index, {
        key: 'PAYOUT_CONTRACT_NOT_OWNED',
        description: `${PAYOUT_BATCH_FIELD}[${index}].contract_id: is not the payout contract of this merchant (its payout_contract_id).`,
      });
    }
  });
  return failures;
}

const ITEM_INDEX = new RegExp(`^${PAYOUT_BATCH_FIELD}\\[(\\d+)\\]`);

/**
 * Validation issues and contract failures in one list, item by item: each item's validation issues in
 * rule order, then its contract failure, so the same batch always gets the same answer.
 */
function inItemOrder(issues: readonly PayoutIssue[], contractFailures: ReadonlyMap<number, PayoutFailure>): PayoutFailure[] {
  const byItem = new Map<number, PayoutFailure[]>();
  const batchLevel: PayoutFailure[] = [];
  for (const issue of issues) {
    const match = ITEM_INDEX.exec(issue.path);
    if (!match) {
      batchLevel.push(payoutIssueFailure(issue));
      continue;
    }
    const index = Number(match[1]);
    byItem.set(index, [...(byItem.get(index) ?? []), payoutIssueFailure(issue)]);
  }
  for (const [index, failure] of contractFailures) byItem.set(index, [...(byItem.get(index) ?? []), failure]);
  return [...batchLevel, ...[...byItem.entries()].sort(([a], [b]) => a - b).flatMap(([, failures]) => failures)];
}

function toRecord(merchantId: string, batchId: string, index: number, item: ValidPayoutItem, price: PayoutPrice, now: Date): PayoutRecord {
  const recipient = recipientOf(item);
  return {
    tx_id: timeOrderedId(),
    merchant_id: merchantId,
    batch_id: batchId,
    batch_index: index,
    contract_id: item.contract_id,
    reference_id: item.reference_id,
    country: item.payment_country,
    method: item.payout_method,
    original_amount_minor: price.originalMinor,
    original_currency: price.originalCurrency,
    amount_minor: price.amountMinor,
    currency: price.currency,
    fx_rate: price.fxRate,
    fx_rate_date: price.fxRateDate,
    merchant_fees_minor: price.merchantFeesMinor,
    merchant_amount_minor: price.merchantAmountMinor,
    customer_fees_minor: price.customerFeesMinor,
    customer_amount_minor: price.customerAmountMinor,
    // Minor units as decimal strings: JSON has no bigint, and a float would not do for money.
    fees: JSON.stringify(price.fees.map((fee) => ({ type: fee.type, payer: fee.payer, amount_minor: fee.amountMinor.toString() }))),
    bank_code: recipient.bank_code ?? null,
    account_type: recipient.account_type,
    account_number: recipient.account_number,
    tax_id_type: recipient.tax_id_type,
    tax_id: recipient.tax_id,
    email: recipient.email ?? null,
    full_name: recipient.full_name ?? null,
    notification_url: item.notification_url,
    status: 'CREATED',
    processor_id: null,
    error_code: null,
    error_description: null,
    created_at: now,
    updated_at: now,
    processing_at: null,
    paid_at: null,
    rejected_at: null,
    canceled_at: null,
  };
}

/** The recipient object of the item's country; validation guarantees it is there. */
function recipientOf(item: ValidPayoutItem) {
  switch (item.payment_country) {
    case 'CO':
      return item[RECIPIENT_FIELDS.CO];
    case 'PE':
      return item[RECIPIENT_FIELDS.PE];
    case 'CL':
      return item[RECIPIENT_FIELDS.CL];
  }
}
