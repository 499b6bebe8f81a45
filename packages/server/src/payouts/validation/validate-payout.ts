/**
 * Validation of payout items for the Andean countries (CO, PE, CL), as a pure function of the request body.
 *
 * The checks run in one fixed order (documented in docs/payouts.md, "Validation rules", and mirrored by
 * `PAYOUT_RULES`), so the same bad item always gets the same answer. Within one field the first failing
 * rule is the only one reported, since later rules of a field assume the earlier ones hold; different
 * fields are all checked and each reports its own problem. A rule that depends on another field (the
 * account number format depends on the account type and bank) is skipped while that other field is
 * itself missing or invalid, so a single mistake is reported once, where it was made.
 *
 * The item's own fields are checked here; the recipient object in recipient.ts, with the rules of its
 * country in one file each (colombia.ts, peru.ts, chile.ts); the common readers in fields.ts. Amounts are
 * read by lib/money.ts, the decimal parser every amount of the API goes through.
 *
 * Contract ownership is not checked here: that needs the database and belongs to the server.
 */
import { MAX_AMOUNT_MINOR, formatAmount, readDecimal, toMinorUnits } from '../../lib/money';
import { CURRENCIES, CURRENCY_EXPONENTS, isCurrency, type Currency } from '../../lib/currencies';
import {
  ANDEAN_COUNTRIES,
  ANDEAN_COUNTRY_CURRENCY,
  ANDEAN_CURRENCIES,
  isAndeanCountry,
  isAndeanCurrency,
} from '../../rails/andean/countries';
import type { AndeanCountry, AndeanCurrency } from '../../rails/andean/countries';
import { Issues, isAbsent, isJsonObject, kindOf, quoted, requiredEnum, requiredString, type JsonObject } from './fields';
import { checkRecipient } from './recipient';
import type { PayoutIssue } from './rules';
import { PAYOUT_METHODS, RECIPIENT_FIELDS } from './types';
import type { ValidPayoutItem } from './types';

/** The name of the request body's array of payout items, used as the root of every issue path. */
export const PAYOUT_BATCH_FIELD = 'payoutTransactions';

/** The longest accepted `notification_url`, in characters. */
export const NOTIFICATION_URL_MAX_LENGTH = 2048;

/** The result of {@link parsePayoutItem}: the typed item when every rule passes, the issues otherwise. */
export type ParsePayoutItemResult =
  | { readonly ok: true; readonly item: ValidPayoutItem }
  | { readonly ok: false; readonly issues: readonly PayoutIssue[] };

/** The result of {@link parsePayoutBatch}. */
export type ParsePayoutBatchResult =
  | { readonly ok: true; readonly items: readonly ValidPayoutItem[] }
  | { readonly ok: false; readonly issues: readonly PayoutIssue[] };

/**
 * `payment_currency`: the currency paid out, always the currency of `payment_country` (COP, PEN, CLP).
 */
function checkPaymentCurrency(issues: Issues, item: JsonObject, path: string, country: AndeanCountry | undefined): AndeanCurrency | undefined {
  const value = requiredString(issues, item, 'payment_currency', path);
  if (value === undefined) return undefined;
  if (!isAndeanCurrency(value)) {
    return issues.add(path, 'UNSUPPORTED_CURRENCY', `payment_currency must be one of ${ANDEAN_CURRENCIES.join(', ')}; got ${quoted(value)}.`);
  }
  if (country !== undefined && ANDEAN_COUNTRY_CURRENCY[country] !== value) {
    return issues.add(path, 'CURRENCY_NOT_OF_COUNTRY', `payment_currency must be ${ANDEAN_COUNTRY_CURRENCY[country]} for payment_country ${country}; got ${quoted(value)}.`);
  }
  return value;
}

/**
 * `original_currency`: the currency the merchant states the amount in. Any of Colibri's currencies
 * (lib/currencies.ts): when it is not `payment_currency` the amount is converted at the stored rate and the
 * rate is kept on the payout (docs/payouts.md, "FX"); whether a rate exists is checked when the batch is priced.
 */
function checkOriginalCurrency(issues: Issues, item: JsonObject, path: string): Currency | undefined {
  const value = requiredString(issues, item, 'original_currency', path);
  if (value === undefined) return undefined;
  if (!isCurrency(value)) return issues.add(path, 'UNSUPPORTED_CURRENCY', `original_currency must be one of ${CURRENCIES.join(', ')}; got ${quoted(value)}.`);
  return value;
}

/**
 * Checks the amount on its decimal string form: a JSON number is read through `String(n)`, its shortest
 * exact decimal form, so no float arithmetic is ever done. Trailing zeros after the point are not counted
 * as decimals (`"1000.00"` CLP is 1000), which keeps the string form in step with the number form, where
 * `1000.00` arrives as `1000`. When neither the country nor the currency is known the number of decimals
 * cannot be judged, and only the form and the sign are checked.
 */
