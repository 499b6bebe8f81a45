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
 * Contract ownership is not checked here: that needs the database and belongs to the server.
 */
import { MAX_AMOUNT_MINOR, formatAmount, parseAmount } from '../../lib/money';
import { CURRENCY_EXPONENTS } from '../../pricing/currencies';
import { CL_STATE_BANK_CODE, PE_BCP_BANK_CODE, isAllowedBankCode } from '../../rails/andean/banks';
import { checkCci } from '../../rails/andean/cci';
import {
  ANDEAN_COUNTRIES,
  ANDEAN_COUNTRY_CURRENCY,
  ANDEAN_CURRENCIES,
  isAndeanCountry,
  isAndeanCurrency,
} from '../../rails/andean/countries';
import type { AndeanCountry, AndeanCurrency } from '../../rails/andean/countries';
import { DNI_LENGTH, isValidDni } from '../../rails/andean/dni';
import { checkNit } from '../../rails/andean/nit';
import { RUC_PREFIXES, checkRuc } from '../../rails/andean/ruc';
import { checkRut } from '../../rails/andean/rut';
import type { PayoutIssue, PayoutRule } from './rules';
import { ACCOUNT_TYPES, PAYOUT_METHODS, RECIPIENT_FIELDS, TAX_ID_TYPES } from './types';
import type { ValidPayoutItem } from './types';

/** The name of the request body's array of payout items, used as the root of every issue path. */
export const PAYOUT_BATCH_FIELD = 'payoutTransactions';

/** The longest accepted `full_name`, in Unicode code points. */
export const FULL_NAME_MAX_LENGTH = 100;

/** The longest accepted `notification_url`, in characters. */
export const NOTIFICATION_URL_MAX_LENGTH = 2048;

/** The longest accepted `email`, the limit of an address in SMTP. */
export const EMAIL_MAX_LENGTH = 254;

/** The result of {@link parsePayoutItem}: the typed item when every rule passes, the issues otherwise. */
export type ParsePayoutItemResult =
  | { readonly ok: true; readonly item: ValidPayoutItem }
  | { readonly ok: false; readonly issues: readonly PayoutIssue[] };

/** The result of {@link parsePayoutBatch}. */
export type ParsePayoutBatchResult =
  | { readonly ok: true; readonly items: readonly ValidPayoutItem[] }
  | { readonly ok: false; readonly issues: readonly PayoutIssue[] };

type JsonObject = Record<string, unknown>;

// A field that failed a rule is reported through `Issues` and then read as `undefined`, which is what
// lets dependent rules skip it.
class Issues {
  readonly list: PayoutIssue[] = [];

  add(path: string, rule: PayoutRule, description: string): undefined {
    this.list.push({ path, rule, description });
    return undefined;
  }
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

// Enumerated values are echoed back in descriptions; free-form recipient data (account numbers, tax ids,
// names, e-mail addresses) never is, so issues can be logged without leaking personal data.
function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** Reads a required string: missing, null and blank give REQUIRED, other types NOT_A_STRING. */
function requiredString(
  issues: Issues,
  object: JsonObject,
  field: string,
  path: string,
  requiredWhy = '',
): string | undefined {
  const value = object[field];
  if (isAbsent(value)) return issues.add(path, 'REQUIRED', `${field} is required${requiredWhy}.`);
  if (typeof value !== 'string') return issues.add(path, 'NOT_A_STRING', `${field} must be a string; got ${kindOf(value)}.`);
  return value;
}

/**
 * Reads an optional string. Missing, null and blank all mean "not given", because clients commonly send
 * empty strings for optional fields they do not have; any other non-string is NOT_A_STRING.
 */
function optionalString(issues: Issues, object: JsonObject, field: string, path: string): string | undefined {
  const value = object[field];
  if (isAbsent(value)) return undefined;
  if (typeof value !== 'string') return issues.add(path, 'NOT_A_STRING', `${field} must be a string; got ${kindOf(value)}.`);
  return value;
}

function requiredEnum<T extends string>(
  issues: Issues,
  object: JsonObject,
  field: string,
  path: string,
  allowed: readonly T[],
  rule: PayoutRule,
  context: string,
): T | undefined {
  const value = requiredString(issues, object, field, path);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    return issues.add(path, rule, `${field} must be one of ${allowed.join(', ')}${context}; got ${quoted(value)}.`);
  }
  return value as T;
}

