import { randomUUID } from 'node:crypto';
import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError, type ErrorKey } from '../http/errors';
import { ProcessorTimeoutError, ProcessorUnavailableError, type OperationResult } from '../processor/processor';
import {
  cardNumberLengths,
  detectCardScheme,
  MAX_EXPIRY_YEARS_AHEAD,
  maskCardNumber,
  validateCardNumber,
  validateExpiry,
  type CardNumberFailureReason,
  type CardScheme,
  type ExpiryFailureReason,
} from '../rails/cards';
import { findPerson } from './lookup';
import { EXP_MONTH_RULE, EXP_YEAR_RULE, type CreateCardRequest } from './schemas';

/**
 * `POST /checkout/card`: stores a person's card for later payments. Phases, in a fixed order so a
 * bad request always gets the same answer:
 * 1. check every field (number, expiry on the merchant clock, CVV, holder name), all failures at once;
 * 2. load the person, which must be the caller merchant's (otherwise 404, revealing nothing);
 * 3. verify the card with the processor, moving no money; a decline stores nothing;
 * 4. store the number encrypted, with only its first six and last four digits in the clear.
 * The CVV goes to the processor in step 3 and nowhere else: it is not stored, logged or returned.
 */

type Failure = { key: ErrorKey; description: string };

/** A card's fields once checked: the number as digits only, the expiry as integers. */
export interface CardFields {
  readonly number: string;
  readonly scheme: CardScheme;
  readonly expMonth: number;
  readonly expYear: number;
  readonly cvv: string;
  readonly holderName: string;
}

// Descriptions name the rule, never the value: they are logged, and a card number must never be.
const NUMBER_MESSAGES: Record<Exclude<CardNumberFailureReason, 'INVALID_LENGTH_FOR_SCHEME'>, Failure> = {
  INVALID_CHARACTERS: { key: 'CARD_NUMBER_INVALID', description: 'number: may contain only digits, with spaces or hyphens between groups.' },
  INVALID_LENGTH: { key: 'CARD_NUMBER_INVALID', description: 'number: must have 12 to 19 digits.' },
  LUHN_CHECK_FAILED: { key: 'CARD_NUMBER_INVALID', description: 'number: fails the Luhn check; a digit is probably mistyped.' },
  UNKNOWN_SCHEME: {
    key: 'CARD_SCHEME_UNSUPPORTED',
    description: 'number: the card belongs to none of the schemes Colibri processes (VISA, MASTER, ELO, AMERICAN_EXPRESS, DINERS_CLUB, DISCOVER, JCB).',
  },
};

const EXPIRY_MESSAGES: Record<ExpiryFailureReason, Failure> = {
  INVALID_MONTH: { key: 'CARD_EXPIRY_INVALID', description: EXP_MONTH_RULE },
  INVALID_YEAR: { key: 'CARD_EXPIRY_INVALID', description: EXP_YEAR_RULE },
  EXPIRED: { key: 'CARD_EXPIRED', description: 'exp_year: the card has expired; its expiry month is over on the merchant clock.' },
  TOO_FAR_IN_FUTURE: { key: 'CARD_EXPIRY_INVALID', description: `exp_year: must be at most ${MAX_EXPIRY_YEARS_AHEAD} years ahead.` },
};

// Every scheme Colibri accepts issues at least 14 digits, so the first six and last four kept in the
// clear (bin, last4) always leave four or more digits that only the ciphertext holds.
const SHORTEST_ACCEPTED_NUMBER = 14;

// A run of this many digits in the holder name is most likely a card number typed into the wrong
// field; the holder name is stored in the clear, so it is refused rather than kept.
const DIGIT_RUN_IN_NAME = /[0-9]{12,}/;

function checkNumber(input: string, failures: Failure[]): { number: string; scheme: CardScheme } | null {
  const result = validateCardNumber(input);
  if (result.ok) return { number: result.value, scheme: result.scheme };
  if (result.reason !== 'INVALID_LENGTH_FOR_SCHEME') {
    failures.push(NUMBER_MESSAGES[result.reason]);
    return null;
  }
  // The scheme was recognised when the length is wrong for it, so the answer can name its lengths.
  const scheme = detectCardScheme(input);
  failures.push(
    scheme === null
      ? NUMBER_MESSAGES.INVALID_LENGTH
      : { key: 'CARD_NUMBER_INVALID', description: `number: a ${scheme} card number has ${listOfLengths(cardNumberLengths(scheme))} digits.` },
  );
  return null;
}

/** `[16, 18, 19]` → `16, 18 or 19`. */
function listOfLengths(lengths: readonly number[]): string {
  const all = lengths.map(String);
  const last = all.pop() ?? '';
  return all.length === 0 ? last : `${all.join(', ')} or ${last}`;
}

function checkCvv(cvv: string, scheme: CardScheme | null, failures: Failure[]): void {
  // With an invalid number the scheme is unknown, so either length is accepted here; the exact rule
  // applies once the number is corrected.
  if (scheme === 'AMERICAN_EXPRESS') {
    if (!/^[0-9]{4}$/.test(cvv)) failures.push({ key: 'CARD_CVV_INVALID', description: 'cvv: must be 4 digits for an AMERICAN_EXPRESS card.' });
  } else if (scheme !== null) {
    if (!/^[0-9]{3}$/.test(cvv)) failures.push({ key: 'CARD_CVV_INVALID', description: 'cvv: must be 3 digits.' });
  } else if (!/^[0-9]{3,4}$/.test(cvv)) {
    failures.push({ key: 'CARD_CVV_INVALID', description: 'cvv: must be 3 or 4 digits.' });
  }
}