function checkAmount(
  issues: Issues,
  item: JsonObject,
  path: string,
  currency: Currency | undefined,
): { decimal: string; minor: bigint } | undefined {
  const raw = item.original_amount;
  if (isAbsent(raw)) return issues.add(path, 'REQUIRED', 'original_amount is required.');
  if (typeof raw !== 'number' && typeof raw !== 'string') {
    return issues.add(path, 'AMOUNT_INVALID', `original_amount must be a JSON number or a decimal string; got ${kindOf(raw)}.`);
  }
  const text = typeof raw === 'number' ? String(raw) : raw;
  const parts = readDecimal(text);
  if (!parts) {
    const why = /e/i.test(text) && typeof raw === 'number' ? ' (this number only has an exponent form; send it as a decimal string)' : '';
    return issues.add(
      path,
      'AMOUNT_INVALID',
      `original_amount must be a plain decimal such as 1500.50, with no exponent, spaces, currency symbols or thousands separators${why}.`,
    );
  }
  if (parts.negative || !/[1-9]/.test(parts.whole + parts.fraction)) {
    return issues.add(path, 'AMOUNT_NOT_POSITIVE', 'original_amount must be greater than zero.');
  }
  if (currency === undefined) return undefined;
  const exponent = CURRENCY_EXPONENTS[currency];
  if (parts.fraction.length > exponent) {
    const allowed = exponent === 0 ? 'no decimals' : `at most ${exponent} decimals`;
    return issues.add(path, 'AMOUNT_DECIMALS', `original_amount must have ${allowed} for ${currency}.`);
  }
  const minor = toMinorUnits(parts, exponent);
  if (minor === undefined) {
    // The form, the sign and the decimals were checked above, so only the size can still be wrong.
    return issues.add(
      path,
      'AMOUNT_TOO_LARGE',
      `original_amount must be at most ${formatAmount(MAX_AMOUNT_MINOR, exponent)} ${currency}.`,
    );
  }
  return { decimal: formatAmount(minor, exponent), minor };
}

function checkContractId(issues: Issues, item: JsonObject, path: string): string | undefined {
  const raw = item.contract_id;
  if (isAbsent(raw)) return issues.add(path, 'REQUIRED', 'contract_id is required.');
  if (typeof raw === 'string') return raw;
  // The interface does not type contract_id, so an integer id is accepted and carried as a string.
  if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw > 0) return String(raw);
  return issues.add(path, 'CONTRACT_ID_INVALID', `contract_id must be a non-empty string or a positive integer; got ${kindOf(raw)}.`);
}

function checkNotificationUrl(issues: Issues, item: JsonObject, path: string): string | undefined {
  const value = requiredString(issues, item, 'notification_url', path);
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const valid =
    url !== undefined &&
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.hostname !== '' &&
    !/\s/.test(value) &&
    value.length <= NOTIFICATION_URL_MAX_LENGTH;
  if (!valid) {
    return issues.add(
      path,
      'NOTIFICATION_URL_INVALID',
      `notification_url must be an absolute http or https URL of at most ${NOTIFICATION_URL_MAX_LENGTH} characters, with no spaces.`,
    );
  }
  return value;
}

/**
 * Validates one payout item and, when it passes every rule, returns it typed and normalised.
 * @example
 * const result = parsePayoutItem(body.payoutTransactions[0], 0);
 * if (!result.ok) reply.code(400).send({ issues: result.issues });
 * else await createPayout(result.item); // result.item.original_amount_minor is a bigint
 */
