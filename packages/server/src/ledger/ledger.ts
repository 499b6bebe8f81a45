import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database';

/**
 * A double-entry journal of every money movement. Each journal is a set of lines whose signed amounts
 * (debits positive, credits negative) sum to zero in one currency; the invariant is checked before
 * anything is written, and balances are only ever derived from the lines.
 *
 * Accounts (per merchant):
 * - `card_authorizations` / `authorizations_outstanding`: memo pair for money held by a pre-authorisation.
 * - `processor_receivable`: what the processor owes us for captured payments (less what it paid back).
 * - `merchant_payable`: what we owe the merchant.
 * - `fee_revenue`: fees earned (merchant and customer fees).
 * - `payout_clearing`: money sent to payout recipients.
 */
export type LedgerAccount =
  | 'card_authorizations'
  | 'authorizations_outstanding'
  | 'processor_receivable'
  | 'merchant_payable'
  | 'fee_revenue'
  | 'payout_clearing';

export interface JournalLine {
  account: LedgerAccount;
  amountMinor: bigint;
}

export class UnbalancedJournalError extends Error {}

/**
 * Writes one balanced journal in the caller's transaction. Zero lines are dropped.
 * @example await postJournal(trx, { merchantId, kind: 'capture', currency: 'BRL', resourceId: token, lines: [...] })
 */
export async function postJournal(
  db: Db,
  journal: { merchantId: string; kind: string; currency: string; resourceId: string; lines: readonly JournalLine[]; at?: Date },
): Promise<string | null> {
  const lines = journal.lines.filter((l) => l.amountMinor !== 0n);
  const sum = lines.reduce((total, l) => total + l.amountMinor, 0n);
  if (sum !== 0n) throw new UnbalancedJournalError(`journal ${journal.kind} for ${journal.resourceId} is off by ${sum}`);
  if (lines.length === 0) return null;
  const journalId = randomUUID();
  await db
    .insertInto('ledger_entries')
    .values(
      lines.map((l) => ({
        journal_id: journalId,
        merchant_id: journal.merchantId,
        kind: journal.kind,
        account: l.account,
        amount_minor: l.amountMinor,
        currency: journal.currency,
        resource_id: journal.resourceId,
        ...(journal.at ? { created_at: journal.at } : {}),
      })),
    )
    .execute();
  return journalId;
}

/** Balances of a merchant's accounts, derived from the journal. @example (await balances(db, id)).merchant_payable */
export async function balances(db: Db, merchantId: string, currency = 'BRL'): Promise<Partial<Record<LedgerAccount, bigint>>> {
  const rows = await db
    .selectFrom('ledger_entries')
    .select(['account', (eb) => eb.fn.sum<string | bigint>('amount_minor').as('total')])
    .where('merchant_id', '=', merchantId)
    .where('currency', '=', currency)
    .groupBy('account')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.account, BigInt(r.total)]));
}
