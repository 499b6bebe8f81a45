import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECKOUT_STATES } from '../checkout/states';
import { DISPUTE_STATES } from '../disputes/states';
import { ApiError } from './errors';
import { OPERATION_STATES, PAYMENT_STATES } from '../payments/states';
import { PAYOUT_STATES } from '../payouts/states';
import { LINE_STATES } from '../reconciliation/states';
import { REFUND_STATES } from '../refunds/states';
import { SETTLEMENT_STATES } from '../settlements/states';
import { CHARGE_STATES, SUBSCRIPTION_STATES } from '../subscriptions/states';
import { THREE_DS_STATES } from '../three-ds/states';
import { allowedFrom, assertMove, canMove, IllegalMoveError, movedMeanwhile, stampOf, type StateTable } from './state-machine';

/**
 * Every state table, with its moves written out once more by hand: a change to a table must change
 * this list too, on purpose. `doc` is where the table is drawn (checked below).
 */
const TABLES: { name: string; table: StateTable; moves: string[]; doc?: string }[] = [
  {
    name: 'OPERATION_STATES',
    table: OPERATION_STATES,
    doc: 'architecture.md',
    moves: ['REQUESTED→APPROVED', 'REQUESTED→DECLINED', 'REQUESTED→FAILED'],
  },
  {
    name: 'PAYMENT_STATES',
    table: PAYMENT_STATES,
    doc: 'payments.md',
    moves: [
      'CREATED→PROCESSING',
      'CREATED→CANCELED',
      'CREATED→EXPIRED',
      'PROCESSING→PAID',
      'PROCESSING→PRE_AUTHORIZED',
      'PROCESSING→DECLINED',
      'PROCESSING→ERROR',
      'PROCESSING→CANCELED',
      'PROCESSING→EXPIRED',
      'PRE_AUTHORIZED→PROCESSING',
      'PAID→PARTIALLY_REFUNDED',
      'PAID→REFUNDED',
      'PARTIALLY_REFUNDED→PARTIALLY_REFUNDED',
      'PARTIALLY_REFUNDED→REFUNDED',
    ],
  },
  {
    name: 'REFUND_STATES',
    table: REFUND_STATES,
    doc: 'refunds.md',
    moves: ['REQUESTED→PROCESSING', 'REQUESTED→FAILED', 'PROCESSING→COMPLETED', 'PROCESSING→FAILED'],
  },
  {
    name: 'LINE_STATES',
    table: LINE_STATES,
    doc: 'reconciliation.md',
    moves: ['OPEN→RESOLVED'],
  },
  {
    name: 'DISPUTE_STATES',
    table: DISPUTE_STATES,
    doc: 'disputes.md',
    moves: [
      'NEEDS_RESPONSE→UNDER_REVIEW',
      'NEEDS_RESPONSE→ACCEPTED',
      'NEEDS_RESPONSE→LOST',
      'NEEDS_RESPONSE→WON',
      'UNDER_REVIEW→WON',
      'UNDER_REVIEW→LOST',
      'UNDER_REVIEW→NEEDS_RESPONSE',
    ],
  },
  {
    name: 'PAYOUT_STATES',
    table: PAYOUT_STATES,
    doc: 'payouts.md',
    moves: ['CREATED→PROCESSING', 'PROCESSING→PAID', 'PROCESSING→REJECTED', 'PROCESSING→CANCELED', 'PAID→REJECTED'],
  },
  {
    name: 'SETTLEMENT_STATES',
    table: SETTLEMENT_STATES,
    doc: 'balance-and-settlements.md',
    moves: ['PENDING→IN_TRANSIT', 'PENDING→FAILED', 'IN_TRANSIT→PAID', 'IN_TRANSIT→FAILED'],
  },
  {
    name: 'SUBSCRIPTION_STATES',
    table: SUBSCRIPTION_STATES,
    doc: 'subscriptions.md',
    moves: ['ACTIVE→PAST_DUE', 'ACTIVE→CANCELED', 'PAST_DUE→ACTIVE', 'PAST_DUE→CANCELED'],
  },
  { name: 'CHARGE_STATES', table: CHARGE_STATES, doc: 'subscriptions.md', moves: ['PENDING→PAID', 'PENDING→FAILED', 'PENDING→CANCELED'] },
  {
    name: 'CHECKOUT_STATES',
    table: CHECKOUT_STATES,
    doc: 'checkout.md',
    moves: ['CREATED→PROCESSING', 'CREATED→CANCELED', 'PROCESSING→PROCESSING', 'PROCESSING→PAID', 'PROCESSING→CANCELED', 'PROCESSING→ERROR'],
  },
  {
    name: 'THREE_DS_STATES',
    table: THREE_DS_STATES,
    doc: '3ds.md',
    moves: ['CHALLENGE_PENDING→AUTHENTICATED', 'CHALLENGE_PENDING→CHALLENGE_FAILED', 'AUTHENTICATED→USED'],
  },
];

const statusesOf = (table: StateTable) => Object.keys(table.moves);
const movesOf = (table: StateTable) => statusesOf(table).flatMap((from) => (table.moves[from] ?? []).map((to) => `${from}→${to}`));

function refusal(table: StateTable, from: string, to: string): IllegalMoveError | undefined {
  try {
    assertMove(table, from, to);
  } catch (error) {
    return error as IllegalMoveError;
  }
  return undefined;
}

