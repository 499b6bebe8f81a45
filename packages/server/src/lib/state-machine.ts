import { ApiError } from './errors';

/**
 * A status type's state machine as data: every allowed move, and the timestamp column each status
 * stamps when a resource enters it (every terminal status has one). Each domain keeps its table in its
 * own `states.ts`; docs/<domain>.md draws it, and packages/server/src/lib/state-machine.test.ts checks
 * every table and its drawing.
 * @example
 * export const REFUND_STATES = stateTable({
 *   resource: 'refund',
 *   moves: { REQUESTED: ['PROCESSING', 'FAILED'], PROCESSING: ['COMPLETED', 'FAILED'], COMPLETED: [], FAILED: [] },
 *   timestamps: { COMPLETED: 'completed_at', FAILED: 'failed_at' },
 * });
 */
export interface StateTable<S extends string = string, C extends string = string> {
  /** What the statuses belong to, as error messages name it: "payment", "subscription charge". */
  readonly resource: string;
  /** For each status, the statuses it may move to; a terminal status lists none. */
  readonly moves: Readonly<Record<S, readonly S[]>>;
  /** The column a move into each status stamps with the move's time. */
  readonly timestamps: Readonly<Partial<Record<S, C>>>;
}

/** Declares a table, keeping its literal statuses (the keys of `moves`) and columns for the compiler. */
export function stateTable<const S extends string, const C extends string>(table: {
  resource: string;
  moves: Readonly<Record<S, readonly NoInfer<S>[]>>;
  timestamps: Readonly<Partial<Record<NoInfer<S>, C>>>;
}): StateTable<S, C> {
  return table;
}

/**
 * A move the resource's state table does not allow. In a request it answers 409 with the standard
 * error body (`STATUS_MOVE_NOT_ALLOWED`), naming the current status and the ones the move needs; the
 * job worker logs it and drops the job, since running it again would be refused again.
 */
export class IllegalMoveError extends ApiError {
  constructor(
    readonly resource: string,
    readonly from: string,
    readonly to: string,
    expected: readonly string[],
  ) {
    const why = expected.length === 0 ? `no ${resource} becomes ${to} by a move` : `it can become ${to} only from ${expected.join(' or ')}`;
    super('STATUS_MOVE_NOT_ALLOWED', `status: the ${resource} is ${from}; ${why}.`);
    this.name = 'IllegalMoveError';
  }
}

/**
 * The statuses from which a move to `to` is allowed, in the table's order: the guard of a status
 * change written as `update … where status = any(allowedFrom(table, to))`.
 * @example allowedFrom(PAYOUT_STATES, 'PAID') // ['PROCESSING']
 */
export function allowedFrom<S extends string>(table: StateTable<S>, to: S): S[] {
  return (Object.keys(table.moves) as S[]).filter((from) => table.moves[from].includes(to));
}

/**
 * Whether the table allows a move: for a precondition that answers with a code of its own (a 3DS
 * authentication that is not AUTHENTICATED cannot pay: THREE_DS_NOT_AUTHENTICATED).
 * @example canMove(THREE_DS_STATES, 'CHALLENGE_PENDING', 'AUTHENTICATED') // true
 */
export function canMove<S extends string>(table: StateTable<S>, from: string, to: S): boolean {
  return Object.hasOwn(table.moves, from) && table.moves[from as S].includes(to);
}

/**
 * Refuses a move the table does not allow with an IllegalMoveError; every `change…Status` calls it
 * before it writes anything.
 * @example
 * assertMove(PAYOUT_STATES, 'PAID', 'REJECTED');
 * // throws IllegalMoveError: "status: the payout is PAID; it can become REJECTED only from PROCESSING."
 */
export function assertMove<S extends string>(table: StateTable<S>, from: string, to: S): void {
  if (canMove(table, from, to)) return;
  throw new IllegalMoveError(table.resource, from, to, allowedFrom(table, to));
}

/**
 * The timestamp a move into `to` writes: `{ [column]: at }`, or nothing for a status without a column.
 * A status's time is when the resource first entered it: given the row as it is (`current`), a column
 * already stamped is left as it is, so a status entered again (a pre-authorisation back from a refused
 * capture) keeps its first time, and every clock that counts from it (the 5-day TTL) does not restart.
 * @example await trx.updateTable('refunds').set({ status, ...stampOf(REFUND_STATES, status, now, refund) })
 */
export function stampOf<S extends string, C extends string>(
  table: StateTable<S, C>,
  to: S,
  at: Date,
  current?: object,
): Partial<Record<C, Date>> {
  const column = table.timestamps[to];
  if (column === undefined || ((current as Record<string, unknown> | undefined)?.[column] ?? null) !== null) return {};
  return { [column]: at } as Partial<Record<C, Date>>;
}

/**
 * The refusal of a checked move whose guarded update found no row: the resource left `seen`, the
 * status the caller read, before the update ran (another writer moved it first).
 * @example if (!updated) throw movedMeanwhile(REFUND_STATES, refund.status, 'FAILED');
 */
export function movedMeanwhile<S extends string>(table: StateTable<S>, seen: string, to: S): IllegalMoveError {
  return new IllegalMoveError(table.resource, `no longer ${seen}`, to, allowedFrom(table, to));
}
