import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

/**
 * Colibri's identifiers (payment tokens, card, person, checkout, event and payout ids) are UUIDs in
 * `uuid` columns. PostgreSQL fails a comparison with a malformed one instead of finding nothing, so every
 * id that comes from outside is checked here first and a malformed one is simply "not found".
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a string has the 8-4-4-4-12 hexadecimal form of a UUID (any version, either case).
 * @example isUuid('7c9e6679-7425-40de-944b-e07fc1f90ae7') // true
 * @example isUuid('not-a-uuid')                           // false
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * A new id for a row of a table that grows with every payment (payments, their operations, events, journals,
 * balance transactions, payouts): a time-ordered UUID (version 7, RFC 9562), whose first 48 bits are the time in
 * milliseconds, then a 32-bit counter that starts at a random value each millisecond, then 42 random bits:
 * too many to guess an id, and a payment token is no key to anything without the merchant's credentials. An
 * index takes a new key of this kind at its right-hand end, where PostgreSQL appends without descending the
 * tree and fills pages instead of splitting them in half, and after a checkpoint one page image serves many
 * inserts; a random (version 4) key lands on a random page every time (docs/performance.md, "seventh
 * session: time-ordered ids"). Such an id tells the time of its creation, which the rows it names show
 * anyway; ids handed out as access to something (hosted checkout sessions, 3DS authentications) stay
 * random.
 * @example timeOrderedId() // '019ac7e2-5b1f-7a3c-9d2e-4f6a8b0c1d2e'
 */
export function timeOrderedId(): string {
  const random = randomBytes16();
  const now = Date.now();
  if (now > clock.msecs) {
    clock.msecs = now;
    clock.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    // Same millisecond (or the clock stepped back): count on, into the next millisecond if the counter wraps.
    clock.seq = (clock.seq + 1) | 0;
    if (clock.seq === 0) clock.msecs += 1;
  }
  return v7({ random, msecs: clock.msecs, seq: clock.seq });
}

/*
 * Why the counter and the random bytes are kept here, not left to `v7()`: without options `v7()` asks
 * WebCrypto's getRandomValues for 16 bytes on every call, which cost 4.3 of its 4.7 µs per id on the
 * benchmark machine (about eight ids per settled payment; docs/performance.md, "eighth session"). Here
 * the bytes come from a pool filled 256 ids at a time (0.9 µs per id), as `crypto.randomUUID` does for
 * its own. Given the random bytes, `v7` no longer keeps its counter, so this module keeps it, with
 * v7's own rule: a new millisecond starts the counter at a random 31-bit value; within one it counts on.
 */
const clock = { msecs: -Infinity, seq: 0 };
const pool = new Uint8Array(16 * 256);
let poolAt = pool.length;

function randomBytes16(): Uint8Array {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += 16;
  return pool.subarray(poolAt - 16, poolAt);
}