describe.each(TABLES)('$name', ({ table, moves }) => {
  it('allows exactly its documented moves', () => {
    expect(movesOf(table)).toEqual(moves);
    for (const move of moves) {
      const [from = '', to = ''] = move.split('→');
      expect(canMove(table, from, to)).toBe(true);
      expect(refusal(table, from, to), move).toBeUndefined();
    }
  });

  it('refuses every other move with one 409 that names the current status and the ones the move needs', () => {
    const statuses = statusesOf(table);
    for (const from of [...statuses, 'UNKNOWN', 'toString']) {
      for (const to of statuses) {
        if (moves.includes(`${from}→${to}`)) continue;
        const error = refusal(table, from, to);
        expect(error, `${from}→${to}`).toBeInstanceOf(IllegalMoveError);
        expect(error).toBeInstanceOf(ApiError);
        expect(error?.status).toBe(409);
        expect(error?.items[0]?.code).toBe('00.10.0001');
        const expected = allowedFrom(table, to);
        const why = expected.length === 0 ? `no ${table.resource} becomes ${to} by a move` : `it can become ${to} only from ${expected.join(' or ')}`;
        expect(error?.items[0]?.description).toBe(`status: the ${table.resource} is ${from}; ${why}.`);
      }
    }
  });

  it('names only its own statuses', () => {
    const statuses = statusesOf(table);
    for (const targets of Object.values(table.moves)) for (const to of targets) expect(statuses).toContain(to);
    for (const status of Object.keys(table.timestamps)) expect(statuses).toContain(status);
  });
});

describe.each(TABLES)('$name timestamps', ({ table }) => {
  it('stamps every terminal status a move reaches with its own column', () => {
    const reached = new Set(Object.values(table.moves).flat());
    const terminal = statusesOf(table).filter((status) => (table.moves[status] ?? []).length === 0 && reached.has(status));
    expect(terminal.length).toBeGreaterThan(0);
    const at = new Date('2026-01-02T03:04:05.000Z');
    for (const status of terminal) {
      const stamp = stampOf(table, status, at);
      expect(Object.values(stamp), status).toEqual([at]);
      expect(Object.keys(stamp)[0], status).toMatch(/_at$/);
    }
  });
});

it('stamps every 3DS status a move reaches, and leaves those stored only at creation to created_at', () => {
  const reached = new Set(Object.values(THREE_DS_STATES.moves).flat());
  expect(Object.keys(THREE_DS_STATES.timestamps).sort()).toEqual([...reached].sort());
  for (const status of ['UNENROLLED', 'NOT_ALLOWED', 'ERROR'] as const) {
    expect(reached.has(status), status).toBe(false);
    expect(stampOf(THREE_DS_STATES, status, new Date()), status).toEqual({});
  }
});

describe('the tables drawn in docs/', () => {
  /** The moves of the Markdown table that follows the comment naming `name`: each row's from × to. */
  function drawnMoves(doc: string, name: string): string[] {
    const text = readFileSync(new URL(`../../../../docs/${doc}`, import.meta.url), 'utf8');
    const marker = text.indexOf(`<!-- The moves of ${name};`);
    expect(marker, `${doc} marks the table of ${name}`).toBeGreaterThanOrEqual(0);
    const lines = text.slice(marker).split('\n').slice(1);
    const end = lines.findIndex((line) => !line.startsWith('|'));
    // The rows of the table: its header and separator left out.
    const rows = lines.slice(2, end === -1 ? undefined : end);
    return rows.flatMap((row) => {
      const [, fromCell = '', toCell = ''] = row.split('|');
      if (fromCell.includes('(none)')) return [];
      const statuses = (cell: string) => cell.match(/[A-Z][A-Z_]+[A-Z]/g) ?? [];
      return statuses(fromCell).flatMap((from) => statuses(toCell).map((to) => `${from}→${to}`));
    });
  }

  it.each(TABLES.filter((entry) => entry.doc !== undefined))('draws $name with exactly its moves', ({ name, table, doc }) => {
    const drawn = drawnMoves(doc as string, name);
    expect(new Set(drawn).size, `${doc}: a move drawn twice`).toBe(drawn.length);
    expect([...drawn].sort()).toEqual(movesOf(table).sort());
  });
});

it('stamps a status entered again with its first time, given the row as it is', () => {
  const first = new Date('2026-01-01T00:00:00.000Z');
  const again = new Date('2026-01-04T00:00:00.000Z');
  expect(stampOf(PAYMENT_STATES, 'PRE_AUTHORIZED', again, { pre_authorized_at: first })).toEqual({});
  expect(stampOf(PAYMENT_STATES, 'PRE_AUTHORIZED', again, { pre_authorized_at: null })).toEqual({ pre_authorized_at: again });
  expect(stampOf(PAYMENT_STATES, 'PRE_AUTHORIZED', again)).toEqual({ pre_authorized_at: again });
});

it('refuses a move whose guarded update found the row moved, naming what was read', () => {
  const error = movedMeanwhile(PAYOUT_STATES, 'PROCESSING', 'PAID');
  expect(error.items[0]?.description).toBe('status: the payout is no longer PROCESSING; it can become PAID only from PROCESSING.');
  expect(allowedFrom(PAYMENT_STATES, 'PROCESSING')).toEqual(['CREATED', 'PRE_AUTHORIZED']);
  expect(stampOf(PAYMENT_STATES, 'PROCESSING', new Date())).toEqual({});
});
