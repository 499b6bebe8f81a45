import type { Selectable } from 'kysely';
import type { Db } from '../db/database';
import { balanceDay, type JournalLine } from '../ledger/ledger';
import { toJsonNumber } from '../lib/money';
import { exponentOf } from '../lib/currencies';
import type { PayoutStatus } from './states';
import type { PayoutsTable } from '../db/tables/payouts';
import { isUuid } from '../lib/identifiers';

/** A stored payout, as read from (or about to be written to) the `payouts` table. */
export type PayoutRecord = Selectable<PayoutsTable>;

/** The spec's Payout transaction response item, numbers produced from the exact minor units. */
export interface PayoutItem {
  tx_id: string;
  reference_id: string;
  amount: number;
  original_amount: number;
  original_asset: string;
  customer_fees: number;
  customer_amount: number;
  merchant_fees: number;
  merchant_amount: number;
  asset: string;
  banking_data: string;
  status: PayoutStatus;
  /** With FX only: `asset` units per `original_asset` unit, as the exact decimal string applied, and its date. */
  fx_rate?: string;
  fx_rate_date?: string;
}

/**
 * Loads a payout and locks its row for the rest of the transaction, so the worker and any other
 * writer that races on one payout are serialised and the second sees the first's result.
 * @example const payout = await lockPayout(trx, txId);
 */
export async function lockPayout(trx: Db, txId: string): Promise<PayoutRecord | undefined> {
  if (!isUuid(txId)) return undefined;
  return trx.selectFrom('payouts').selectAll().where('tx_id', '=', txId).forUpdate().executeTakeFirst();
}

/**
 * The spec's `banking_data`: `<bank_code>:<account_type>:<account_number>`, with an empty bank code
 * for a Colombian NC (Transfiya) account sent without one.
 * @example bankingData({ bank_code: null, account_type: 'NC', account_number: '573001234567' }) // ':NC:573001234567'
 */
export function bankingData(payout: Pick<PayoutRecord, 'bank_code' | 'account_type' | 'account_number'>): string {
  return `${payout.bank_code ?? ''}:${payout.account_type}:${payout.account_number}`;
}

/**
 * A payout as the API shows it, in both the creation answer and `GET /payoutTransaction/<tx_id>`.
 * @example payoutItem(row) // { tx_id, reference_id, amount: 1500.75, …, banking_data: '002:CC:1932345678012', status: 'CREATED' }
 */
export function payoutItem(payout: PayoutRecord): PayoutItem {
  const exponent = exponentOf(payout.currency);
  return {
    tx_id: payout.tx_id,
    reference_id: payout.reference_id,
    amount: toJsonNumber(payout.amount_minor, exponent),
    original_amount: toJsonNumber(payout.original_amount_minor, exponentOf(payout.original_currency)),
    original_asset: payout.original_currency,
    customer_fees: toJsonNumber(payout.customer_fees_minor, exponent),
    customer_amount: toJsonNumber(payout.customer_amount_minor, exponent),
    merchant_fees: toJsonNumber(payout.merchant_fees_minor, exponent),
    merchant_amount: toJsonNumber(payout.merchant_amount_minor, exponent),
    asset: payout.currency,
    banking_data: bankingData(payout),
    status: payout.status,
    // The rate is a decimal string, never a float: it is what the amount was computed with, digit for digit.
    ...(payout.fx_rate === null ? {} : { fx_rate: payout.fx_rate, fx_rate_date: payout.fx_rate_date ?? '' }),
  };
}

/**
 * The callback payload of a payout (`payout.status_changed`): its identifiers, reference and new
 * status, the amounts, and the processor's reason when it was refused.
 * @example payoutEventData(row) // { tx_id, reference_id, status: 'PAID', amount: 2500, asset: 'PEN', … }
 */
export function payoutEventData(payout: PayoutRecord): Record<string, unknown> {
  const item = payoutItem(payout);
  return {
    tx_id: item.tx_id,
    reference_id: item.reference_id,
    status: item.status,
    amount: item.amount,
    asset: item.asset,
    customer_amount: item.customer_amount,
    merchant_amount: item.merchant_amount,
    error_code: payout.error_code,
    error_description: payout.error_description,
  };
}

/**
 * The reference under which a payout is sent to the processor. It is fixed per payout, so a resend
 * after a timeout or a crash is the same operation to the processor, never a second transfer.
 * @example processorReference(txId) // '<tx_id>:payout'
 */
export function processorReference(txId: string): string {
  return `${txId}:payout`;
}

/**
 * Ledger lines of a new payout (docs/payouts.md, "Ledger"): the merchant's balance is charged the
 * merchant amount, what the recipient is to receive waits in `payout_clearing`, and both kinds of fees
 * are earned. Balanced because merchant_amount = customer_amount + customer_fees + merchant_fees.
 * @example payoutCreatedLines(row, now) // [merchant_payable +151826, payout_clearing −149475, fee_revenue −2351]
 */
export function payoutCreatedLines(payout: PayoutRecord, at: Date): JournalLine[] {
  const fees = payout.merchant_fees_minor + payout.customer_fees_minor;
  return [
    // Its balance transaction: the amount sent, and the fees (both kinds, all paid out of the merchant's balance).
    { account: 'merchant_payable', amountMinor: payout.merchant_amount_minor, availableOn: balanceDay(at, payout.currency), feeMinor: fees },
    { account: 'payout_clearing', amountMinor: -payout.customer_amount_minor },
    { account: 'fee_revenue', amountMinor: -(payout.merchant_fees_minor + payout.customer_fees_minor) },
  ];
}

/**
 * Ledger lines of a payout the processor paid: the money left through the processor, which now owes
 * us that much less, and the clearing account is settled.
 * @example payoutPaidLines(row) // [payout_clearing +149475, processor_receivable −149475]
 */
export function payoutPaidLines(payout: PayoutRecord): JournalLine[] {
  return [
    { account: 'payout_clearing', amountMinor: payout.customer_amount_minor },
    { account: 'processor_receivable', amountMinor: -payout.customer_amount_minor },
  ];
}

/**
 * Ledger lines of a payout that was refused or withdrawn: the creation journal reversed, so the
 * merchant gets back the whole merchant amount, fees included (a failed payout costs nothing).
 * @example payoutReversalLines(row, now) // [merchant_payable −151826, payout_clearing +149475, fee_revenue +2351]
 */
export function payoutReversalLines(payout: PayoutRecord, at: Date): JournalLine[] {
  return payoutCreatedLines(payout, at).map((line) => ({ ...line, amountMinor: -line.amountMinor, ...(line.feeMinor === undefined ? {} : { feeMinor: -line.feeMinor }) }));
}

/**
 * Ledger lines of a payout the recipient's bank returned after it was paid: the paid journal and the
 * creation journal both reversed, in one journal. The processor owes us the returned amount again, and the
 * merchant gets back the whole merchant amount, fees included, as for a rejection.
 * @example payoutReturnLines(row, now) // [merchant_payable −151826, processor_receivable +149475, fee_revenue +2351]
 */
export function payoutReturnLines(payout: PayoutRecord, at: Date): JournalLine[] {
  const paidReversed = payoutPaidLines(payout).map((line) => ({ ...line, amountMinor: -line.amountMinor }));
  return [...payoutReversalLines(payout, at), ...paidReversed];
}
