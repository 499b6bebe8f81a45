import { validatePixKey } from '../rails/brazil';
import { validateClabe } from '../rails/mexico';
import type { RefundFailure } from './rules';
import type { MethodRefundRules } from './rules';

/** Where a refund of a payment the payer made outside the card networks goes. */
export type RefundDestination =
  | { kind: 'PIX_KEY'; pix_key: string; pix_key_type: string }
  | {
      kind: 'BANK_ACCOUNT';
      type: 'CHECKING' | 'SAVINGS';
      bank_number: string;
      agency_number: string;
      agency_check_digit: string | null;
      account_number: string;
      account_check_digit: string;
    }
  | { kind: 'CLABE'; bank_code: string; clabe: string };

/** A destination as the merchant sends it: a PIX key, the fields of a Brazilian bank account, or a CLABE (refunds and settlement destinations). */
export interface DestinationInput {
  pix_key?: string | undefined;
  type?: string | undefined;
  bank_number?: string | undefined;
  agency_number?: string | undefined;
  agency_check_digit?: string | undefined;
  account_number?: string | undefined;
  account_check_digit?: string | undefined;
  bank_code?: number | undefined;
  clabe?: string | undefined;
}

/** The fields of a Brazilian bank account, in the order they are checked (settlement destinations use them too). */
export const BANK_FIELDS = ['type', 'bank_number', 'agency_number', 'agency_check_digit', 'account_number', 'account_check_digit'] as const;

/**
 * Bank-account rules for BOLETO refunds (docs/refunds.md): `type` CHECKING or SAVINGS; `bank_number` the
 * 3-digit COMPE code; `agency_number` 1–5 digits; `agency_check_digit` optional, one digit or X (many
 * banks have none); `account_number` 1–12 digits; `account_check_digit` one digit or X. A merchant's
 * settlement account follows the same rules (settlements/settings.ts).
 */
export const BANK_FIELD_RULES: Record<(typeof BANK_FIELDS)[number], { pattern: RegExp; required: boolean; rule: string }> = {
  type: { pattern: /^(CHECKING|SAVINGS)$/, required: true, rule: 'must be CHECKING or SAVINGS' },
  bank_number: { pattern: /^\d{3}$/, required: true, rule: 'must be the 3-digit bank code' },
  agency_number: { pattern: /^\d{1,5}$/, required: true, rule: 'must be 1 to 5 digits' },
  agency_check_digit: { pattern: /^[0-9X]$/, required: false, rule: 'must be one digit or X' },
  account_number: { pattern: /^\d{1,12}$/, required: true, rule: 'must be 1 to 12 digits' },
  account_check_digit: { pattern: /^[0-9X]$/, required: true, rule: 'must be one digit or X' },
};

/**
 * Validates the method-specific destination of a refund, in a fixed order.
 * @example validateDestination(REFUND_RULES.BOLETO, { pix_key: 'maria@example.com' })
 */
export function validateDestination(rules: MethodRefundRules, input: DestinationInput): { destination: RefundDestination | null; failures: RefundFailure[] } {
  const failures: RefundFailure[] = [];
  if (rules.destination === 'NONE') return { destination: null, failures };

  if (rules.destination === 'CLABE') {
    if (input.bank_code === undefined || input.clabe === undefined) {
      return { destination: null, failures: [{ key: 'CLABE_REQUIRED', description: `${input.clabe === undefined ? 'clabe' : 'bank_code'}: is required for OXXO, PAYNET and SPEI refunds.` }] };
    }
    const clabe = validateClabe(input.clabe);
    if (!clabe.ok) return { destination: null, failures: [{ key: 'CLABE_INVALID', description: 'clabe: must be 18 digits with a valid check digit.' }] };
    if (Number(clabe.bankCode) !== input.bank_code) {
      return { destination: null, failures: [{ key: 'CLABE_INVALID', description: 'bank_code: does not match the bank of the clabe.' }] };
    }
    return { destination: { kind: 'CLABE', bank_code: clabe.bankCode, clabe: clabe.value }, failures };
  }

  const bankGiven = BANK_FIELDS.some((f) => input[f] !== undefined);
  if (input.pix_key !== undefined && bankGiven) {
    return { destination: null, failures: [{ key: 'REFUND_DESTINATION_AMBIGUOUS', description: 'pix_key: give either pix_key or the bank-account fields, not both.' }] };
  }
  if (input.pix_key !== undefined) {
    const key = validatePixKey(input.pix_key);
    if (!key.ok) return { destination: null, failures: [{ key: 'PIX_KEY_INVALID', description: 'pix_key: is not a valid CPF, CNPJ, e-mail, +55 mobile or random key.' }] };
    return { destination: { kind: 'PIX_KEY', pix_key: key.value, pix_key_type: key.type }, failures };
  }
  if (!bankGiven) {
    return { destination: null, failures: [{ key: 'REFUND_DESTINATION_REQUIRED', description: 'pix_key: a BOLETO refund needs pix_key or the bank-account fields.' }] };
  }
  for (const field of BANK_FIELDS) {
    const value = input[field];
    const rule = BANK_FIELD_RULES[field];
    if (value === undefined) {
      if (rule.required) failures.push({ key: 'BANK_ACCOUNT_INVALID', description: `${field}: is required with the bank-account fields.` });
    } else if (!rule.pattern.test(value)) {
      failures.push({ key: 'BANK_ACCOUNT_INVALID', description: `${field}: ${rule.rule}.` });
    }
  }
  if (failures.length > 0) return { destination: null, failures };
  return { destination: bankAccountOf(input), failures };
}

/**
 * A Brazilian bank account from fields that passed BANK_FIELD_RULES (a refund's destination, a
 * settlement's): the optional agency check digit null when absent.
 * @example bankAccountOf({ type: 'CHECKING', bank_number: '341', agency_number: '1234', account_number: '56789', account_check_digit: '0' })
 */
export function bankAccountOf(input: DestinationInput) {
  return {
    kind: 'BANK_ACCOUNT' as const,
    type: input.type as 'CHECKING' | 'SAVINGS',
    bank_number: input.bank_number ?? '',
    agency_number: input.agency_number ?? '',
    agency_check_digit: input.agency_check_digit ?? null,
    account_number: input.account_number ?? '',
    account_check_digit: input.account_check_digit ?? '',
  };
}
