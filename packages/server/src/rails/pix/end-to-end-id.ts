// PIX end-to-end ids (EndToEndId), the identifier of one PIX payment across every participant.
//
// Central Bank format, 32 characters: 'E' + the sender participant's 8-digit ISPB + the creation time as
// yyyyMMddHHmm in UTC + 11 alphanumeric characters the participant chooses so that the id is unique.

/** The parts of a valid end-to-end id. */
export interface EndToEndIdParts {
  /** The 8-digit ISPB of the participant that created the id. */
  readonly ispb: string;
  /** The creation minute (UTC) written in the id. */
  readonly createdAt: Date;
  /** The 11 alphanumeric characters that make the id unique within that minute. */
  readonly sequence: string;
}

/** Options for `generateEndToEndId`. */
export interface GenerateEndToEndIdOptions {
  /** Creation time; only the UTC minute is kept. Defaults to now. */
  readonly at?: Date;
  /** Fills a byte array with random bytes; defaults to the Web Crypto CSPRNG. Meant for tests. */
  readonly randomBytes?: (bytes: Uint8Array) => Uint8Array;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SHAPE = /^E(\d{8})(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})([A-Za-z0-9]{11})$/;
const SEQUENCE_LENGTH = 11;
// 62 symbols: accept bytes below 248 (4 x 62) and reduce them modulo 62, so every symbol is equally likely.
const UNBIASED_LIMIT = 256 - (256 % ALPHANUMERIC.length);

/**
 * Generates an end-to-end id for a payment sent by the participant with this ISPB, using 11 random
 * alphanumeric characters (about 65 bits), so ids made in the same minute do not collide in practice.
 *
 * @example
 * generateEndToEndId('12345678', { at: new Date('2020-09-09T12:21:30Z') });
 * // 'E12345678202009091221' followed by 11 random letters and digits, e.g. 'E12345678202009091221Xk3f9QpL0aZ'
 */
export function generateEndToEndId(ispb: string, options: GenerateEndToEndIdOptions = {}): string {
  if (!/^\d{8}$/.test(ispb)) throw new RangeError(`ISPB must be 8 digits, got ${JSON.stringify(ispb)}`);
  const at = options.at ?? new Date();
  if (Number.isNaN(at.getTime())) throw new RangeError('Invalid creation date');
  const year = at.getUTCFullYear();
  if (year < 2000 || year > 9999) throw new RangeError(`Creation year ${year} out of range`);
  const stamp =
    String(year) +
    pad2(at.getUTCMonth() + 1) +
    pad2(at.getUTCDate()) +
    pad2(at.getUTCHours()) +
    pad2(at.getUTCMinutes());

  const fill = options.randomBytes ?? ((bytes: Uint8Array) => globalThis.crypto.getRandomValues(bytes));
  let sequence = '';
  while (sequence.length < SEQUENCE_LENGTH) {
    for (const byte of fill(new Uint8Array(16))) {
      if (byte < UNBIASED_LIMIT && sequence.length < SEQUENCE_LENGTH) {
        sequence += ALPHANUMERIC[byte % ALPHANUMERIC.length];
      }
    }
  }
  return `E${ispb}${stamp}${sequence}`;
}

/**
 * Splits a valid end-to-end id into its parts, or returns null when it is not one (wrong length or
 * alphabet, or a date and time that do not exist, such as 30 February or 24:00).
 *
 * @example
 * parseEndToEndId('E12345678202009091221abcdef12345');
 * // { ispb: '12345678', createdAt: new Date('2020-09-09T12:21:00Z'), sequence: 'abcdef12345' }
 */
export function parseEndToEndId(id: string): EndToEndIdParts | null {
  const match = SHAPE.exec(id);
  if (!match) return null;
  const [, ispb = '', yearText, monthText, dayText, hourText, minuteText, sequence = ''] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  const hour = Number(hourText);
  const minute = Number(minuteText);
  if (hour > 23 || minute > 59) return null;
  const createdAt = new Date(Date.UTC(year, month - 1, day, hour, minute));
  // Date.UTC rolls impossible dates over (2025-02-30 becomes 2025-03-02), so read the parts back.
  if (createdAt.getUTCFullYear() !== year || createdAt.getUTCMonth() !== month - 1 || createdAt.getUTCDate() !== day) {
    return null;
  }
  return { ispb, createdAt, sequence };
}

/**
 * Tells whether a string is a well-formed end-to-end id (see `parseEndToEndId`).
 *
 * @example
 * isValidEndToEndId('E12345678202009091221abcdef12345'); // true
 * isValidEndToEndId('E12345678202013091221abcdef12345'); // false (month 13)
 */
export function isValidEndToEndId(id: string): boolean {
  return parseEndToEndId(id) !== null;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}