export function parsePayoutItem(item: unknown, index: number): ParsePayoutItemResult {
  const issues = new Issues();
  const base = `${PAYOUT_BATCH_FIELD}[${index}]`;
  const at = (field: string): string => `${base}.${field}`;

  if (!isJsonObject(item)) {
    issues.add(base, 'ITEM_NOT_AN_OBJECT', `${base} must be a JSON object; got ${kindOf(item)}.`);
    return { ok: false, issues: issues.list };
  }

  const rawCountry = requiredString(issues, item, 'payment_country', at('payment_country'));
  let country: AndeanCountry | undefined;
  if (rawCountry !== undefined) {
    if (isAndeanCountry(rawCountry)) country = rawCountry;
    else issues.add(at('payment_country'), 'UNSUPPORTED_COUNTRY', `payment_country must be one of ${ANDEAN_COUNTRIES.join(', ')}; got ${quoted(rawCountry)}.`);
  }

  const originalCurrency = checkOriginalCurrency(issues, item, at('original_currency'));
  const paymentCurrency = checkPaymentCurrency(issues, item, at('payment_currency'), country);
  // The amount is in original_currency, whose decimals it may have; without a valid one, the country's currency's.
  const amountCurrency = originalCurrency ?? (country !== undefined ? ANDEAN_COUNTRY_CURRENCY[country] : undefined);
  const amount = checkAmount(issues, item, at('original_amount'), amountCurrency);

  const payoutMethod = requiredEnum(
    issues, item, 'payout_method', at('payout_method'), PAYOUT_METHODS, 'UNSUPPORTED_PAYOUT_METHOD', '',
  );
  const contractId = checkContractId(issues, item, at('contract_id'));
  const referenceId = requiredString(issues, item, 'reference_id', at('reference_id'));
  const notificationUrl = checkNotificationUrl(issues, item, at('notification_url'));

  // Without a valid country it is unknown which recipient object is expected, so none is checked. The
  // other countries' objects are checked for absence before the expected object's fields are walked.
  let recipient: Record<string, string> | undefined;
  if (country !== undefined) {
    const field = RECIPIENT_FIELDS[country];
    const value = item[field];
    if (value === undefined || value === null) {
      issues.add(at(field), 'REQUIRED_OBJECT_MISSING', `${field} is required when payment_country is ${country}.`);
    } else if (!isJsonObject(value)) {
      issues.add(at(field), 'REQUIRED_OBJECT_NOT_AN_OBJECT', `${field} must be a JSON object with the recipient's bank data; got ${kindOf(value)}.`);
    }
    for (const other of ANDEAN_COUNTRIES) {
      const otherField = RECIPIENT_FIELDS[other];
      if (other !== country && item[otherField] !== undefined && item[otherField] !== null) {
        issues.add(at(otherField), 'REQUIRED_OBJECT_NOT_ALLOWED', `${otherField} must be absent when payment_country is ${country}.`);
      }
    }
    if (isJsonObject(value)) recipient = checkRecipient(issues, country, value, at(field));
  }

  if (
    issues.list.length > 0 ||
    country === undefined ||
    amount === undefined ||
    payoutMethod === undefined ||
    contractId === undefined ||
    referenceId === undefined ||
    notificationUrl === undefined ||
    originalCurrency === undefined ||
    paymentCurrency === undefined ||
    recipient === undefined
  ) {
    return { ok: false, issues: issues.list };
  }
  // Every field was checked against its country's enumerations above, which is what makes these casts sound.
  const valid = {
    original_amount: amount.decimal,
    original_amount_minor: amount.minor,
    original_currency: originalCurrency,
    payment_currency: paymentCurrency,
    payment_country: country,
    payout_method: payoutMethod,
    contract_id: contractId,
    reference_id: referenceId,
    notification_url: notificationUrl,
    [RECIPIENT_FIELDS[country]]: recipient,
  } as unknown as ValidPayoutItem;
  return { ok: true, item: valid };
}

/**
 * Validates one payout item of a batch. Returns every issue found, in the documented rule order; an
 * empty array means the item is valid.
 * @example
 * validatePayoutItem({ payment_country: 'AR' }, 2)[0]
 * // { path: 'payoutTransactions[2].payment_country', rule: 'UNSUPPORTED_COUNTRY', description: 'payment_country must be one of CO, PE, CL; got "AR".' }
 */
export function validatePayoutItem(item: unknown, index: number): PayoutIssue[] {
  const result = parsePayoutItem(item, index);
  return result.ok ? [] : [...result.issues];
}

/**
 * Validates a whole batch: an empty batch is refused, and each item's issues carry its index in the path.
 * @example
 * validatePayoutBatch([])
 * // [{ path: 'payoutTransactions', rule: 'BATCH_EMPTY', description: 'payoutTransactions must contain at least one payout item.' }]
 */
export function validatePayoutBatch(items: readonly unknown[]): PayoutIssue[] {
  const result = parsePayoutBatch(items);
  return result.ok ? [] : [...result.issues];
}

/**
 * Validates a whole batch and, when every item passes, returns the typed items in order.
 * @example
 * const result = parsePayoutBatch(body.payoutTransactions);
 * if (result.ok) for (const item of result.items) console.log(item.reference_id, item.original_amount);
 */
export function parsePayoutBatch(items: readonly unknown[]): ParsePayoutBatchResult {
  if (items.length === 0) {
    return {
      ok: false,
      issues: [{ path: PAYOUT_BATCH_FIELD, rule: 'BATCH_EMPTY', description: `${PAYOUT_BATCH_FIELD} must contain at least one payout item.` }],
    };
  }
  const valid: ValidPayoutItem[] = [];
  const issues: PayoutIssue[] = [];
  items.forEach((item, index) => {
    const result = parsePayoutItem(item, index);
    if (result.ok) valid.push(result.item);
    else issues.push(...result.issues);
  });
  return issues.length === 0 ? { ok: true, items: valid } : { ok: false, issues };
}
