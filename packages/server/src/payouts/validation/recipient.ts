/**
 * The recipient object of a payout item (`required_CO`, `required_PE`, `required_CL`): its fields in
 * their fixed order, with the rules of the item's country (colombia.ts, peru.ts, chile.ts).
 */
import { isAllowedBankCode } from '../../rails/andean/banks';
import type { AndeanCountry } from '../../rails/andean/countries';
import { CHILE } from './chile';
import { COLOMBIA } from './colombia';
import { optionalString, quoted, requiredEnum, requiredString, type CountryRules, type Issues, type JsonObject } from './fields';
import { PERU } from './peru';
import { ACCOUNT_TYPES, TAX_ID_TYPES } from './types';

/** The rules of each payout country. */
export const COUNTRY_RULES: Readonly<Record<AndeanCountry, CountryRules>> = { CO: COLOMBIA, PE: PERU, CL: CHILE };

/** The longest accepted `full_name`, in Unicode code points. */
export const FULL_NAME_MAX_LENGTH = 100;

/** The longest accepted `email`, the limit of an address in SMTP. */
export const EMAIL_MAX_LENGTH = 254;

// The syntax of a valid e-mail address in the HTML standard, with at least one dot in the domain
// because payout e-mails go to real mailboxes, never to a bare host name.
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** Validates the recipient object of `country`; returns its fields when all of them pass. */
export function checkRecipient(
  issues: Issues,
  country: AndeanCountry,
  recipient: JsonObject,
  path: string,
): Record<string, string> | undefined {
  const rules = COUNTRY_RULES[country];
  const before = issues.list.length;
  const at = (field: string): string => `${path}.${field}`;
  const values: Record<string, string> = {};

  const accountType = requiredEnum(
    issues, recipient, 'account_type', at('account_type'), ACCOUNT_TYPES[country], 'ACCOUNT_TYPE_NOT_ALLOWED', ` for ${country}`,
  );
  if (accountType !== undefined) values.account_type = accountType;

  const rawBankCode = rules.bankCodeOptional(accountType)
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
    const failed = rules.accountNumberRule(accountType, bankCode, accountNumber, rawTaxId);
    if (failed) issues.add(at('account_number'), failed[0], failed[1]);
    else values.account_number = accountNumber;
  }

  const taxIdType = requiredEnum(
    issues, recipient, 'tax_id_type', at('tax_id_type'), TAX_ID_TYPES[country], 'TAX_ID_TYPE_NOT_ALLOWED', ` for ${country}`,
  );
  if (taxIdType !== undefined) values.tax_id_type = taxIdType;
  const taxId = requiredString(issues, recipient, 'tax_id', at('tax_id'));
  if (taxId !== undefined && taxIdType !== undefined) {
    const failed = rules.taxIdRule(taxIdType, taxId);
    if (failed) issues.add(at('tax_id'), failed[0], failed[1]);
    else values.tax_id = taxId;
  }

  const email = rules.emailRequired
    ? requiredString(issues, recipient, 'email', at('email'), ` for payment_country ${country}`)
    : optionalString(issues, recipient, 'email', at('email'));
  if (email !== undefined) {
    if (email.length <= EMAIL_MAX_LENGTH && EMAIL.test(email)) values.email = email;
    else issues.add(at('email'), 'EMAIL_FORMAT', `email must be an e-mail address such as name@example.com, of at most ${EMAIL_MAX_LENGTH} characters.`);
  }

  const fullName = rules.fullNameRequired
    ? requiredString(issues, recipient, 'full_name', at('full_name'), ` for payment_country ${country}`)
    : optionalString(issues, recipient, 'full_name', at('full_name'));
  if (fullName !== undefined) {
    // Counted in code points so that a name is not cut short by characters outside the BMP.
    if ([...fullName.trim()].length <= FULL_NAME_MAX_LENGTH) values.full_name = fullName.trim();
    else issues.add(at('full_name'), 'FULL_NAME_TOO_LONG', `full_name must be at most ${FULL_NAME_MAX_LENGTH} characters.`);
  }

  const across = rules.acrossFieldsRule?.(values);
  if (across) issues.add(at(across.field), across.rule, across.description);

  return issues.list.length === before ? values : undefined;
}
