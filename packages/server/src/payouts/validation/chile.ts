/** Payout rules of Chile (CL): sight and RUT accounts (CV), BancoEstado's CuentaRUT, and the RUT. */
import { CL_STATE_BANK_CODE } from '../../rails/andean/banks';
import { checkRut } from '../../rails/andean/rut';
import { ACCOUNT_NUMBER_FORMAT, DIGITS_1_TO_20, type CountryRules, type RuleResult } from './fields';

function accountNumberRule(accountType: string | undefined, bankCode: string | undefined, accountNumber: string, taxId: string | undefined): RuleResult {
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

/** RUT is Chile's only tax_id_type (types.ts). */
function taxIdRule(taxIdType: string, taxId: string): RuleResult {
  const about = `for tax_id_type ${taxIdType}`;
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

export const CHILE: CountryRules = {
  country: 'CL',
  bankCodeOptional: () => false,
  accountNumberRule,
  taxIdRule,
  emailRequired: false,
  fullNameRequired: true,
};
