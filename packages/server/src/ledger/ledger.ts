import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import { jsonParameter } from '../lib/json';

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
 * - `disputes_held`: money a chargeback took back from the merchant while its dispute is open (credit);
 *   a won dispute gives it back to `merchant_payable`, a lost one leaves it with the processor
 *   (`processor_receivable`), so it is zero for every closed dispute (disputes/dispute-money.ts).
 */
export type LedgerAccount =
  | 'card_authorizations'
  | 'authorizations_outstanding'
  | 'processor_receivable'
  | 'merchant_payable'
  | 'fee_revenue'
  | 'payout_clearing'
  | 'disputes_held';

export interface JournalLine {
  account: LedgerAccount;
  amountMinor: bigint;
}

export class UnbalancedJournalError extends Error {}

/** One journal to write: its lines, in one currency, about one resource. */
export interface JournalInput {
  merchantId: string;
  kind: string;
  currency: string;
  resourceId: string;
  lines: readonly JournalLine[];
  at?: Date;
}

/**
 * Writes one balanced journal in the caller's transaction: postJournals of one. Zero lines are dropped.
 * @example await postJournal(trx, { merchantId, kind: 'capture', currency: 'BRL', resourceId: token, lines: [...] })
 */
export async function postJournal(db: Db, journal: JournalInput): Promise<string | null> {
  const [journalId] = await postJournals(db, [journal]);
  return journalId ?? null;
}

/**
 * Writes balanced journals in the caller's transaction with one statement for any number of them (a
 * payout batch writes one journal per payout). Every journal is checked before anything is written,
 * so one unbalanced journal writes none. Returns each journal's id in order, null for a journal whose
 * lines were all zero.
 * @example await postJournals(trx, payouts.map((p) => ({ merchantId, kind: 'payout.created', currency: p.currency, resourceId: p.tx_id, lines: [...] })))
 */
export async function postJournals(db: Db, journals: readonly JournalInput[]): Promise<(string | null)[]> {
  const ids: (string | null)[] = [];
  const rows: LedgerRow[] = [];
  for (const journal of journals) {
    const lines = journalRows(journal);
    ids.push(lines[0]?.journal_id ?? null);
    rows.push(...lines);
  }
  if (rows.length > 0) await insertLedgerRows(rows).execute(db);
  return ids;
}

/** A ledger line as stored. */
export interface LedgerRow {
  journal_id: string;
  merchant_id: string;
  kind: string;
  account: LedgerAccount;
  amount_minor: bigint;
  currency: string;
  resource_id: string;
  created_at?: Date;
}

/**
 * The rows of one journal, checked to balance (UnbalancedJournalError otherwise), zero lines dropped;
 * no rows for a journal of zeros. For writers that put the lines into a statement of their own.
 * @example const rows = journalRows({ merchantId, kind: 'capture', currency: 'BRL', resourceId: token, lines })
 */
export function journalRows(journal: JournalInput): LedgerRow[] {
  const lines = journal.lines.filter((l) => l.amountMinor !== 0n);
  const sum = lines.reduce((total, l) => total + l.amountMinor, 0n);
  if (sum !== 0n) throw new UnbalancedJournalError(`journal ${journal.kind} for ${journal.resourceId} is off by ${sum}`);
  const journalId = randomUUID();
  return lines.map((l) => ({
    journal_id: journalId,
    merchant_id: journal.merchantId,
    kind: journal.kind,
    account: l.account,
    amount_minor: l.amountMinor,
    currency: journal.currency,
    resource_id: journal.resourceId,
    ...(journal.at ? { created_at: journal.at } : {}),
  }));
}

/**
 * The one INSERT of ledger lines, which postJournals and the statements below run. The lines travel as
 * one JSON parameter, so one query text serves any number of them. With `after`, each line is written
 * only where that CTE of the same statement has a row whose `key` column is the line's resource id.
 */
function insertLedgerRows(rows: readonly LedgerRow[], after?: { anchor: string; key: string }): RawBuilder<unknown> {
  const source = sql`jsonb_to_recordset(${jsonParameter(rows)}::jsonb)
      as l(journal_id uuid, merchant_id uuid, kind text, account text, amount_minor bigint, currency text, resource_id text, created_at timestamptz)`;
  return sql`
    insert into ledger_entries (journal_id, merchant_id, kind, account, amount_minor, currency, resource_id, created_at)
    select l.journal_id, l.merchant_id, l.kind, l.account, l.amount_minor, l.currency, l.resource_id, coalesce(l.created_at, now())
    from ${after ? sql`${sql.table(after.anchor)} as a join ${source} on l.resource_id = a.${sql.ref(after.key)}::text` : source}`;
}

/**
 * postJournals as a data-modifying CTE of a larger statement (the shared statements of the card hot
 * path), from rows made by journalRows: each line is written only where `anchor` (a CTE of the same
 * statement) has a row whose `key` column is the line's resource id, so a journal exists only if the
 * change it belongs to happened.
 * @example sql`with updated as (…), ledger as (${ledgerInsertFrom('updated', 'payment_token', rows)}) select * from updated`
 */
export function ledgerInsertFrom(anchor: string, key: string, rows: readonly LedgerRow[]): RawBuilder<unknown> {
  return insertLedgerRows(rows, { anchor, key });
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
