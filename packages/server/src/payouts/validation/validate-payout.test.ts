import { describe, expect, it } from 'vitest';
import { PAYOUT_EXAMPLES } from './examples';
import { PAYOUT_RULES, isPayoutRule } from './rules';
import type { PayoutRule } from './rules';
import { ACCOUNT_TYPES } from './types';
import { parsePayoutBatch, parsePayoutItem, validatePayoutBatch, validatePayoutItem } from './validate-payout';

type Mutable = Record<string, unknown>;

/** A deep, mutable copy of the example with this reference_id. */
function copyOf(referenceId: string): Mutable {
  const example = PAYOUT_EXAMPLES.find((candidate) => candidate.item.reference_id === referenceId);
  if (example === undefined) throw new Error(`No example ${referenceId}`);
  return structuredClone(example.item) as Mutable;
}

function recipientOf(item: Mutable): Mutable {
  const field = `required_${String(item.payment_country)}`;
  return item[field] as Mutable;
}

/** One rule broken on purpose: the example it starts from, the change, and the one issue expected. */
interface Case {
  readonly name: string;
  readonly from: string;
  readonly change: (item: Mutable, recipient: Mutable) => unknown;
  /** The path under `payoutTransactions[0]`, empty for the item itself. */
  readonly path: string;
  readonly rule: PayoutRule;
}

function set(field: string, value: unknown) {
  return (item: Mutable): void => {
    item[field] = value;
  };
}

function setRecipient(values: Mutable) {
  return (_item: Mutable, recipient: Mutable): void => {
    Object.assign(recipient, values);
  };
}

function unset(field: string) {
  return (item: Mutable): void => {
    delete item[field];
  };
}

function unsetRecipient(field: string) {
  return (_item: Mutable, recipient: Mutable): void => {
    delete recipient[field];
  };
}