function checkCurrency(
  issues: Issues,
  item: JsonObject,
  field: string,
  path: string,
  country: AndeanCountry | undefined,
): AndeanCurrency | undefined {
  const value = requiredString(issues, item, field, path);
  if (value === undefined) return undefined;
  if (!isAndeanCurrency(value)) {
    return issues.add(path, 'UNSUPPORTED_CURRENCY', `${field} must be one of ${ANDEAN_CURRENCIES.join(', ')}; got ${quoted(value)}.`);
  }
  if (country !== undefined && ANDEAN_COUNTRY_CURRENCY[country] !== value) {
    return issues.add(
      path,
      'CURRENCY_NOT_OF_COUNTRY',
      `${field} must be ${ANDEAN_COUNTRY_CURRENCY[country]} for payment_country ${country}; got ${quoted(value)}.`,
    );
  }
  return value;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

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
  currency: AndeanCurrency | undefined,
): { decimal: string; minor: bigint } | undefined {
  const raw = item.original_amount;
  if (isAbsent(raw)) return issues.add(path, 'REQUIRED', 'original_amount is required.');
  if (typeof raw !== 'number' && typeof raw !== 'string') {
    return issues.add(path, 'AMOUNT_INVALID', `original_amount must be a JSON number or a decimal string; got ${kindOf(raw)}.`);
  }
  const text = typeof raw === 'number' ? String(raw) : raw;
  const match = DECIMAL.exec(text);
  if (!match) {
    const why = /e/i.test(text) && typeof raw === 'number' ? ' (this number only has an exponent form; send it as a decimal string)' : '';
    return issues.add(
      path,
      'AMOUNT_INVALID',
      `original_amount must be a plain decimal such as 1500.50, with no exponent, spaces, currency symbols or thousands separators${why}.`,
    );
  }
  const [, sign = '', whole = '', fraction = ''] = match;
  if (sign === '-' || !/[1-9]/.test(whole + fraction)) {
    return issues.add(path, 'AMOUNT_NOT_POSITIVE', 'original_amount must be greater than zero.');
  }
  if (currency === undefined) return undefined;
  const exponent = CURRENCY_EXPONENTS[currency];
  if (fraction.replace(/0+$/, '').length > exponent) {
    const allowed = exponent === 0 ? 'no decimals' : `at most ${exponent} decimals`;
    return issues.add(path, 'AMOUNT_DECIMALS', `original_amount must have ${allowed} for ${currency}.`);
  }
  const parsed = parseAmount(text, exponent);
  if (!parsed.ok) {
    // The form, the sign and the decimals were checked above, so only the size can still be wrong.
    return issues.add(
      path,
      'AMOUNT_TOO_LARGE',
      `original_amount must be at most ${formatAmount(MAX_AMOUNT_MINOR, exponent)} ${currency}.`,
    );
  }
  return { decimal: formatAmount(parsed.minor, exponent), minor: parsed.minor };
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

// The syntax of a valid e-mail address in the HTML standard, with at least one dot in the domain
// because payout e-mails go to real mailboxes, never to a bare host name.
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

const DIGITS_1_TO_20 = /^\d{1,20}$/;
const ALPHANUMERIC_1_TO_15 = /^[A-Za-z0-9]{1,15}$/;

type RuleResult = readonly [PayoutRule, string] | undefined;

const ACCOUNT_NUMBER_FORMAT: RuleResult = [
  'ACCOUNT_NUMBER_FORMAT',
  'account_number must be 1 to 20 digits, with no spaces, hyphens or other characters.',
];

/** The country rules on account_number; `undefined` when they pass or cannot be judged yet. */
function accountNumberRule(
  country: AndeanCountry,
  accountType: string | undefined,
  bankCode: string | undefined,
  accountNumber: string,
  taxId: string | undefined,
): RuleResult {
  switch (country) {
    case 'CO': {
      if (accountType === undefined) return undefined;
      if (accountType !== 'NC') return DIGITS_1_TO_20.test(accountNumber) ? undefined : ACCOUNT_NUMBER_FORMAT;
      if (!accountNumber.startsWith('57')) {
        return [
          'CO_NC_PREFIX_57',
          'account_number must start with the country prefix 57 for account_type NC (a Transfiya cellphone number), as in 573001234567, with no + sign.',
        ];
      }
      if (!/^573\d{9}$/.test(accountNumber)) {
        return [
          'CO_NC_MOBILE_FORMAT',
          'account_number must be 57 followed by a 10-digit Colombian mobile number starting with 3, digits only, for account_type NC.',
        ];
      }
      return undefined;
    }
    case 'PE': {
      if (bankCode === undefined) return undefined;
      if (bankCode === PE_BCP_BANK_CODE) {
        if (accountType === undefined) return undefined;
        if (accountType === 'CM') return DIGITS_1_TO_20.test(accountNumber) ? undefined : ACCOUNT_NUMBER_FORMAT;
        const length = accountType === 'CC' ? 13 : 14;
        if (new RegExp(`^\\d{${length}}$`).test(accountNumber)) return undefined;
        return [
          'PE_BANK_002_ACCOUNT_LENGTH',
          `account_number must be exactly ${length} digits for bank_code ${PE_BCP_BANK_CODE} with account_type ${accountType}.`,
        ];
      }
      const cci = checkCci(accountNumber);
      if (cci.ok) return undefined;
      if (cci.reason === 'FORMAT') {
        return [
          'PE_CCI_FORMAT',
          `account_number must be the interbank account code (CCI) for bank_code ${bankCode}: exactly 20 digits, with no spaces, hyphens or other characters.`,
        ];
      }
      return [
        'PE_CCI_CHECK_DIGIT',
        'account_number is not a valid interbank account code (CCI): its two check digits do not match the rest of the code.',
      ];
    }
    case 'CL': {
      if (accountType === undefined) return undefined;
      if (accountType !== 'CV') return DIGITS_1_TO_20.test(accountNumber) ? undefined : ACCOUNT_NUMBER_FORMAT;
      if (bankCode === undefined) return undefined;
      // The tax id is read leniently here: its own rules report its mistakes, and its body digits are
      // still known when only the check digit or the case of K is wrong.
      const rut = taxId === undefined ? undefined : checkRut(taxId);
      const rutBody = rut !== undefined && (rut.ok || rut.reason !== 'FORMAT') ? rut.body : undefined;
      if (bankCode === CL_STATE_BANK_CODE) {
        const matches = /^[1-9]\d{0,7}$/.test(accountNumber) && (rutBody === undefined || accountNumber === rutBody);
        if (matches) return undefined;
        return [
          'CL_CV_STATE_BANK_ACCOUNT',
          `account_number must be the recipient's RUT number without its check digit (digits only, no dots or hyphen) for account_type CV at BancoEstado (bank_code ${CL_STATE_BANK_CODE}), and tax_id must be that same RUT.`,
        ];
      }
      const plain = accountNumber.replace(/[.-]/g, '').toUpperCase();
      if (rut !== undefined && rutBody !== undefined && (plain === rutBody || plain === rutBody + (rut.ok ? rut.checkDigit : ''))) {
        return [
          'CL_CV_ACCOUNT_IS_RUT',
          `account_number must be the bank account number, not the recipient's RUT, for account_type CV at banks other than BancoEstado (bank_code ${CL_STATE_BANK_CODE}).`,
        ];
      }
      return DIGITS_1_TO_20.test(accountNumber) ? undefined : ACCOUNT_NUMBER_FORMAT;
    }
  }
}

const PE_TAX_ID_LENGTHS: Readonly<Record<string, { readonly exact?: number; readonly max?: number }>> = {
  DNI: { exact: DNI_LENGTH },
  RUC: { exact: 11 },
  CE: { max: 12 },
  PAS: { max: 12 },
};

/** The country rules on tax_id for a known tax_id_type; `undefined` when they pass. */
function taxIdRule(country: AndeanCountry, taxIdType: string, taxId: string): RuleResult {
  const about = `for tax_id_type ${taxIdType}`;
  if (country === 'CO') {
    switch (taxIdType) {
      case 'CC':
        return /^\d{6,10}$/.test(taxId) ? undefined : ['CO_CC_FORMAT', `tax_id must be 6 to 10 digits ${about} (cédula de ciudadanía).`];
      case 'NIT': {
        const nit = checkNit(taxId);
        if (nit.ok) return undefined;
        if (nit.reason === 'FORMAT') {
          return ['CO_NIT_FORMAT', `tax_id must be 9 or 10 digits ${about}: the NIT followed by its check digit, with no dots, spaces or hyphen.`];
        }
        return ['CO_NIT_CHECK_DIGIT', `tax_id has a wrong check digit ${about} (its last digit must be the DIAN check digit of the rest).`];
      }
      case 'CE':
        return ALPHANUMERIC_1_TO_15.test(taxId) ? undefined : ['CO_CE_FORMAT', `tax_id must be 1 to 15 letters or digits ${about} (cédula de extranjería).`];
      case 'TI':
        return /^\d{10,11}$/.test(taxId) ? undefined : ['CO_TI_FORMAT', `tax_id must be 10 or 11 digits ${about} (tarjeta de identidad).`];
      default:
        return ALPHANUMERIC_1_TO_15.test(taxId) ? undefined : ['CO_PP_FORMAT', `tax_id must be 1 to 15 letters or digits ${about} (passport).`];
    }
  }
  if (country === 'PE') {
    const length = PE_TAX_ID_LENGTHS[taxIdType];
    if (length?.exact !== undefined && taxId.length !== length.exact) {
      return ['PE_TAX_ID_LENGTH', `tax_id must be exactly ${length.exact} characters ${about}.`];
    }
    if (length?.max !== undefined && taxId.length > length.max) {
      return ['PE_TAX_ID_LENGTH', `tax_id must be at most ${length.max} characters ${about}.`];
    }
    switch (taxIdType) {
      case 'DNI':
        return isValidDni(taxId) ? undefined : ['PE_DNI_FORMAT', `tax_id must be digits only ${about}.`];
      case 'RUC': {
        const ruc = checkRuc(taxId);
        if (ruc.ok) return undefined;
        if (ruc.reason === 'PREFIX') return ['PE_RUC_PREFIX', `tax_id must start with ${RUC_PREFIXES.slice(0, -1).join(', ')} or ${RUC_PREFIXES.at(-1) ?? ''} ${about}.`];
        if (ruc.reason === 'CHECK_DIGIT') return ['PE_RUC_CHECK_DIGIT', `tax_id has a wrong check digit ${about} (its last digit must be the SUNAT check digit of the rest).`];
        return ['PE_RUC_FORMAT', `tax_id must be digits only ${about}.`];
      }
      case 'CE':
        return /^[A-Za-z0-9]+$/.test(taxId) ? undefined : ['PE_CE_FORMAT', `tax_id must be letters and digits only ${about} (carné de extranjería).`];
      default:
        return /^[A-Za-z0-9]+$/.test(taxId) ? undefined : ['PE_PAS_FORMAT', `tax_id must be letters and digits only ${about} (passport).`];
    }
  }
  const rut = checkRut(taxId);
  if (rut.ok) return undefined;
  switch (rut.reason) {
    case 'FORMAT':
      return ['CL_RUT_FORMAT', `tax_id must be a RUT written 12.345.678-5, 12345678-5 or 123456785 ${about}, with a body of 1 to 8 digits not starting with 0.`];
    case 'CHECK_DIGIT':
      return ['CL_RUT_CHECK_DIGIT', `tax_id has a wrong RUT check digit ${about}.`];
    case 'LOWERCASE_K':
      return ['CL_RUT_LOWERCASE_K', `tax_id must have its check digit K in upper case ${about}.`];
  }
}

/** Validates the recipient object of `country`; returns its fields when all of them pass. */
function checkRecipient(
  issues: Issues,
  country: AndeanCountry,
  recipient: JsonObject,
  path: string,
): Record<string, string> | undefined {
  const before = issues.list.length;
  const at = (field: string): string => `${path}.${field}`;
  const values: Record<string, string> = {};

  const accountType = requiredEnum(
    issues, recipient, 'account_type', at('account_type'), ACCOUNT_TYPES[country], 'ACCOUNT_TYPE_NOT_ALLOWED', ` for ${country}`,
  );
  if (accountType !== undefined) values.account_type = accountType;

  // In CO the bank code may be left out for NC accounts. While account_type is missing or invalid it is
  // not known whether the account is NC, so a missing bank code is not reported then.
  const bankCodeOptional = country === 'CO' && (accountType === undefined || accountType === 'NC');
  const rawBankCode = bankCodeOptional
    ? optionalString(issues, recipient, 'bank_code', at('bank_code'))
    : requiredString(issues, recipient, 'bank_code', at('bank_code'));
  let bankCode: string | undefined;
  if (rawBankCode !== undefined) {
    if (isAllowedBankCode(country, rawBankCode)) bankCode = rawBankCode;
    else issues.add(at('bank_code'), 'BANK_CODE_NOT_ALLOWED', `bank_code must be one of the bank codes allowed for ${country}; got ${quoted(rawBankCode)}.`);
  }
  if (bankCode !== undefined) values.bank_code = bankCode;

  const accountNumber = requiredString(issues, recipient, 'account_number', at('account_number'));
  if (accountNumber !== undefined) {
    const rawTaxId = typeof recipient.tax_id === 'string' ? recipient.tax_id : undefined;
    const failed = accountNumberRule(country, accountType, bankCode, accountNumber, rawTaxId);
    if (failed) issues.add(at('account_number'), failed[0], failed[1]);
    else values.account_number = accountNumber;
  }

  const taxIdType = requiredEnum(
    issues, recipient, 'tax_id_type', at('tax_id_type'), TAX_ID_TYPES[country], 'TAX_ID_TYPE_NOT_ALLOWED', ` for ${country}`,
  );
  if (taxIdType !== undefined) values.tax_id_type = taxIdType;
  const taxId = requiredString(issues, recipient, 'tax_id', at('tax_id'));
  if (taxId !== undefined && taxIdType !== undefined) {
    const failed = taxIdRule(country, taxIdType, taxId);
    if (failed) issues.add(at('tax_id'), failed[0], failed[1]);
    else values.tax_id = taxId;
  }

  const email =
    country === 'PE'
      ? requiredString(issues, recipient, 'email', at('email'), ` for payment_country ${country}`)
      : optionalString(issues, recipient, 'email', at('email'));
  if (email !== undefined) {
    if (email.length <= EMAIL_MAX_LENGTH && EMAIL.test(email)) values.email = email;
    else issues.add(at('email'), 'EMAIL_FORMAT', `email must be an e-mail address such as name@example.com, of at most ${EMAIL_MAX_LENGTH} characters.`);
  }

  const fullName =
    country === 'CO'
      ? optionalString(issues, recipient, 'full_name', at('full_name'))
      : requiredString(issues, recipient, 'full_name', at('full_name'), ` for payment_country ${country}`);
  if (fullName !== undefined) {
    // Counted in code points so that a name is not cut short by characters outside the BMP.
    if ([...fullName.trim()].length <= FULL_NAME_MAX_LENGTH) values.full_name = fullName.trim();
    else issues.add(at('full_name'), 'FULL_NAME_TOO_LONG', `full_name must be at most ${FULL_NAME_MAX_LENGTH} characters.`);
  }

  // Checked last, once bank_code and the CCI have each passed on their own: a CCI names its bank in its
  // first three digits, and a transfer sent to one bank cannot credit an account held at another.
  if (country === 'PE' && values.bank_code !== undefined && values.bank_code !== PE_BCP_BANK_CODE && values.account_number !== undefined) {
    const cciBank = values.account_number.slice(0, 3);
    if (cciBank !== values.bank_code) {
      issues.add(
        at('account_number'),
        'PE_CCI_BANK_MISMATCH',
        `account_number is an interbank account code (CCI) of bank ${cciBank}, not of bank_code ${values.bank_code}: its first three digits must be the bank code.`,
      );
    }
  }

  return issues.list.length === before ? values : undefined;
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

  const originalCurrency = checkCurrency(issues, item, 'original_currency', at('original_currency'), country);
  const paymentCurrency = checkCurrency(issues, item, 'payment_currency', at('payment_currency'), country);
  // The decimals allowed come from the country's currency; without a valid country, from the currency sent.
  const amountCurrency = country !== undefined ? ANDEAN_COUNTRY_CURRENCY[country] : originalCurrency;
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
