import DataLoader from 'dataloader';

/** Calls gathered into one batch at most (bounds a statement's size and the JSON it carries). */
const MAX_BATCH = 100;

/**
 * Gathers the calls made during one turn of the event loop into one call of `runMany`, which answers
 * every item in order. The busiest statements (a card payment's insert, its authorisation's read and
 * settlement) run this way: under load, requests and jobs that arrive together share one round trip
 * and one commit instead of paying one each; alone, a call waits only for the end of the current turn.
 *
 * When a whole batch fails, each of its items runs again alone, so one item's error (a foreign key
 * that vanished, a check violation) fails that item only. `runMany` must therefore be atomic (one
 * statement, or one transaction) and may be retried. Built on DataLoader, the library made for batching calls within a
 * tick, with its cache off: every call runs.
 * @example
 * const insertOne = batchCalls((rows: Row[]) => insertMany(db, rows));
 * const [a, b] = await Promise.all([insertOne(x), insertOne(y)]); // one statement
 */
export function batchCalls<I, O>(runMany: (items: readonly I[]) => Promise<readonly O[]>, options: { maxBatchSize?: number } = {}): (item: I) => Promise<O> {
  const loader = new DataLoader<I, O>(
    async (items) => {
      try {
        return await runMany(items);
      } catch (error) {
        if (items.length === 1) return [asError(error)];
        return Promise.all(items.map((item) => runMany([item]).then((answers) => answers[0] as O, asError)));
      }
    },
    { cache: false, maxBatchSize: options.maxBatchSize ?? MAX_BATCH, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
  );
  return (item) => loader.load(item);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * One object per key, made on first use: the batchers of a database handle live as long as it does.
 * @example const batchersOf = onePer((db: Db) => ({ insert: batchCalls(...) })); batchersOf(ctx.db).insert(row)
 */
export function onePer<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}