const CASES: readonly Case[] = [
  // The item itself.
  { name: 'item is a string', from: 'co-cc-0001', change: () => 'payout', path: '', rule: 'ITEM_NOT_AN_OBJECT' },
  { name: 'item is null', from: 'co-cc-0001', change: () => null, path: '', rule: 'ITEM_NOT_AN_OBJECT' },
  { name: 'item is an array', from: 'co-cc-0001', change: () => [], path: '', rule: 'ITEM_NOT_AN_OBJECT' },

  // payment_country.
  { name: 'payment_country missing', from: 'pe-cc-0001', change: unset('payment_country'), path: 'payment_country', rule: 'REQUIRED' },
  { name: 'payment_country null', from: 'pe-cc-0001', change: set('payment_country', null), path: 'payment_country', rule: 'REQUIRED' },
  { name: 'payment_country a number', from: 'pe-cc-0001', change: set('payment_country', 51), path: 'payment_country', rule: 'NOT_A_STRING' },
  { name: 'payment_country AR', from: 'co-cc-0001', change: set('payment_country', 'AR'), path: 'payment_country', rule: 'UNSUPPORTED_COUNTRY' },
  { name: 'payment_country lower case', from: 'co-cc-0001', change: set('payment_country', 'co'), path: 'payment_country', rule: 'UNSUPPORTED_COUNTRY' },

  // Currencies.
  { name: 'original_currency XAU', from: 'pe-cc-0001', change: set('original_currency', 'XAU'), path: 'original_currency', rule: 'UNSUPPORTED_CURRENCY' },
  { name: 'payment_currency USD', from: 'pe-cc-0001', change: set('payment_currency', 'USD'), path: 'payment_currency', rule: 'UNSUPPORTED_CURRENCY' },
  { name: 'payment_currency blank', from: 'pe-cc-0001', change: set('payment_currency', ' '), path: 'payment_currency', rule: 'REQUIRED' },
  { name: 'payment_currency PEN for CO', from: 'co-cc-0001', change: set('payment_currency', 'PEN'), path: 'payment_currency', rule: 'CURRENCY_NOT_OF_COUNTRY' },
  { name: 'original_amount with cents in USD for CL', from: 'cl-cc-0001', change: (item) => Object.assign(item, { original_currency: 'USD', original_amount: '10.505' }), path: 'original_amount', rule: 'AMOUNT_DECIMALS' },

  { name: 'original_currency COP for CL (FX) with pesos as decimals', from: 'cl-cc-0001', change: (item) => Object.assign(item, { original_currency: 'COP', original_amount: '1000.123' }), path: 'original_amount', rule: 'AMOUNT_DECIMALS' },

  // original_amount.
  { name: 'amount missing', from: 'co-cc-0001', change: unset('original_amount'), path: 'original_amount', rule: 'REQUIRED' },
  { name: 'amount empty string', from: 'co-cc-0001', change: set('original_amount', ''), path: 'original_amount', rule: 'REQUIRED' },
  { name: 'amount a boolean', from: 'co-cc-0001', change: set('original_amount', true), path: 'original_amount', rule: 'AMOUNT_INVALID' },
  { name: 'amount with thousands separator', from: 'co-cc-0001', change: set('original_amount', '1,500.00'), path: 'original_amount', rule: 'AMOUNT_INVALID' },
  { name: 'amount with a decimal comma', from: 'pe-cc-0001', change: set('original_amount', '1500,75'), path: 'original_amount', rule: 'AMOUNT_INVALID' },
  { name: 'amount string with exponent', from: 'co-cc-0001', change: set('original_amount', '1e3'), path: 'original_amount', rule: 'AMOUNT_INVALID' },
  { name: 'amount number printed with exponent', from: 'co-cc-0001', change: set('original_amount', 1e21), path: 'original_amount', rule: 'AMOUNT_INVALID' },
  { name: 'amount tiny number printed with exponent', from: 'pe-cc-0001', change: set('original_amount', 1e-7), path: 'original_amount', rule: 'AMOUNT_INVALID' },
  { name: 'amount with a plus sign', from: 'co-cc-0001', change: set('original_amount', '+100'), path: 'original_amount', rule: 'AMOUNT_INVALID' },
  { name: 'amount with spaces', from: 'co-cc-0001', change: set('original_amount', ' 100'), path: 'original_amount', rule: 'AMOUNT_INVALID' },
  { name: 'amount ending in a point', from: 'co-cc-0001', change: set('original_amount', '100.'), path: 'original_amount', rule: 'AMOUNT_INVALID' },
  { name: 'amount not a number', from: 'co-cc-0001', change: set('original_amount', Number.NaN), path: 'original_amount', rule: 'AMOUNT_INVALID' },
  { name: 'amount zero', from: 'co-cc-0001', change: set('original_amount', 0), path: 'original_amount', rule: 'AMOUNT_NOT_POSITIVE' },
  { name: 'amount zero with decimals', from: 'pe-cc-0001', change: set('original_amount', '0.00'), path: 'original_amount', rule: 'AMOUNT_NOT_POSITIVE' },
  { name: 'amount negative number', from: 'cl-cc-0001', change: set('original_amount', -5000), path: 'original_amount', rule: 'AMOUNT_NOT_POSITIVE' },
  { name: 'amount negative string', from: 'pe-cc-0001', change: set('original_amount', '-10.50'), path: 'original_amount', rule: 'AMOUNT_NOT_POSITIVE' },
  { name: 'CLP amount with a decimal', from: 'cl-cc-0001', change: set('original_amount', '1000.5'), path: 'original_amount', rule: 'AMOUNT_DECIMALS' },
  { name: 'CLP amount number with a decimal', from: 'cl-cc-0001', change: set('original_amount', 1000.5), path: 'original_amount', rule: 'AMOUNT_DECIMALS' },
  { name: 'PEN amount with three decimals', from: 'pe-cc-0001', change: set('original_amount', '10.125'), path: 'original_amount', rule: 'AMOUNT_DECIMALS' },
  { name: 'COP amount number with three decimals', from: 'co-cc-0001', change: set('original_amount', 0.001), path: 'original_amount', rule: 'AMOUNT_DECIMALS' },
  { name: 'PEN amount above the maximum', from: 'pe-cc-0001', change: set('original_amount', '10000000000000.01'), path: 'original_amount', rule: 'AMOUNT_TOO_LARGE' },
  { name: 'CLP amount above the maximum', from: 'cl-cc-0001', change: set('original_amount', '1000000000000001'), path: 'original_amount', rule: 'AMOUNT_TOO_LARGE' },
  { name: 'amount with 17 integer digits', from: 'cl-cc-0001', change: set('original_amount', '12345678901234567'), path: 'original_amount', rule: 'AMOUNT_TOO_LARGE' },

  // payout_method, contract_id, reference_id, notification_url.
  { name: 'payout_method CASH', from: 'co-cc-0001', change: set('payout_method', 'CASH'), path: 'payout_method', rule: 'UNSUPPORTED_PAYOUT_METHOD' },
  { name: 'payout_method lower case', from: 'co-cc-0001', change: set('payout_method', 'bank_transfer'), path: 'payout_method', rule: 'UNSUPPORTED_PAYOUT_METHOD' },
  { name: 'payout_method missing', from: 'co-cc-0001', change: unset('payout_method'), path: 'payout_method', rule: 'REQUIRED' },
  { name: 'contract_id missing', from: 'co-cc-0001', change: unset('contract_id'), path: 'contract_id', rule: 'REQUIRED' },
  { name: 'contract_id a boolean', from: 'co-cc-0001', change: set('contract_id', true), path: 'contract_id', rule: 'CONTRACT_ID_INVALID' },
  { name: 'contract_id a fraction', from: 'co-cc-0001', change: set('contract_id', 1.5), path: 'contract_id', rule: 'CONTRACT_ID_INVALID' },
  { name: 'contract_id negative', from: 'co-cc-0001', change: set('contract_id', -3), path: 'contract_id', rule: 'CONTRACT_ID_INVALID' },
  { name: 'contract_id an object', from: 'co-cc-0001', change: set('contract_id', { id: 1 }), path: 'contract_id', rule: 'CONTRACT_ID_INVALID' },
  { name: 'reference_id missing', from: 'cl-cc-0001', change: unset('reference_id'), path: 'reference_id', rule: 'REQUIRED' },
  { name: 'reference_id a number', from: 'cl-cc-0001', change: set('reference_id', 123), path: 'reference_id', rule: 'NOT_A_STRING' },
  { name: 'notification_url missing', from: 'cl-cc-0001', change: unset('notification_url'), path: 'notification_url', rule: 'REQUIRED' },
  { name: 'notification_url ftp', from: 'cl-cc-0001', change: set('notification_url', 'ftp://merchant.example.com/cb'), path: 'notification_url', rule: 'NOTIFICATION_URL_INVALID' },
  { name: 'notification_url relative', from: 'cl-cc-0001', change: set('notification_url', '/payouts/callback'), path: 'notification_url', rule: 'NOTIFICATION_URL_INVALID' },
  { name: 'notification_url with a space', from: 'cl-cc-0001', change: set('notification_url', 'https://merchant.example.com/pay outs'), path: 'notification_url', rule: 'NOTIFICATION_URL_INVALID' },
  { name: 'notification_url too long', from: 'cl-cc-0001', change: set('notification_url', `https://merchant.example.com/${'a'.repeat(2048)}`), path: 'notification_url', rule: 'NOTIFICATION_URL_INVALID' },

  // The recipient objects.
  { name: 'required_PE missing', from: 'pe-cc-0001', change: unset('required_PE'), path: 'required_PE', rule: 'REQUIRED_OBJECT_MISSING' },
  { name: 'required_CO null', from: 'co-cc-0001', change: set('required_CO', null), path: 'required_CO', rule: 'REQUIRED_OBJECT_MISSING' },
  { name: 'required_CL a string', from: 'cl-cc-0001', change: set('required_CL', '001;CC;0012345678'), path: 'required_CL', rule: 'REQUIRED_OBJECT_NOT_AN_OBJECT' },
  { name: 'required_PE an array', from: 'pe-cc-0001', change: set('required_PE', []), path: 'required_PE', rule: 'REQUIRED_OBJECT_NOT_AN_OBJECT' },
  { name: 'required_CL beside required_PE', from: 'pe-cc-0001', change: set('required_CL', {}), path: 'required_CL', rule: 'REQUIRED_OBJECT_NOT_ALLOWED' },
  { name: 'required_PE beside required_CO', from: 'co-nc-0001', change: set('required_PE', { bank_code: '002' }), path: 'required_PE', rule: 'REQUIRED_OBJECT_NOT_ALLOWED' },

  // account_type.
  { name: 'CO account_type CV', from: 'co-cc-0001', change: setRecipient({ account_type: 'CV' }), path: 'required_CO.account_type', rule: 'ACCOUNT_TYPE_NOT_ALLOWED' },
  { name: 'CO NC account_type in lower case, no bank code', from: 'co-nc-0001', change: setRecipient({ account_type: 'nc' }), path: 'required_CO.account_type', rule: 'ACCOUNT_TYPE_NOT_ALLOWED' },
  { name: 'PE account_type NC', from: 'pe-cc-0001', change: setRecipient({ account_type: 'NC' }), path: 'required_PE.account_type', rule: 'ACCOUNT_TYPE_NOT_ALLOWED' },
  { name: 'CL account_type CM', from: 'cl-cv-0001', change: setRecipient({ account_type: 'CM' }), path: 'required_CL.account_type', rule: 'ACCOUNT_TYPE_NOT_ALLOWED' },
  { name: 'CL account_type missing', from: 'cl-cc-0001', change: unsetRecipient('account_type'), path: 'required_CL.account_type', rule: 'REQUIRED' },

  // bank_code.
  { name: 'CO CC bank_code missing', from: 'co-cc-0001', change: unsetRecipient('bank_code'), path: 'required_CO.bank_code', rule: 'REQUIRED' },
  { name: 'CO bank_code 9999', from: 'co-cc-0001', change: setRecipient({ bank_code: '9999' }), path: 'required_CO.bank_code', rule: 'BANK_CODE_NOT_ALLOWED' },
  { name: 'CO NC with a bank_code not allowed', from: 'co-nc-0001', change: setRecipient({ bank_code: '0001' }), path: 'required_CO.bank_code', rule: 'BANK_CODE_NOT_ALLOWED' },
  { name: 'PE bank_code without leading zeros', from: 'pe-cc-0001', change: setRecipient({ bank_code: '2' }), path: 'required_PE.bank_code', rule: 'BANK_CODE_NOT_ALLOWED' },
  { name: 'PE bank_code a number', from: 'pe-cm-0001', change: setRecipient({ bank_code: 3 }), path: 'required_PE.bank_code', rule: 'NOT_A_STRING' },
  { name: 'CL bank_code of Colombia', from: 'cl-cc-0001', change: setRecipient({ bank_code: '1007' }), path: 'required_CL.bank_code', rule: 'BANK_CODE_NOT_ALLOWED' },

  // account_number.
  { name: 'account_number missing', from: 'pe-cc-0001', change: unsetRecipient('account_number'), path: 'required_PE.account_number', rule: 'REQUIRED' },
  { name: 'account_number a number', from: 'pe-cc-0001', change: setRecipient({ account_number: 1932345678012 }), path: 'required_PE.account_number', rule: 'NOT_A_STRING' },
  { name: 'CO NC without 57', from: 'co-nc-0001', change: setRecipient({ account_number: '3001234567' }), path: 'required_CO.account_number', rule: 'CO_NC_PREFIX_57' },
  { name: 'CO NC with +57', from: 'co-nc-0001', change: setRecipient({ account_number: '+573001234567' }), path: 'required_CO.account_number', rule: 'CO_NC_PREFIX_57' },
  { name: 'CO NC mobile too short', from: 'co-nc-0001', change: setRecipient({ account_number: '5730012345' }), path: 'required_CO.account_number', rule: 'CO_NC_MOBILE_FORMAT' },
  { name: 'CO NC landline', from: 'co-nc-0001', change: setRecipient({ account_number: '576012345678' }), path: 'required_CO.account_number', rule: 'CO_NC_MOBILE_FORMAT' },
  { name: 'CO NC with spaces', from: 'co-nc-0001', change: setRecipient({ account_number: '57 300 123 4567' }), path: 'required_CO.account_number', rule: 'CO_NC_MOBILE_FORMAT' },
  { name: 'PE 002 CC with 14 digits', from: 'pe-cc-0001', change: setRecipient({ account_number: '19323456780123' }), path: 'required_PE.account_number', rule: 'PE_BANK_002_ACCOUNT_LENGTH' },
  { name: 'PE 002 CC with hyphens', from: 'pe-cc-0001', change: setRecipient({ account_number: '193-2345678-0-12' }), path: 'required_PE.account_number', rule: 'PE_BANK_002_ACCOUNT_LENGTH' },
  { name: 'PE 002 CA with 13 digits', from: 'pe-ca-0001', change: setRecipient({ account_number: '1912345678901' }), path: 'required_PE.account_number', rule: 'PE_BANK_002_ACCOUNT_LENGTH' },
  { name: 'PE 002 CA given as a CCI', from: 'pe-ca-0001', change: setRecipient({ account_number: '00219100021577201451' }), path: 'required_PE.account_number', rule: 'PE_BANK_002_ACCOUNT_LENGTH' },
  { name: 'PE CCI with hyphens', from: 'pe-cm-0001', change: setRecipient({ account_number: '003-200-003001234567-31' }), path: 'required_PE.account_number', rule: 'PE_CCI_FORMAT' },
  { name: 'PE CCI with 19 digits', from: 'pe-cm-0001', change: setRecipient({ account_number: '0032000030012345673' }), path: 'required_PE.account_number', rule: 'PE_CCI_FORMAT' },
  { name: 'PE CCI given as the bank account number', from: 'pe-cc-0002', change: setRecipient({ account_number: '001101520100123456' }), path: 'required_PE.account_number', rule: 'PE_CCI_FORMAT' },
  { name: 'PE CCI with a wrong check digit', from: 'pe-cm-0001', change: setRecipient({ account_number: '00320000300123456732' }), path: 'required_PE.account_number', rule: 'PE_CCI_CHECK_DIGIT' },
  { name: 'PE CCI with swapped digits', from: 'pe-cc-0002', change: setRecipient({ account_number: '01115200010021345664' }), path: 'required_PE.account_number', rule: 'PE_CCI_CHECK_DIGIT' },
  { name: 'CL CV BancoEstado with the check digit', from: 'cl-cv-0001', change: setRecipient({ account_number: '19000001K' }), path: 'required_CL.account_number', rule: 'CL_CV_STATE_BANK_ACCOUNT' },
  { name: 'CL CV BancoEstado with dots', from: 'cl-cv-0001', change: setRecipient({ account_number: '19.000.001' }), path: 'required_CL.account_number', rule: 'CL_CV_STATE_BANK_ACCOUNT' },
  { name: 'CL CV BancoEstado another RUT', from: 'cl-cv-0001', change: setRecipient({ account_number: '19000015' }), path: 'required_CL.account_number', rule: 'CL_CV_STATE_BANK_ACCOUNT' },
  { name: 'CL CV BancoEstado with a bank account number', from: 'cl-cv-0001', change: setRecipient({ account_number: '700012345601' }), path: 'required_CL.account_number', rule: 'CL_CV_STATE_BANK_ACCOUNT' },
  { name: 'CL CV other bank given the RUT body', from: 'cl-cv-0002', change: setRecipient({ account_number: '18765432' }), path: 'required_CL.account_number', rule: 'CL_CV_ACCOUNT_IS_RUT' },
  { name: 'CL CV other bank given the whole RUT', from: 'cl-cv-0002', change: setRecipient({ account_number: '18.765.432-7' }), path: 'required_CL.account_number', rule: 'CL_CV_ACCOUNT_IS_RUT' },
  { name: 'CO CC account with letters', from: 'co-cc-0001', change: setRecipient({ account_number: 'ABC12345' }), path: 'required_CO.account_number', rule: 'ACCOUNT_NUMBER_FORMAT' },
  { name: 'CO DE account with 21 digits', from: 'co-de-0001', change: setRecipient({ account_number: '1'.repeat(21) }), path: 'required_CO.account_number', rule: 'ACCOUNT_NUMBER_FORMAT' },
  { name: 'CL CC account with hyphens', from: 'cl-cc-0001', change: setRecipient({ account_number: '00-123-45678' }), path: 'required_CL.account_number', rule: 'ACCOUNT_NUMBER_FORMAT' },
  { name: 'CL CV other bank account with a space', from: 'cl-cv-0002', change: setRecipient({ account_number: '7000 12345601' }), path: 'required_CL.account_number', rule: 'ACCOUNT_NUMBER_FORMAT' },
  { name: 'PE 002 CM account with a hyphen', from: 'pe-cc-0001', change: setRecipient({ account_type: 'CM', account_number: '193-2345678' }), path: 'required_PE.account_number', rule: 'ACCOUNT_NUMBER_FORMAT' },

  // tax_id_type.
  { name: 'CO tax_id_type RUT', from: 'co-cc-0001', change: setRecipient({ tax_id_type: 'RUT' }), path: 'required_CO.tax_id_type', rule: 'TAX_ID_TYPE_NOT_ALLOWED' },
  { name: 'PE tax_id_type CC', from: 'pe-cc-0001', change: setRecipient({ tax_id_type: 'CC' }), path: 'required_PE.tax_id_type', rule: 'TAX_ID_TYPE_NOT_ALLOWED' },
  { name: 'CL tax_id_type DNI', from: 'cl-cc-0001', change: setRecipient({ tax_id_type: 'DNI' }), path: 'required_CL.tax_id_type', rule: 'TAX_ID_TYPE_NOT_ALLOWED' },
  { name: 'tax_id_type missing', from: 'cl-cc-0001', change: unsetRecipient('tax_id_type'), path: 'required_CL.tax_id_type', rule: 'REQUIRED' },

  // tax_id, Colombia.
  { name: 'tax_id missing', from: 'co-cc-0001', change: unsetRecipient('tax_id'), path: 'required_CO.tax_id', rule: 'REQUIRED' },
  { name: 'CO CC with 5 digits', from: 'co-cc-0001', change: setRecipient({ tax_id: '12345' }), path: 'required_CO.tax_id', rule: 'CO_CC_FORMAT' },
  { name: 'CO CC with 11 digits', from: 'co-cc-0001', change: setRecipient({ tax_id: '10203040501' }), path: 'required_CO.tax_id', rule: 'CO_CC_FORMAT' },
  { name: 'CO CC with dots', from: 'co-cc-0001', change: setRecipient({ tax_id: '1.020.304.050' }), path: 'required_CO.tax_id', rule: 'CO_CC_FORMAT' },
  { name: 'CO NIT with a hyphen', from: 'co-ca-0001', change: setRecipient({ tax_id: '900123456-8' }), path: 'required_CO.tax_id', rule: 'CO_NIT_FORMAT' },
  { name: 'CO NIT without its check digit', from: 'co-ca-0001', change: setRecipient({ tax_id: '90012345' }), path: 'required_CO.tax_id', rule: 'CO_NIT_FORMAT' },
  { name: 'CO NIT with a wrong check digit', from: 'co-ca-0001', change: setRecipient({ tax_id: '9001234567' }), path: 'required_CO.tax_id', rule: 'CO_NIT_CHECK_DIGIT' },
  { name: 'CO CE with a hyphen', from: 'co-nc-0001', change: setRecipient({ tax_id: 'E-1234567' }), path: 'required_CO.tax_id', rule: 'CO_CE_FORMAT' },
  { name: 'CO CE with 16 characters', from: 'co-nc-0001', change: setRecipient({ tax_id: 'E123456789012345' }), path: 'required_CO.tax_id', rule: 'CO_CE_FORMAT' },
  { name: 'CO TI with 9 digits', from: 'co-de-0001', change: setRecipient({ tax_id: '101234567' }), path: 'required_CO.tax_id', rule: 'CO_TI_FORMAT' },
  { name: 'CO PP with a space', from: 'co-cc-0001', change: setRecipient({ tax_id_type: 'PP', tax_id: 'AB 123456' }), path: 'required_CO.tax_id', rule: 'CO_PP_FORMAT' },

  // tax_id, Peru.
  { name: 'PE DNI with 7 digits', from: 'pe-cc-0001', change: setRecipient({ tax_id: '4567891' }), path: 'required_PE.tax_id', rule: 'PE_TAX_ID_LENGTH' },
  { name: 'PE DNI with its check character', from: 'pe-cc-0001', change: setRecipient({ tax_id: '456789123' }), path: 'required_PE.tax_id', rule: 'PE_TAX_ID_LENGTH' },
  { name: 'PE RUC with 10 digits', from: 'pe-cm-0001', change: setRecipient({ tax_id: '2060123456' }), path: 'required_PE.tax_id', rule: 'PE_TAX_ID_LENGTH' },
  { name: 'PE CE with 13 characters', from: 'pe-ca-0001', change: setRecipient({ tax_id: '0012345678901' }), path: 'required_PE.tax_id', rule: 'PE_TAX_ID_LENGTH' },
  { name: 'PE PAS with 13 characters', from: 'pe-cc-0002', change: setRecipient({ tax_id: 'AB12345678901' }), path: 'required_PE.tax_id', rule: 'PE_TAX_ID_LENGTH' },
  { name: 'PE DNI with a letter', from: 'pe-cc-0001', change: setRecipient({ tax_id: '4567891A' }), path: 'required_PE.tax_id', rule: 'PE_DNI_FORMAT' },
  { name: 'PE RUC with a letter', from: 'pe-cm-0001', change: setRecipient({ tax_id: '2060123456A' }), path: 'required_PE.tax_id', rule: 'PE_RUC_FORMAT' },
  { name: 'PE RUC with prefix 30', from: 'pe-cm-0001', change: setRecipient({ tax_id: '30601234561' }), path: 'required_PE.tax_id', rule: 'PE_RUC_PREFIX' },
  { name: 'PE RUC with a wrong check digit', from: 'pe-cm-0001', change: setRecipient({ tax_id: '20601234566' }), path: 'required_PE.tax_id', rule: 'PE_RUC_CHECK_DIGIT' },
  { name: 'PE CE with a hyphen', from: 'pe-ca-0001', change: setRecipient({ tax_id: '00123-4567' }), path: 'required_PE.tax_id', rule: 'PE_CE_FORMAT' },
  { name: 'PE PAS with a space', from: 'pe-cc-0002', change: setRecipient({ tax_id: 'AB 1234567' }), path: 'required_PE.tax_id', rule: 'PE_PAS_FORMAT' },

  // tax_id, Chile.
  { name: 'CL RUT with commas', from: 'cl-cc-0001', change: setRecipient({ tax_id: '12,345,678-5' }), path: 'required_CL.tax_id', rule: 'CL_RUT_FORMAT' },
  { name: 'CL RUT badly grouped', from: 'cl-cc-0001', change: setRecipient({ tax_id: '12.345678-5' }), path: 'required_CL.tax_id', rule: 'CL_RUT_FORMAT' },
  { name: 'CL RUT with a wrong check digit', from: 'cl-cc-0001', change: setRecipient({ tax_id: '12.345.678-6' }), path: 'required_CL.tax_id', rule: 'CL_RUT_CHECK_DIGIT' },
  { name: 'CL RUT with k where 5 is due', from: 'cl-ca-0001', change: setRecipient({ tax_id: '15555555-k' }), path: 'required_CL.tax_id', rule: 'CL_RUT_CHECK_DIGIT' },
  { name: 'CL RUT with a lower-case k', from: 'cl-cv-0001', change: setRecipient({ tax_id: '19.000.001-k' }), path: 'required_CL.tax_id', rule: 'CL_RUT_LOWERCASE_K' },

  // email and full_name.
  { name: 'PE email missing', from: 'pe-cc-0001', change: unsetRecipient('email'), path: 'required_PE.email', rule: 'REQUIRED' },
  { name: 'PE email empty', from: 'pe-cc-0001', change: setRecipient({ email: '' }), path: 'required_PE.email', rule: 'REQUIRED' },
  { name: 'PE email without a domain', from: 'pe-cc-0001', change: setRecipient({ email: 'rosa.quispe' }), path: 'required_PE.email', rule: 'EMAIL_FORMAT' },
  { name: 'PE email with a bare host', from: 'pe-cc-0001', change: setRecipient({ email: 'rosa@localhost' }), path: 'required_PE.email', rule: 'EMAIL_FORMAT' },
  { name: 'CO email with a space', from: 'co-ca-0001', change: setRecipient({ email: 'teso reria@empresa.example.co' }), path: 'required_CO.email', rule: 'EMAIL_FORMAT' },
  { name: 'CL email too long', from: 'cl-ca-0001', change: setRecipient({ email: `${'a'.repeat(64)}@${'b'.repeat(62)}.${'c'.repeat(62)}.${'d'.repeat(62)}.cl` }), path: 'required_CL.email', rule: 'EMAIL_FORMAT' },
  { name: 'CL email a number', from: 'cl-ca-0001', change: setRecipient({ email: 42 }), path: 'required_CL.email', rule: 'NOT_A_STRING' },
  { name: 'PE full_name missing', from: 'pe-cc-0001', change: unsetRecipient('full_name'), path: 'required_PE.full_name', rule: 'REQUIRED' },
  { name: 'CL full_name blank', from: 'cl-cc-0001', change: setRecipient({ full_name: '   ' }), path: 'required_CL.full_name', rule: 'REQUIRED' },
  { name: 'CL full_name of 101 characters', from: 'cl-cc-0001', change: setRecipient({ full_name: 'ñ'.repeat(101) }), path: 'required_CL.full_name', rule: 'FULL_NAME_TOO_LONG' },
  { name: 'CO full_name of 101 characters', from: 'co-cc-0001', change: setRecipient({ full_name: 'A'.repeat(101) }), path: 'required_CO.full_name', rule: 'FULL_NAME_TOO_LONG' },

  // Across fields.
  { name: 'PE CCI of bank 003 sent with bank_code 011', from: 'pe-cm-0001', change: setRecipient({ bank_code: '011' }), path: 'required_PE.account_number', rule: 'PE_CCI_BANK_MISMATCH' },
  { name: 'PE CCI of bank 002 sent with bank_code 003', from: 'pe-cm-0001', change: setRecipient({ account_number: '00219100021577201451' }), path: 'required_PE.account_number', rule: 'PE_CCI_BANK_MISMATCH' },
  // An invalid CCI reports its own rule only: its bank cannot be trusted.
  { name: 'PE CCI of bank 011 with a wrong check digit at bank 003', from: 'pe-cm-0001', change: setRecipient({ account_number: '01115200010012345665' }), path: 'required_PE.account_number', rule: 'PE_CCI_CHECK_DIGIT' },
];