/**
 * Checks a card's fields against the rules the schema cannot express, with `now` the merchant's clock
 * (a card is valid through the last moment of its expiry month, in UTC). Every failing field is
 * reported together, in the order of the request's fields.
 * @example normaliseCard({ public_person_id, number: '4111 1111 1111 1111', exp_month: '12', exp_year: 2030, cvv: '123', holder_name: 'ANA' }, now)
 * // { number: '4111111111111111', scheme: 'VISA', expMonth: 12, expYear: 2030, cvv: '123', holderName: 'ANA' }
 */
export function normaliseCard(body: CreateCardRequest, now: Date): CardFields {
  const failures: Failure[] = [];
  const number = checkNumber(body.number, failures);
  const expiry = validateExpiry(body.exp_month, body.exp_year, now);
  if (!expiry.ok) failures.push(EXPIRY_MESSAGES[expiry.reason]);
  checkCvv(body.cvv, number?.scheme ?? null, failures);
  const holderName = checkHolderName(body.holder_name, failures);
  if (failures.length > 0 || number === null || !expiry.ok) throw ApiError.fields(failures);
  return { number: number.number, scheme: number.scheme, expMonth: expiry.month, expYear: expiry.year, cvv: body.cvv, holderName };
}

/**
 * The card rules the schema cannot express, on a body that may not have passed the schema: each is
 * checked where its fields have the right types, so that a form with a malformed e-mail (a schema
 * failure) and a mistyped card number hears of both in one answer. The expiry is checked only with
 * `now`, the merchant's clock, which a route's `fieldChecks` does not have.
 * @example cardFieldChecks({ number: '4111 1111 1111 1112', cvv: '12' }) // number (Luhn) and cvv failures
 */
export function cardFieldChecks(body: unknown, now?: Date): Failure[] {
  const failures: Failure[] = [];
  if (body === null || typeof body !== 'object') return failures;
  const { number, exp_month: month, exp_year: year, cvv, holder_name: holderName } = body as Record<string, unknown>;
  const checked = typeof number === 'string' ? checkNumber(number, failures) : null;
  if (now && (typeof month === 'string' || typeof month === 'number') && (typeof year === 'string' || typeof year === 'number')) {
    const expiry = validateExpiry(month, year, now);
    if (!expiry.ok) failures.push(EXPIRY_MESSAGES[expiry.reason]);
  }
  if (typeof cvv === 'string') checkCvv(cvv, checked?.scheme ?? null, failures);
  if (typeof holderName === 'string') checkHolderName(holderName, failures);
  return failures;
}

function checkHolderName(input: string, failures: Failure[]): string {
  const holderName = input.trim();
  if (holderName === '') failures.push({ key: 'FIELD_TOO_SHORT', description: 'holder_name: must not be blank.' });
  else if (DIGIT_RUN_IN_NAME.test(holderName.replace(/[ -]/g, ''))) {
    failures.push({ key: 'FIELD_FORMAT', description: 'holder_name: must be the name printed on the card, not a number.' });
  }
  return holderName;
}

/** The created card, as the response shows it. */
export interface CreatedCard {
  readonly cardId: string;
  readonly scheme: CardScheme;
  readonly maskedNumber: string;
}

/**
 * Checks, verifies with the processor and stores a card of one of the merchant's persons.
 * @example const card = await createCard(ctx, merchantId, request.body); // { cardId, scheme: 'VISA', maskedNumber: '411111******1111' }
 */
export async function createCard(ctx: AppContext, merchantId: string, body: CreateCardRequest): Promise<CreatedCard> {
  const card = normaliseCard(body, await merchantNow(ctx.db, merchantId));

  const person = await findPerson(ctx.db, merchantId, body.public_person_id);
  if (!person) throw new ApiError('PERSON_NOT_FOUND', 'public_person_id: person not found.');

  // The id is chosen before verification so the processor's reference names this card; nothing is
  // written under it unless the verification is approved.
  const cardId = randomUUID();
  const result = await verify(ctx, merchantId, cardId, card);
  if (result.status !== 'APPROVED') {
    throw new ApiError('CARD_VERIFICATION_FAILED', `The processor declined the card verification (${result.description}); nothing was stored.`);
  }

  if (card.number.length < SHORTEST_ACCEPTED_NUMBER) throw new Error('invariant: accepted card numbers have at least 14 digits');
  const maskedNumber = maskCardNumber(card.number);
  const { keyId, ciphertext } = ctx.secretBox.encrypt(card.number);
  await ctx.db
    .insertInto('cards')
    .values({
      id: cardId,
      merchant_id: merchantId,
      person_id: person.id,
      scheme: card.scheme,
      bin: card.number.slice(0, 6),
      last4: card.number.slice(-4),
      masked_number: maskedNumber,
      exp_month: card.expMonth,
      exp_year: card.expYear,
      holder_name: card.holderName,
      number_ciphertext: ciphertext,
      key_id: keyId,
    })
    .execute();
  return { cardId, scheme: card.scheme, maskedNumber };
}

/**
 * The processor's verification. Both transport failures answer 502 and store nothing: after
 * `ProcessorUnavailableError` nothing happened; after `ProcessorTimeoutError` the processor may have
 * verified the card, but a verification moves no money, so there is nothing to reconcile and the
 * client simply retries (under a new card id and reference).
 */
async function verify(ctx: AppContext, merchantId: string, cardId: string, card: CardFields): Promise<OperationResult> {
  try {
    return await ctx.processor.verifyCard({
      merchantId,
      reference: `${cardId}:verify`,
      card: { number: card.number, expMonth: card.expMonth, expYear: card.expYear, holderName: card.holderName, scheme: card.scheme },
      cvv: card.cvv,
    });
  } catch (error) {
    if (error instanceof ProcessorUnavailableError || error instanceof ProcessorTimeoutError) {
      throw new ApiError('EXTERNAL_API');
    }
    throw error;
  }
}
