import Ajv, { type ValidateFunction } from 'ajv';

/**
 * JSON Schema of the `POST /payouts/v3` body the dLocal fake accepts, written from dLocal's published Payouts
 * API v3 reference ("Submit a payout", "Payout status", "Error codes") for the bank transfers Colibri sends
 * to CO, PE and CL. The beneficiary's shape (`document {type, id}`, `bank_account {code, type, account}`)
 * is that of dLocal's own v3 payout object (its "Notification parameters" page for Payouts v3, which shows a
 * payout as "Get payout" answers it). Fields Colibri does not send are left out on purpose, and objects refuse fields the
 * schema does not define, so that a misspelt field fails a test instead of being ignored. The limits are
 * the reference's where it gives one (external_id 100 characters, names 50, ISO codes), and the fake's
 * own choice otherwise (stated beside each).
 */

const ISO_COUNTRY = { type: 'string', enum: ['CO', 'PE', 'CL'] };
const ISO_CURRENCY = { type: 'string', pattern: '^[A-Z]{3}$' };

export const PAYOUT_REQUEST_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['external_id', 'country', 'currency', 'amount', 'payment_method_id', 'flow_type', 'purpose', 'beneficiary'],
  properties: {
    external_id: { type: 'string', minLength: 1, maxLength: 100 },
    country: ISO_COUNTRY,
    currency: ISO_CURRENCY,
    currency_to_pay: ISO_CURRENCY,
    // A decimal number with at most two decimals; the fake also checks the country's currency's exponent.
    amount: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 },
    payment_method_id: { const: 'BANK_TRANSFER' },
    flow_type: { enum: ['B2C', 'B2B'] },
    purpose: { type: 'string', minLength: 1, maxLength: 50 },
    notification_url: { type: 'string', pattern: '^https?://', maxLength: 2048 },
    beneficiary: {
      type: 'object',
      additionalProperties: false,
      required: ['first_name', 'last_name', 'document', 'bank_account'],
      properties: {
        first_name: { type: 'string', minLength: 1, maxLength: 50 },
        last_name: { type: 'string', minLength: 1, maxLength: 50 },
        email: { type: 'string', maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$' },
        document: {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'id'],
          properties: { type: { enum: ['CC', 'NIT', 'CE', 'TI', 'PASS', 'DNI', 'RUC', 'RUT'] }, id: { type: 'string', minLength: 1, maxLength: 40 } },
        },
        bank_account: {
          type: 'object',
          additionalProperties: false,
          required: ['account', 'type'],
          properties: {
            code: { type: 'string', pattern: '^\\d{3,4}$' },
            account: { type: 'string', pattern: '^\\d{1,45}$' },
            type: { enum: ['CHECKING', 'SAVINGS', 'MOBILE', 'ELECTRONIC_DEPOSIT', 'MASTER', 'VISTA'] },
          },
        },
      },
    },
  },
} as const;

/** Per country: the currency it pays out in, the document types and account types dLocal takes there. */
export const COUNTRY_RULES: Readonly<Record<string, { currency: string; exponent: number; documents: readonly string[]; accounts: readonly string[] }>> = {
  CO: { currency: 'COP', exponent: 2, documents: ['CC', 'NIT', 'CE', 'TI', 'PASS'], accounts: ['CHECKING', 'SAVINGS', 'MOBILE', 'ELECTRONIC_DEPOSIT'] },
  PE: { currency: 'PEN', exponent: 2, documents: ['DNI', 'RUC', 'CE', 'PASS'], accounts: ['CHECKING', 'SAVINGS', 'MASTER'] },
  CL: { currency: 'CLP', exponent: 0, documents: ['RUT'], accounts: ['CHECKING', 'SAVINGS', 'VISTA'] },
};

const ajv = new Ajv({ allErrors: true, strict: false });
const validatePayout: ValidateFunction = ajv.compile(PAYOUT_REQUEST_SCHEMA);

/**
 * The problems of a payout request, as dLocal's error body names them (`param` and a reason), or none. The
 * schema first, then what a schema cannot say: the currency of the country, its decimals, and the document
 * and account types the country takes; a bank code is required except for a Colombian mobile account.
 */
export function payoutRequestProblems(body: unknown): string[] {
  if (!validatePayout(body)) return (validatePayout.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  const request = body as { country: string; currency: string; currency_to_pay?: string; amount: number; beneficiary: { document: { type: string }; bank_account: { type: string; code?: string } } };
  const rules = COUNTRY_RULES[request.country]!;
  const problems: string[] = [];
  if (request.currency !== rules.currency) problems.push(`/currency must be ${rules.currency} for ${request.country}`);
  if (request.currency_to_pay !== undefined && request.currency_to_pay !== rules.currency) problems.push(`/currency_to_pay must be ${rules.currency} for ${request.country}`);
  const decimals = String(request.amount).split('.')[1]?.length ?? 0;
  if (decimals > rules.exponent) problems.push(`/amount has more than ${rules.exponent} decimals for ${rules.currency}`);
  if (!rules.documents.includes(request.beneficiary.document.type)) problems.push(`/beneficiary/document/type ${request.beneficiary.document.type} is not taken in ${request.country}`);
  if (!rules.accounts.includes(request.beneficiary.bank_account.type)) problems.push(`/beneficiary/bank_account/type ${request.beneficiary.bank_account.type} is not taken in ${request.country}`);
  if (request.beneficiary.bank_account.code === undefined && request.beneficiary.bank_account.type !== 'MOBILE') problems.push('/beneficiary/bank_account/code is required');
  return problems;
}