/** Applies a case to a fresh copy of its example; a change may also replace the whole item. */
function build(testCase: Case): unknown {
  const item = copyOf(testCase.from);
  const replaced = testCase.change(item, recipientOf(item));
  return replaced === undefined ? item : replaced;
}

describe('the examples', () => {
  it('cover every account type of every country', () => {
    for (const [country, types] of Object.entries(ACCOUNT_TYPES)) {
      for (const type of types) {
        expect(PAYOUT_EXAMPLES.some((example) => example.country === country && example.accountType === type), `${country} ${type}`).toBe(true);
      }
    }
  });

  it('have unique reference ids', () => {
    const ids = PAYOUT_EXAMPLES.map((example) => example.item.reference_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(PAYOUT_EXAMPLES.map((example) => [example.title, example] as const))('%s is valid', (_title, example) => {
    expect(validatePayoutItem(example.item, 0)).toEqual([]);
    const item = example.item as Mutable;
    expect(item.payment_country).toBe(example.country);
    expect(recipientOf(item).account_type).toBe(example.accountType);
  });
});

describe('each rule broken alone', () => {
  it.each(CASES.map((testCase) => [testCase.name, testCase] as const))('%s', (_name, testCase) => {
    const issues = validatePayoutItem(build(testCase), 0);
    const path = testCase.path === '' ? 'payoutTransactions[0]' : `payoutTransactions[0].${testCase.path}`;
    expect(issues.map(({ path: at, rule }) => ({ path: at, rule }))).toEqual([{ path, rule: testCase.rule }]);
    // The description starts with the field name (the item's own path for the item-level rule).
    const field = testCase.path === '' ? path : (testCase.path.split('.').pop() ?? '');
    expect(issues[0]?.description.startsWith(`${field} `)).toBe(true);
  });

  it('covers every rule except the batch one, which has its own test', () => {
    const covered = new Set<PayoutRule>(CASES.map((testCase) => testCase.rule));
    const missing = PAYOUT_RULES.filter((rule) => rule !== 'BATCH_EMPTY' && !covered.has(rule));
    expect(missing).toEqual([]);
  });

  it('never echoes recipient data in descriptions', () => {
    const item = copyOf('pe-cc-0001');
    Object.assign(recipientOf(item), { account_number: '19323456780123', tax_id: '4567891A', email: 'rosa.quispe' });
    for (const issue of validatePayoutItem(item, 0)) {
      expect(issue.description).not.toContain('19323456780123');
      expect(issue.description).not.toContain('4567891A');
      expect(issue.description).not.toContain('rosa.quispe');
    }
  });
});

describe('valid variants', () => {
  const VARIANTS: readonly (readonly [string, string, (item: Mutable, recipient: Mutable) => void])[] = [
    ['CO NC with an allowed bank code', 'co-nc-0001', setRecipient({ bank_code: '1507' })],
    ['CO optional fields empty or null', 'co-cc-0001', setRecipient({ full_name: '', email: null })],
    ['CO passport', 'co-cc-0001', setRecipient({ tax_id_type: 'PP', tax_id: 'AB123456' })],
    ['CO cédula of 6 digits', 'co-cc-0001', setRecipient({ tax_id: '123456' })],
    ['CO NIT of 9 digits with its check digit', 'co-ca-0001', setRecipient({ tax_id: '800123459' })],
    ['CL email empty', 'cl-ca-0001', setRecipient({ email: '' })],
    ['CL RUT run together', 'cl-cc-0001', setRecipient({ tax_id: '123456785' })],
    ['CL CuentaRUT with the RUT run together', 'cl-cv-0001', setRecipient({ tax_id: '19000001K' })],
    ['CLP amount written with zero decimals', 'cl-cc-0001', set('original_amount', '120000.00')],
    ['PEN amount as a number with one decimal', 'pe-cc-0001', set('original_amount', 1500.5)],
    ['PE 002 CM with the bank account number', 'pe-cc-0001', setRecipient({ account_type: 'CM', account_number: '1932345678012' })],
    ['PE CE of 12 characters', 'pe-ca-0001', setRecipient({ tax_id: 'X00123456789' })],
    ['contract_id as an integer', 'co-cc-0001', set('contract_id', 42)],
    ['an http notification_url', 'co-cc-0001', set('notification_url', 'http://merchant.example.com:8080/cb?x=1')],
    ['fields the interface does not define', 'co-cc-0001', set('description', 'ignored')],
    ['required_CL null beside required_PE', 'pe-cc-0001', set('required_CL', null)],
    ['full_name of 100 characters outside the BMP', 'cl-cc-0001', setRecipient({ full_name: '𝔸'.repeat(100) })],
  ];

  it.each(VARIANTS)('%s', (_name, from, change) => {
    const item = copyOf(from);
    change(item, recipientOf(item));
    expect(validatePayoutItem(item, 0)).toEqual([]);
  });
});

describe('parsePayoutItem', () => {
  it('returns amounts as canonical decimals and minor units', () => {
    const cases = [
      ['co-cc-0001', '250000.00', 25_000_000n],
      ['co-ca-0001', '1250000.50', 125_000_050n],
      ['pe-ca-0001', '320.50', 32_050n],
      ['pe-cm-0001', '98000.00', 9_800_000n],
      ['cl-cc-0001', '120000', 120_000n],
    ] as const;
    for (const [referenceId, decimal, minor] of cases) {
      const result = parsePayoutItem(copyOf(referenceId), 0);
      expect(result.ok && result.item.original_amount).toBe(decimal);
      expect(result.ok && result.item.original_amount_minor).toBe(minor);
    }
  });

  it('reads "120000.00" CLP as 120000', () => {
    const item = copyOf('cl-cc-0001');
    item.original_amount = '120000.00';
    const result = parsePayoutItem(item, 0);
    expect(result.ok && result.item.original_amount).toBe('120000');
  });

  it('keeps recipient strings as sent, trims full_name and drops empty optional and unknown fields', () => {
    const item = copyOf('co-cc-0001');
    item.contract_id = 42;
    item.extra = 'dropped';
    Object.assign(recipientOf(item), { full_name: '  Andrés Gómez  ', email: '', nickname: 'dropped' });
    const result = parsePayoutItem(item, 0);
    expect(result).toEqual({
      ok: true,
      item: {
        original_amount: '250000.00',
        original_amount_minor: 25_000_000n,
        original_currency: 'COP',
        payment_currency: 'COP',
        payment_country: 'CO',
        payout_method: 'BANK_TRANSFER',
        contract_id: '42',
        reference_id: 'co-cc-0001',
        notification_url: 'https://merchant.example.com/payouts/callback',
        required_CO: {
          bank_code: '1007',
          account_type: 'CC',
          account_number: '12345678901',
          tax_id: '1020304050',
          tax_id_type: 'CC',
          full_name: 'Andrés Gómez',
        },
      },
    });
  });

  it('leaves out the bank code of a CO NC account sent without one', () => {
    const result = parsePayoutItem(copyOf('co-nc-0001'), 0);
    expect(result.ok && result.item.payment_country === 'CO' && 'bank_code' in result.item.required_CO).toBe(false);
  });

  it('returns the issues when the item is invalid', () => {
    const item = copyOf('pe-cc-0001');
    item.payout_method = 'CASH';
    expect(parsePayoutItem(item, 3)).toEqual({
      ok: false,
      issues: [
        {
          path: 'payoutTransactions[3].payout_method',
          rule: 'UNSUPPORTED_PAYOUT_METHOD',
          description: 'payout_method must be one of BANK_TRANSFER; got "CASH".',
        },
      ],
    });
  });
});

describe('several mistakes at once', () => {
  const item = (): Mutable => {
    const broken = copyOf('pe-cm-0001');
    broken.original_amount = '10.125';
    broken.payout_method = 'CASH';
    broken.required_CO = {};
    Object.assign(recipientOf(broken), {
      bank_code: '999',
      account_number: 'not checked while the bank is invalid',
      tax_id_type: 'RUC',
      tax_id: '20601234566',
      email: 'pagos',
    });
    return broken;
  };

  it('reports each field once, in the documented order', () => {
    expect(validatePayoutItem(item(), 0).map(({ path, rule }) => `${path} ${rule}`)).toEqual([
      'payoutTransactions[0].original_amount AMOUNT_DECIMALS',
      'payoutTransactions[0].payout_method UNSUPPORTED_PAYOUT_METHOD',
      'payoutTransactions[0].required_CO REQUIRED_OBJECT_NOT_ALLOWED',
      'payoutTransactions[0].required_PE.bank_code BANK_CODE_NOT_ALLOWED',
      'payoutTransactions[0].required_PE.tax_id PE_RUC_CHECK_DIGIT',
      'payoutTransactions[0].required_PE.email EMAIL_FORMAT',
    ]);
  });

  it('gives the same answer every time', () => {
    expect(validatePayoutItem(item(), 0)).toEqual(validatePayoutItem(item(), 0));
  });

  it('skips the recipient when the country is unknown', () => {
    const unknown = copyOf('cl-cc-0001');
    unknown.payment_country = 'BR';
    unknown.original_currency = 'XBT';
    unknown.required_CL = 'ignored';
    expect(validatePayoutItem(unknown, 0).map(({ rule }) => rule)).toEqual(['UNSUPPORTED_COUNTRY', 'UNSUPPORTED_CURRENCY']);
  });
});

describe('validatePayoutBatch', () => {
  it('refuses an empty batch', () => {
    expect(validatePayoutBatch([])).toEqual([
      { path: 'payoutTransactions', rule: 'BATCH_EMPTY', description: 'payoutTransactions must contain at least one payout item.' },
    ]);
  });

  it('accepts a batch of all the examples', () => {
    expect(validatePayoutBatch(PAYOUT_EXAMPLES.map((example) => example.item))).toEqual([]);
  });

  it('names the bad item by its index', () => {
    const bad = copyOf('pe-cc-0001');
    Object.assign(recipientOf(bad), { account_number: '193234567801' });
    const issues = validatePayoutBatch([copyOf('co-cc-0001'), copyOf('cl-cc-0001'), bad, copyOf('pe-cm-0001')]);
    expect(issues).toEqual([
      {
        path: 'payoutTransactions[2].required_PE.account_number',
        rule: 'PE_BANK_002_ACCOUNT_LENGTH',
        description: 'account_number must be exactly 13 digits for bank_code 002 with account_type CC.',
      },
    ]);
  });

  it('reports the issues of several items in item order', () => {
    const issues = validatePayoutBatch([null, copyOf('co-cc-0001'), 'x']);
    expect(issues.map(({ path, rule }) => `${path} ${rule}`)).toEqual([
      'payoutTransactions[0] ITEM_NOT_AN_OBJECT',
      'payoutTransactions[2] ITEM_NOT_AN_OBJECT',
    ]);
  });

  it('returns the typed items from parsePayoutBatch when all are valid', () => {
    const result = parsePayoutBatch(PAYOUT_EXAMPLES.map((example) => example.item));
    expect(result.ok && result.items.map((item) => item.reference_id)).toEqual(PAYOUT_EXAMPLES.map((example) => example.item.reference_id));
  });
});

describe('PAYOUT_RULES', () => {
  it('has no duplicates and recognises its own names', () => {
    expect(new Set(PAYOUT_RULES).size).toBe(PAYOUT_RULES.length);
    expect(PAYOUT_RULES.every((rule) => isPayoutRule(rule))).toBe(true);
    expect(isPayoutRule('NOT_A_RULE')).toBe(false);
  });
});
