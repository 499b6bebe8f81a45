import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import { jsonRows } from '../lib/json';
import { timeOrderedId } from '../lib/identifiers';

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
 * - `reserve_held`: the rolling reserve, part of a captured payment held until its line's `available_on`.
 * - `settlement_clearing`: money on its way to the merchant's bank account (a settlement in transit).
 * - `adjustments`: the other side of an operator's adjustment of a merchant's balance.
 *
 * The merchant's balance (balance/) is what the three balance accounts owe it: `merchant_payable` and
 * `reserve_held` (lines dated with `available_on`) and `disputes_held`. Every journal that moves one of
 * them writes its balance transactions in the same statement (balanceRows), one per kind of balance and
 * date it touches, so the transactions always add up to the balance.
 */
export type LedgerAccount =
  | 'card_authorizations'
  | 'authorizations_outstanding'
  | 'processor_receivable'
  | 'merchant_payable'
  | 'fee_revenue'
  | 'payout_clearing'
  | 'disputes_held'
  | 'reserve_held'
  | 'settlement_clearing'
  | 'adjustments';

/** The accounts that make up a merchant's balance (what Colibri owes it, held or not). */
export const BALANCE_ACCOUNTS: readonly LedgerAccount[] = ['merchant_payable', 'reserve_held', 'disputes_held'];

/** The kinds of balance transaction (CONTRACTS.md, Balance). */
export const BALANCE_TYPES = ['PAYMENT', 'REFUND', 'FEE', 'DISPUTE', 'DISPUTE_REVERSAL', 'PAYOUT', 'SETTLEMENT', 'ADJUSTMENT'] as const;
export type BalanceType = (typeof BALANCE_TYPES)[number];

export interface JournalLine {
  account: LedgerAccount;
  amountMinor: bigint;
  /**
   * `YYYY-MM-DD`: when the money of a `merchant_payable` or `reserve_held` line is the merchant's to
   * settle (required on those lines, absent on others; `disputes_held` is held until the dispute closes).
   */
  availableOn?: string | undefined;
  /** The fee shown with this line's balance transaction (what the merchant paid for it), part of its gross. */
  feeMinor?: bigint | undefined;
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
  /** Required when a line moves a balance account: the balance transactions' type and source (payment, refund, dispute, …). */
  balance?: { readonly type: BalanceType; readonly sourceId: string } | undefined;
}

/** A balance transaction as stored (migration 0032): one per journal, kind of balance and date it moves. */
export interface BalanceRow {
  id: string;
  journal_id: string;
  merchant_id: string;
  type: BalanceType;
  source_id: string;
  currency: string;
  /** The gross amount: net plus fee. */
  amount_minor: bigint;
  fee_minor: bigint;
  net_minor: bigint;
  /** RESERVED for `reserve_held` and `disputes_held` lines, BALANCE for `merchant_payable`. */
  bucket: 'BALANCE' | 'RESERVED';
  available_on: string | null;
  created_at?: Date;
}

/** A journal ready to write: its ledger lines and balance transactions, which share its id. */
export interface JournalRecords {
  lines: LedgerRow[];
  balance: BalanceRow[];
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
  const records = journals.map(journalRecords);
  const merged = mergeRecords(records);
  if (merged.lines.length > 0) await sql`with ledger as (${insertLedgerRows(merged)}) select 1 as done`.execute(db);
  return records.map((r) => r.lines[0]?.journal_id ?? null);
}

function mergeRecords(records: readonly JournalRecords[]): JournalRecords {
  return { lines: records.flatMap((r) => r.lines), balance: records.flatMap((r) => r.balance) };
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
  available_on: string | null;
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
  const journalId = timeOrderedId();
  return lines.map((l) => ({
    journal_id: journalId,
    merchant_id: journal.merchantId,
    kind: journal.kind,
    account: l.account,
    amount_minor: l.amountMinor,
    currency: journal.currency,
    resource_id: journal.resourceId,
    available_on: l.availableOn ?? null,
    ...(journal.at ? { created_at: journal.at } : {}),
  }));
}

/**
 * A journal's ledger lines (journalRows) and its balance transactions: the lines on balance accounts
 * grouped by kind of balance (RESERVED for `reserve_held` and `disputes_held`) and `available_on`, each
 * group one transaction whose net is what the group adds to what Colibri owes the merchant, whose fee is
 * its lines' `feeMinor`, and whose gross is the two together. A journal that moves a balance account
 * without naming its balance type, or a dated account without a date, is refused before anything is
 * written (UnbalancedJournalError), so no movement of a merchant's money goes without its transaction.
 * @example journalRecords({ merchantId, kind: 'refund', currency: 'BRL', resourceId: token, balance: { type: 'REFUND', sourceId: '17' }, lines })
 */
