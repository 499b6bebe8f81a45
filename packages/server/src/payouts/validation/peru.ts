/** Payout rules of Peru (PE): BCP's own account numbers, interbank account codes (CCI), Peruvian tax ids. */
import { PE_BCP_BANK_CODE } from '../../rails/andean/banks';
import { checkCci } from '../../rails/andean/cci';
import { DNI_LENGTH, isValidDni } from '../../rails/andean/dni';
import { RUC_PREFIXES, checkRuc } from '../../rails/andean/ruc';
import { ACCOUNT_NUMBER_FORMAT, DIGITS_1_TO_20, type CountryRules, type RuleResult } from './fields';

function accountNumberRule(accountType: string | undefined, bankCode: string | undefined, accountNumber: string): RuleResult {
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

const PE_TAX_ID_LENGTHS: Readonly<Record<string, { readonly exact?: number; readonly max?: number }>> = {
  DNI: { exact: DNI_LENGTH },
  RUC: { exact: 11 },
  CE: { max: 12 },
  PAS: { max: 12 },
};

function taxIdRule(taxIdType: string, taxId: string): RuleResult {
  const about = `for tax_id_type ${taxIdType}`;
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

export const PERU: CountryRules = {
  country: 'PE',
  bankCodeOptional: () => false,
  accountNumberRule,
  taxIdRule,
  emailRequired: true,
  fullNameRequired: true,
  // Checked last, once bank_code and the CCI have each passed on their own: a CCI names its bank in its
  // first three digits, and a transfer sent to one bank cannot credit an account held at another.
  acrossFieldsRule(values) {
    if (values.bank_code === undefined || values.bank_code === PE_BCP_BANK_CODE || values.account_number === undefined) return undefined;
    const cciBank = values.account_number.slice(0, 3);
    if (cciBank === values.bank_code) return undefined;
    return {
      field: 'account_number',
      rule: 'PE_CCI_BANK_MISMATCH',
      description: `account_number is an interbank account code (CCI) of bank ${cciBank}, not of bank_code ${values.bank_code}: its first three digits must be the bank code.`,
    };
  },
};
