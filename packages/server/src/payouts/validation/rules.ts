/**
 * The names of the payout validation rules, in the order they are checked (docs/payouts.md, "Validation
 * rules", lists them in this same order; a test keeps the two in step). Rules that apply to many fields,
 * such as `REQUIRED`, appear at the first field they are checked on.
 */
export const PAYOUT_RULES = [
  'BATCH_EMPTY',
  'ITEM_NOT_AN_OBJECT',
  'REQUIRED',
  'NOT_A_STRING',
  'UNSUPPORTED_COUNTRY',
  'UNSUPPORTED_CURRENCY',
  'CURRENCY_NOT_OF_COUNTRY',
  'AMOUNT_INVALID',
  'AMOUNT_NOT_POSITIVE',
  'AMOUNT_DECIMALS',
  'AMOUNT_TOO_LARGE',
  'UNSUPPORTED_PAYOUT_METHOD',
  'CONTRACT_ID_INVALID',
  'NOTIFICATION_URL_INVALID',
  'REQUIRED_OBJECT_MISSING',
  'REQUIRED_OBJECT_NOT_AN_OBJECT',
  'REQUIRED_OBJECT_NOT_ALLOWED',
  'ACCOUNT_TYPE_NOT_ALLOWED',
  'BANK_CODE_NOT_ALLOWED',
  'CO_NC_PREFIX_57',
  'CO_NC_MOBILE_FORMAT',
  'PE_BANK_002_ACCOUNT_LENGTH',
  'PE_CCI_FORMAT',
  'PE_CCI_CHECK_DIGIT',
  'CL_CV_STATE_BANK_ACCOUNT',
  'CL_CV_ACCOUNT_IS_RUT',
  'ACCOUNT_NUMBER_FORMAT',
  'TAX_ID_TYPE_NOT_ALLOWED',
  'CO_CC_FORMAT',
  'CO_NIT_FORMAT',
  'CO_NIT_CHECK_DIGIT',
  'CO_CE_FORMAT',
  'CO_TI_FORMAT',
  'CO_PP_FORMAT',
  'PE_TAX_ID_LENGTH',
  'PE_DNI_FORMAT',
  'PE_RUC_FORMAT',
  'PE_RUC_PREFIX',
  'PE_RUC_CHECK_DIGIT',
  'PE_CE_FORMAT',
  'PE_PAS_FORMAT',
  'CL_RUT_FORMAT',
  'CL_RUT_CHECK_DIGIT',
  'CL_RUT_LOWERCASE_K',
  'EMAIL_FORMAT',
  'FULL_NAME_TOO_LONG',
  // Rules across fields come after every rule of a single field.
  'PE_CCI_BANK_MISMATCH',
] as const;

/** The name of one payout validation rule. */
export type PayoutRule = (typeof PAYOUT_RULES)[number];

/** One reason a payout item (or batch) is refused. */
export interface PayoutIssue {
  /** Where the problem is, such as `payoutTransactions[2].required_PE.account_number`. */
  readonly path: string;
  readonly rule: PayoutRule;
  /** An English sentence that starts with the field name and says what is expected. */
  readonly description: string;
}

/**
 * Whether a string names a payout validation rule.
 * @example isPayoutRule('PE_CCI_CHECK_DIGIT') // true
 * @example isPayoutRule('SOMETHING_ELSE')     // false
 */
export function isPayoutRule(name: string): name is PayoutRule {
  return (PAYOUT_RULES as readonly string[]).includes(name);
}
