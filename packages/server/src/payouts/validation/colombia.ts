/** Payout rules of Colombia (CO): Transfiya cellphone accounts (NC), and the Colombian tax ids. */
import { checkNit } from '../../rails/andean/nit';
import { ACCOUNT_NUMBER_FORMAT, DIGITS_1_TO_20, type CountryRules, type RuleResult } from './fields';

const ALPHANUMERIC_1_TO_15 = /^[A-Za-z0-9]{1,15}$/;

function accountNumberRule(accountType: string | undefined, _bankCode: string | undefined, accountNumber: string): RuleResult {
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

function taxIdRule(taxIdType: string, taxId: string): RuleResult {
  const about = `for tax_id_type ${taxIdType}`;
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

export const COLOMBIA: CountryRules = {
  country: 'CO',
  // The bank code may be left out for NC accounts. While account_type is missing or invalid it is not
  // known whether the account is NC, so a missing bank code is not reported then.
  bankCodeOptional: (accountType) => accountType === undefined || accountType === 'NC',
  accountNumberRule,
  taxIdRule,
  emailRequired: false,
  fullNameRequired: false,
};