export function journalRecords(journal: JournalInput): JournalRecords {
  const lines = journalRows(journal);
  const journalId = lines[0]?.journal_id ?? '';
  const groups = new Map<string, { bucket: BalanceRow['bucket']; availableOn: string | null; net: bigint; fee: bigint }>();
  for (const line of journal.lines) {
    if (line.amountMinor === 0n || !BALANCE_ACCOUNTS.includes(line.account)) continue;
    const dated = line.account !== 'disputes_held';
    if (dated !== (line.availableOn !== undefined)) {
      throw new UnbalancedJournalError(`journal ${journal.kind} for ${journal.resourceId}: a ${line.account} line ${dated ? 'needs' : 'takes no'} availableOn`);
    }
    if (!journal.balance) throw new UnbalancedJournalError(`journal ${journal.kind} for ${journal.resourceId} moves ${line.account} without a balance type`);
    const bucket = line.account === 'merchant_payable' ? 'BALANCE' : 'RESERVED';
    const key = `${bucket}:${line.availableOn ?? ''}`;
    const group = groups.get(key) ?? { bucket, availableOn: line.availableOn ?? null, net: 0n, fee: 0n };
    group.net -= line.amountMinor;
    group.fee += line.feeMinor ?? 0n;
    groups.set(key, group);
  }
  const balance: BalanceRow[] = [...groups.values()]
    .filter((g) => g.net !== 0n || g.fee !== 0n)
    .map((g) => ({
      id: timeOrderedId(),
      journal_id: journalId,
      merchant_id: journal.merchantId,
      type: journal.balance?.type as BalanceType,
      source_id: journal.balance?.sourceId ?? journal.resourceId,
      currency: journal.currency,
      amount_minor: g.net + g.fee,
      fee_minor: g.fee,
      net_minor: g.net,
      bucket: g.bucket,
      available_on: g.availableOn,
      ...(journal.at ? { created_at: journal.at } : {}),
    }));
  return { lines, balance };
}

/**
 * The one INSERT of a journal's records, which postJournals and ledgerInsertFrom run: the ledger lines,
 * then the balance transactions in a second data-modifying CTE of the same statement. Both travel as JSON
 * parameters, so one query text serves any number of them. With `after`, each row is written only where
 * that CTE of the same statement has a row whose `key` column is the row's resource (the journal's
 * resource id; the balance transaction's journal resource, carried as `resource_id`).
 *
 * As in events/outbox.ts insertEvents, PostgreSQL takes data-modifying CTEs only at the top level, so this
 * text is the body of the caller's CTE (the lines' insert), then closes it and opens the balance
 * transactions' own CTE, `<anchor>_balance`, whose body the caller's closing parenthesis ends.
 */
function insertLedgerRows(records: JournalRecords, after?: { anchor: string; key: string }): RawBuilder<unknown> {
  const anchored = (source: RawBuilder<unknown>, alias: string) =>
    after ? sql`${sql.table(after.anchor)} as a join ${source} on ${sql.ref(`${alias}.resource_id`)} = a.${sql.ref(after.key)}::text` : source;
  const resourceOf = new Map(records.lines.map((l) => [l.journal_id, l.resource_id]));
  const balance = records.balance.map((b) => ({ ...b, resource_id: resourceOf.get(b.journal_id) ?? b.source_id }));
  const lineSource = sql`json_to_recordset(${jsonRows(records.lines)}::json)
      as l(journal_id uuid, merchant_id uuid, kind text, account text, amount_minor bigint, currency text, resource_id text, available_on date, created_at timestamptz)`;
  const balanceSource = sql`json_to_recordset(${jsonRows(balance)}::json)
      as b(id uuid, journal_id uuid, merchant_id uuid, type text, source_id text, currency text, amount_minor bigint, fee_minor bigint, net_minor bigint,
        bucket text, available_on date, resource_id text, created_at timestamptz)`;
  return sql`
    insert into ledger_entries (journal_id, merchant_id, kind, account, amount_minor, currency, resource_id, available_on, created_at)
    select l.journal_id, l.merchant_id, l.kind, l.account, l.amount_minor, l.currency, l.resource_id, l.available_on, coalesce(l.created_at, now())
    from ${anchored(lineSource, 'l')}
  ),
  ${sql.id(`${after?.anchor ?? 'ledger'}_balance`)} as (
    insert into balance_transactions (id, journal_id, merchant_id, type, source_id, currency, amount_minor, fee_minor, net_minor, bucket, available_on, created_at)
    select b.id, b.journal_id, b.merchant_id, b.type, b.source_id, b.currency, b.amount_minor, b.fee_minor, b.net_minor, b.bucket, b.available_on, coalesce(b.created_at, now())
    from ${anchored(balanceSource, 'b')}`;
}

/**
 * postJournals as a data-modifying CTE of a larger statement (the shared statements of the card hot
 * path): each line and balance transaction is written only where `anchor` (a CTE of the same statement)
 * has a row whose `key` column is its journal's resource id, so a journal exists only if the change it
 * belongs to happened. Use it as the whole body of a CTE of the statement's `with` list: it adds the
 * balance transactions' CTE, `<anchor>_balance`, after that one.
 * @example sql`with updated as (…), ledger as (${ledgerInsertFrom('updated', 'payment_token', journals)}) select * from updated`
 */
export function ledgerInsertFrom(anchor: string, key: string, journals: readonly JournalInput[]): RawBuilder<unknown> {
  return insertLedgerRows(mergeRecords(journals.map(journalRecords)), { anchor, key });
}

/** Hours behind UTC of the country each currency's balance is settled in (Brasília and Mexico City keep no summer time). */
const BALANCE_UTC_OFFSET_HOURS: Readonly<Record<string, number>> = { BRL: -3, MXN: -6 };

/**
 * The calendar day an instant falls on where a currency's balance is settled: Brasília for BRL, Mexico
 * City for MXN, UTC otherwise. A movement's `available_on` counts from it.
 * @example balanceDay(new Date('2026-11-25T02:00:00Z'), 'BRL') // '2026-11-24'
 */
export function balanceDay(at: Date, currency: string): string {
  return new Date(at.getTime() + (BALANCE_UTC_OFFSET_HOURS[currency] ?? 0) * 3_600_000).toISOString().slice(0, 10);
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
