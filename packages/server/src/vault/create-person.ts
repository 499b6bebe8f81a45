import type { Db } from '../db/database';
import { ApiError, type ErrorKey } from '../http/errors';
import { validateTaxId, type TaxIdFailureReason, type TaxIdType } from '../rails/brazil';
import type { CreatePersonRequest } from './schemas';

/**
 * `POST /checkout/person`: a merchant's customer, whose `public_person_id` later owns cards and
 * payments. Phases: check and normalise every field (reporting all failures at once) → store.
 */

/** A person's fields as stored: trimmed, the tax id compact, the phone in E.164. */
export interface PersonFields {
  readonly name: string;
  readonly email: string;
  readonly taxIdType: TaxIdType;
  readonly taxId: string;
  readonly phone: string | null;
}

// The descriptions name the rule, never the value: error descriptions are logged, and a tax id is
// personal data (logger.ts redacts it wherever it is logged as a field).
export const TAX_ID_MESSAGES: Record<TaxIdType, Record<TaxIdFailureReason, string>> = {
  CPF: {
    INVALID_CHARACTERS: 'tax_id: a CPF may contain only digits, with ".", "-" or spaces as separators.',
    INVALID_LENGTH: 'tax_id: a CPF has 11 digits.',
    INVALID_FORMAT: 'tax_id: is not a valid CPF.',
    REPEATED_DIGITS: 'tax_id: a CPF whose digits are all the same is never issued.',
    INVALID_CHECK_DIGITS: 'tax_id: the check digits do not match; this is not a valid CPF.',
  },
  CNPJ: {
    INVALID_CHARACTERS: 'tax_id: a CNPJ may contain only letters A-Z and digits, with ".", "/", "-" or spaces as separators.',
    INVALID_LENGTH: 'tax_id: a CNPJ has 14 characters.',
    INVALID_FORMAT: 'tax_id: the last two characters of a CNPJ (its check digits) must be digits.',
    REPEATED_DIGITS: 'tax_id: a CNPJ whose digits are all the same is never issued.',
    INVALID_CHECK_DIGITS: 'tax_id: the check digits do not match; this is not a valid CNPJ.',
  },
};

/** E.164 allows at most 15 digits; 8 is the shortest country code and subscriber number in use. */
const E164 = /^\+[1-9][0-9]{7,14}$/;
const PHONE_SEPARATORS = /[\s().-]/g;

/**
 * Normalises a phone number to E.164 (`+` and digits only), or returns null when it is not one.
 * The leading `+` is required: without it a national number such as `11 98765-4321` cannot be told
 * apart from an international one, and guessing the country would store a wrong number.
 * @example normalisePhone('+55 (11) 98765-4321') // '+5511987654321'
 * @example normalisePhone('11987654321')          // null
 */
export function normalisePhone(input: string): string | null {
  const compact = input.trim().replace(PHONE_SEPARATORS, '');
  return E164.test(compact) ? compact : null;
}

/**
 * Checks the rules the schema cannot express and returns the fields to store; every failing field is
 * reported together, in the order of the request's fields.
 * @example normalisePerson({ name: 'Ana', email: 'ana@example.com', tax_id: '123.456.789-09', tax_id_type: 'CPF' })
 * // { name: 'Ana', email: 'ana@example.com', taxIdType: 'CPF', taxId: '12345678909', phone: null }
 */
export function normalisePerson(body: CreatePersonRequest): PersonFields {
  const failures = personFieldChecks(body);
  const taxId = validateTaxId(body.tax_id_type, body.tax_id);
  if (failures.length > 0 || !taxId.ok) throw ApiError.fields(failures);
  return { name: body.name.trim(), email: body.email, taxIdType: body.tax_id_type, taxId: taxId.value, phone: body.phone === undefined ? null : normalisePhone(body.phone) };
}

/**
 * The person rules the schema cannot express, on a body that may not have passed the schema: each is
 * checked where its fields have the right types, so a request with a malformed e-mail and a wrong CPF
 * hears of both in one answer (the route's `fieldChecks`, http/error-handler.ts).
 * @example personFieldChecks({ tax_id_type: 'CPF', tax_id: '12345678900' }) // [{ key: 'TAX_ID_INVALID', description: 'tax_id: the check digits do not match; …' }]
 */
export function personFieldChecks(body: unknown): { key: ErrorKey; description: string }[] {
  const failures: { key: ErrorKey; description: string }[] = [];
  if (body === null || typeof body !== 'object') return failures;
  const { name, tax_id: taxId, tax_id_type: type, phone } = body as Record<string, unknown>;
  if (typeof name === 'string' && name.trim() === '') failures.push({ key: 'FIELD_TOO_SHORT', description: 'name: must not be blank.' });
  if ((type === 'CPF' || type === 'CNPJ') && typeof taxId === 'string') {
    const checked = validateTaxId(type, taxId);
    if (!checked.ok) failures.push({ key: 'TAX_ID_INVALID', description: TAX_ID_MESSAGES[type][checked.reason] });
  }
  if (typeof phone === 'string' && normalisePhone(phone) === null) {
    failures.push({
      key: 'FIELD_FORMAT',
      description: 'phone: must be an E.164 number: "+", the country code and the number, 8 to 15 digits in all (spaces, hyphens, dots and parentheses are ignored).',
    });
  }
  return failures;
}

/**
 * Creates a person for a merchant and returns its public id.
 * @example const { personId } = await createPerson(ctx.db, merchantId, request.body);
 */
export async function createPerson(db: Db, merchantId: string, body: CreatePersonRequest): Promise<{ personId: string }> {
  const person = normalisePerson(body);
  const row = await db
    .insertInto('persons')
    .values({
      merchant_id: merchantId,
      name: person.name,
      email: person.email,
      tax_id_type: person.taxIdType,
      tax_id: person.taxId,
      phone: person.phone,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { personId: row.id };
}
