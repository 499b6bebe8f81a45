/**
 * The closed catalogue of Colibri's error codes. Every error a client can see is listed here once,
 * with its HTTP status and a default description; `docs/errors.md` is generated from this table
 * (`npm run docs:errors`) and a test fails when the two differ.
 *
 * Codes follow the spec's `NN.NN.NNNN` form. The first pair names the area (00 shared, 01 refunds,
 * 02 payouts, 03 checkout, 04 subscriptions, 05 reports, 06 3DS, 07 callbacks, 08 dashboard, 09 disputes, 10 balances and settlements, 11 reconciliation), the second the family, and the last
 * four the rule. The spec's own codes keep their numbers.
 */
export interface ErrorDefinition {
  readonly code: string;
  readonly status: number;
  readonly description: string;
}

function define<const T extends Record<string, ErrorDefinition>>(catalogue: T): T {
  return catalogue;
}

export const ERRORS = define({
  // 00.00 — the HTTP envelope
  INTERNAL: { code: '00.00.0001', status: 500, description: 'An unexpected error occurred. It has been logged; please contact support with the request id.' },
  ROUTE_NOT_FOUND: { code: '00.00.0002', status: 404, description: 'There is no endpoint at this method and path.' },
  PAYLOAD_TOO_LARGE: { code: '00.00.0003', status: 413, description: 'The request body is larger than the service accepts.' },
  UNSUPPORTED_MEDIA_TYPE: { code: '00.00.0004', status: 415, description: 'The request body has a content type this endpoint does not accept.' },
  MALFORMED_BODY: { code: '00.00.0005', status: 400, description: 'The request body could not be parsed in its declared content type.' },
  RATE_LIMITED: { code: '00.00.0006', status: 429, description: 'Too many requests; retry after the time given in the Retry-After header.' },
  SANDBOX_ONLY: { code: '00.00.0007', status: 404, description: 'This endpoint exists only in sandbox mode.' },
  BODY_TOO_DEEP: { code: '00.00.0008', status: 400, description: 'The JSON body nests deeper than the endpoint accepts (32 levels unless its documentation says otherwise).' },
  URL_INVALID: { code: '00.00.0009', status: 400, description: 'The request path is not a valid URL (for example, a malformed percent-encoding).' },
  URL_PARAMETER_TOO_LONG: { code: '00.00.0010', status: 414, description: 'A path parameter is longer than any identifier Colibri issues.' },
  METHOD_NOT_ALLOWED: { code: '00.00.0011', status: 405, description: 'The endpoint exists but not with this method; the Allow header lists the methods it takes.' },

  // 00.09 — availability: the service is up, a part it needs is not (retry after Retry-After)
  DATABASE_UNAVAILABLE: { code: '00.09.0001', status: 503, description: 'The database could not be reached for a moment. Retry the request, with the same Idempotency-Key, after the time given in Retry-After.' },

  // 00.10 — resource state: a move its state table (lib/state-machine.ts, each domain's states.ts) does not allow
  STATUS_MOVE_NOT_ALLOWED: {
    code: '00.10.0001',
    status: 409,
    description: "The resource's status does not allow this change; the description names the current status and the ones the change needs.",
  },

  // 00.01 — field validation (one entry per failing field)
  FIELD_REQUIRED: { code: '00.01.0001', status: 400, description: 'A required field is missing.' },
  FIELD_TYPE: { code: '00.01.0002', status: 400, description: 'A field has the wrong type.' },
  FIELD_FORMAT: { code: '00.01.0003', status: 400, description: 'A field does not have the required format.' },
  FIELD_TOO_LONG: { code: '00.01.0004', status: 400, description: 'A field is longer than allowed.' },
  FIELD_NOT_ALLOWED: { code: '00.01.0005', status: 400, description: 'A field has a value outside the allowed set.' },
  FIELD_OUT_OF_RANGE: { code: '00.01.0006', status: 400, description: 'A numeric field is outside the allowed range.' },
  FIELD_TOO_SHORT: { code: '00.01.0007', status: 400, description: 'A field is shorter than allowed, or empty.' },
  FIELD_INVALID: { code: '00.01.0008', status: 400, description: 'A field breaks a rule of its own; the description names it.' },
  FIELD_NUL_CHARACTER: { code: '00.01.0009', status: 400, description: 'A text field or field name contains a NUL character (U+0000), which Colibri cannot store.' },
  FIELD_LONE_SURROGATE: { code: '00.01.0010', status: 400, description: 'A text field or field name contains a lone UTF-16 surrogate (such as "\\ud800"), which is not valid Unicode.' },
  FIELD_TOO_LARGE: { code: '00.01.0011', status: 400, description: 'A free-form field is larger than allowed once written as JSON (extra_data: 16 KB).' },
  AMOUNT_DECIMALS: { code: '00.01.0044', status: 400, description: 'amount: Value must have a maximum of two decimal places.' },

  // 00.02 — authentication and authorisation
  ACCESS_DENIED: { code: '00.02.0001', status: 401, description: 'Access Denied' },
  ADMIN_TOKEN_REQUIRED: { code: '00.02.0002', status: 401, description: 'A valid admin bearer token is required.' },
  TOKEN_KEYS_CONFIGURED: { code: '00.02.0003', status: 409, description: 'Token signing keys come from COLIBRI_TOKEN_SIGNING_KEYS; rotate them by changing that setting.' },

  // 00.03 — external systems
  EXTERNAL_API: { code: '00.03.0001', status: 502, description: 'There was an issue when contacting an external API, please contact support' },
  CONNECTOR_NOT_CONFIGURED: { code: '00.03.0002', status: 422, description: 'No processor connector serves this payment method for this merchant in live mode (docs/connectors.md).' },
  CONNECTOR_SIGNATURE_INVALID: { code: '00.03.0003', status: 401, description: "A provider notification's signature does not verify; nothing was applied." },
  CONNECTOR_UNKNOWN: { code: '00.03.0004', status: 400, description: 'connector: is not a connector that can serve this method in this mode; the description names the problem.' },
  CONNECTOR_REFERENCE_UNKNOWN: { code: '00.03.0005', status: 422, description: 'A provider notification names a charge this Colibri never issued; nothing was applied.' },
  CONNECTOR_CLIENT_CERTIFICATE: { code: '00.03.0006', status: 403, description: "The provider's client certificate is not one this listener accepts; nothing was applied." },

  // 00.04 — payment state
  CONTRACT_INVALID: { code: '00.04.0001', status: 400, description: 'contract_id: is not a contract of this merchant.' },
  AMOUNT_BELOW_MINIMUM: { code: '00.04.0002', status: 400, description: 'payment.amount: must be at least 1.00 BRL.' },
  CURRENCY_UNSUPPORTED: { code: '00.04.0003', status: 400, description: 'The asset is not a currency Colibri accepts.' },
  AUTHENTICATION_REQUIRED: { code: '00.04.0004', status: 400, description: 'authentication: is required for DEBITCARD payments.' },
  CARD_NOT_OF_PERSON: { code: '00.04.0005', status: 400, description: 'public_card_id: the card does not belong to this person.' },
  CARD_NOT_ACTIVE: { code: '00.04.0006', status: 400, description: 'public_card_id: the card is not ACTIVE.' },
  DEBIT_OPTION_UNSUPPORTED: { code: '00.04.0007', status: 400, description: 'DEBITCARD payments take no installments and no delay_capture.' },
  PERSON_NOT_FOUND: { code: '00.04.0008', status: 400, description: "public_person_id: no such person for this merchant (another merchant's person is not found either)." },
  CARD_NOT_FOUND: { code: '00.04.0009', status: 400, description: "public_card_id: no such card for this merchant (another merchant's card is not found either)." },
  NOT_PRE_AUTHORIZED: { code: '00.04.0010', status: 422, description: "The payment token was not pre-authorised, so it can't be captured." },
  CAPTURE_ABOVE_AUTHORIZED: { code: '00.04.0011', status: 400, description: 'amount: must be less than or equal to the pre-authorised amount.' },
  PRE_AUTHORIZATION_EXPIRED: { code: '00.04.0012', status: 422, description: 'The pre-authorisation is older than 5 days and was canceled.' },
  NOT_CANCELABLE: { code: '00.04.0013', status: 422, description: 'Only a PRE_AUTHORIZED payment can be canceled.' },
  AUTHENTICATION_MISMATCH: {
    code: '00.04.0014',
    status: 400,
    description: "authentication: the 3DS data does not match an unused successful authentication of Colibri's 3DS server for this merchant, card and amount; the description names the field.",
  },
  // 00.04.0015–00.04.0029 — external 3DS data and installment plans (docs/3ds.md, docs/fees.md)
  AUTHENTICATION_MALFORMED: {
    code: '00.04.0015',
    status: 400,
    description: "authentication: 3DS data of another 3DS server is not well formed (an ECI the card's scheme defines, the CAVV as base64 of 20 bytes, version 2.1.0, 2.2.0 or 2.3.1, dstrans_id a UUID); the description names the field.",
  },
  INSTALLMENTS_BEYOND_PLAN: {
    code: '00.04.0017',
    status: 400,
    description: "payment.installments: more installments than the merchant's installment plan offers; the description names the most it offers (GET /installments lists the options).",
  },
  AUTHENTICATION_REUSED: { code: '00.04.0016', status: 400, description: 'authentication.dstrans_id: this authentication already paid a payment of this merchant; each authentication pays once.' },

  // 00.05 — lookups
  NOT_FOUND: { code: '00.05.0001', status: 404, description: 'The resource does not exist or belongs to another merchant.' },

  // 00.06 — idempotency
  IDEMPOTENCY_KEY_REUSED: { code: '00.06.0001', status: 422, description: 'This Idempotency-Key was used with a different request body.' },
  IDEMPOTENCY_KEY_IN_PROGRESS: { code: '00.06.0002', status: 409, description: 'A request with this Idempotency-Key is still being processed; retry shortly.' },
  IDEMPOTENCY_KEY_INVALID: { code: '00.06.0003', status: 400, description: 'Idempotency-Key must be 1 to 255 visible ASCII characters.' },

  // 00.07 — vault: persons and cards of the checkout flow (docs/cards-and-persons.md)
  TAX_ID_INVALID: { code: '00.07.0001', status: 400, description: 'tax_id: The tax id is not a valid CPF or CNPJ of the given tax_id_type.' },
  CARD_NUMBER_INVALID: { code: '00.07.0002', status: 400, description: 'number: The card number is not valid: 12 to 19 digits that pass the Luhn check, of a length its scheme issues.' },
  CARD_SCHEME_UNSUPPORTED: { code: '00.07.0003', status: 400, description: 'number: The card belongs to none of the schemes Colibri processes (VISA, MASTER, ELO, AMERICAN_EXPRESS, DINERS_CLUB, DISCOVER, JCB).' },
  CARD_EXPIRED: { code: '00.07.0004', status: 400, description: 'The card has expired: its expiry month is over on the merchant clock.' },
  CARD_EXPIRY_INVALID: { code: '00.07.0005', status: 400, description: 'exp_month or exp_year is not a valid expiry date.' },
  CARD_CVV_INVALID: { code: '00.07.0006', status: 400, description: 'cvv: must be 3 digits, or 4 digits for AMERICAN_EXPRESS.' },
  CARD_VERIFICATION_FAILED: { code: '00.07.0007', status: 400, description: 'The processor declined the card verification (for example, a wrong CVV); nothing was stored.' },
  CARD_ENCRYPTION_INVALID: {
    code: '00.07.0020',
    status: 400,
    description: "encrypted_card: is not a card encrypted by Colibri.encryptCard with this merchant's published key (or it was altered).",
  },
  CARD_ENCRYPTION_CONFLICT: { code: '00.07.0021', status: 400, description: 'encrypted_card: send either the encrypted card or number and cvv, not both.' },

  // 01 — refunds
  REFUND_STATUS_NOT_ALLOWED: { code: '01.05.0030', status: 400, description: 'Current payment status does not allow refund' },
  REFUND_CURRENCY_NOT_ELIGIBLE: { code: '01.05.0031', status: 400, description: 'Only transactions priced and paid in the currency of their method (BRL for Brazilian methods, MXN for OXXO, PAYNET and SPEI) are eligible for refunds.' },
  PARTIAL_REFUND_NOT_ALLOWED: { code: '01.05.0032', status: 400, description: "amount: this payment method allows only a refund of the whole amount." },
  REFUND_WINDOW_CLOSED: { code: '01.05.0033', status: 400, description: 'The refund window of this payment method has closed.' },
  REFUND_AMOUNT_EXCEEDS_REFUNDABLE: { code: '01.05.0034', status: 400, description: 'amount: must be less than or equal to the amount still refundable.' },
  REFUND_DESTINATION_REQUIRED: { code: '01.05.0035', status: 400, description: 'A BOLETO refund needs pix_key or the bank-account fields.' },
  REFUND_DESTINATION_AMBIGUOUS: { code: '01.05.0036', status: 400, description: 'Give either pix_key or the bank-account fields, not both.' },
  PIX_KEY_INVALID: { code: '01.05.0037', status: 400, description: 'pix_key: is not a valid CPF, CNPJ, e-mail, +55 mobile or random key.' },
  BANK_ACCOUNT_INVALID: { code: '01.05.0038', status: 400, description: 'A bank-account field of a BOLETO refund is invalid; the description names it.' },
  CLABE_REQUIRED: { code: '01.05.0039', status: 400, description: 'OXXO, PAYNET and SPEI refunds need bank_code and clabe.' },
  CLABE_INVALID: { code: '01.05.0040', status: 400, description: 'clabe: must be 18 digits with a valid check digit.' },
  REFUND_AMOUNT_DISPUTED: { code: '01.05.0041', status: 400, description: 'amount: part of it is held by a dispute of the payment; only what no dispute holds can be refunded (docs/disputes.md).' },

  // 02 — payouts (docs/payouts.md). 02.01: one code per validation rule of payouts/validation/rules.ts,
  // numbered in the order the rules are checked; payouts/payout-errors.ts maps each rule to its code.
  // Each answer's description is the failing item's field path followed by the rule's own sentence.
  PAYOUT_BATCH_EMPTY: { code: '02.01.0001', status: 400, description: 'payoutTransactions: must contain at least one payout item.' },
  PAYOUT_ITEM_NOT_AN_OBJECT: { code: '02.01.0002', status: 400, description: 'A payout item is not a JSON object.' },
  PAYOUT_REQUIRED: { code: '02.01.0003', status: 400, description: 'A required payout field is missing, null or blank.' },
  PAYOUT_NOT_A_STRING: { code: '02.01.0004', status: 400, description: 'A payout field that must be a string is not one.' },
  PAYOUT_UNSUPPORTED_COUNTRY: { code: '02.01.0005', status: 400, description: 'payment_country: must be CO, PE or CL.' },
  PAYOUT_UNSUPPORTED_CURRENCY: { code: '02.01.0006', status: 400, description: "original_currency: must be one of Colibri's currencies; payment_currency: must be COP, PEN or CLP." },
  PAYOUT_CURRENCY_NOT_OF_COUNTRY: { code: '02.01.0007', status: 400, description: 'payment_currency: must be the currency of payment_country (CO COP, PE PEN, CL CLP).' },
  PAYOUT_AMOUNT_INVALID: { code: '02.01.0008', status: 400, description: 'original_amount: must be a plain decimal number or decimal string.' },
  PAYOUT_AMOUNT_NOT_POSITIVE: { code: '02.01.0009', status: 400, description: 'original_amount: must be greater than zero.' },
  PAYOUT_AMOUNT_DECIMALS: { code: '02.01.0010', status: 400, description: 'original_amount: has more decimals than its currency (2 for COP and PEN, none for CLP).' },
  PAYOUT_AMOUNT_TOO_LARGE: { code: '02.01.0011', status: 400, description: 'original_amount: is above the limit of 10^15 minor units.' },
  PAYOUT_UNSUPPORTED_PAYOUT_METHOD: { code: '02.01.0012', status: 400, description: 'payout_method: must be BANK_TRANSFER.' },
  PAYOUT_CONTRACT_ID_INVALID: { code: '02.01.0013', status: 400, description: 'contract_id: must be a non-empty string or a positive integer.' },
  PAYOUT_NOTIFICATION_URL_INVALID: { code: '02.01.0014', status: 400, description: 'notification_url: must be an absolute http or https URL of at most 2048 characters.' },
  PAYOUT_REQUIRED_OBJECT_MISSING: { code: '02.01.0015', status: 400, description: 'The recipient object of payment_country (required_CO, required_PE or required_CL) is missing.' },
  PAYOUT_REQUIRED_OBJECT_NOT_AN_OBJECT: { code: '02.01.0016', status: 400, description: 'The recipient object of payment_country is not a JSON object.' },
  PAYOUT_REQUIRED_OBJECT_NOT_ALLOWED: { code: '02.01.0017', status: 400, description: 'A recipient object of another country than payment_country is present.' },
  PAYOUT_ACCOUNT_TYPE_NOT_ALLOWED: { code: '02.01.0018', status: 400, description: "account_type: is not one of the country's account types." },
  PAYOUT_BANK_CODE_NOT_ALLOWED: { code: '02.01.0019', status: 400, description: "bank_code: is not one of the country's allowed bank codes." },
  PAYOUT_CO_NC_PREFIX_57: { code: '02.01.0020', status: 400, description: 'account_number: must start with 57 for a CO NC (Transfiya) account.' },
  PAYOUT_CO_NC_MOBILE_FORMAT: { code: '02.01.0021', status: 400, description: 'account_number: must be 57 and a 10-digit Colombian mobile number for a CO NC account.' },
  PAYOUT_PE_BANK_002_ACCOUNT_LENGTH: { code: '02.01.0022', status: 400, description: 'account_number: must be 13 digits (CC) or 14 digits (CA) at PE bank 002.' },
  PAYOUT_PE_CCI_FORMAT: { code: '02.01.0023', status: 400, description: 'account_number: must be a 20-digit interbank account code (CCI) at PE banks other than 002.' },
  PAYOUT_PE_CCI_CHECK_DIGIT: { code: '02.01.0024', status: 400, description: "account_number: the interbank account code's check digits are wrong." },
  PAYOUT_CL_CV_STATE_BANK_ACCOUNT: { code: '02.01.0025', status: 400, description: "account_number: must be the recipient's RUT body for a CL CV account at BancoEstado (012)." },
  PAYOUT_CL_CV_ACCOUNT_IS_RUT: { code: '02.01.0026', status: 400, description: 'account_number: must be the bank account number, not the RUT, for a CL CV account at banks other than 012.' },
  PAYOUT_ACCOUNT_NUMBER_FORMAT: { code: '02.01.0027', status: 400, description: 'account_number: must be 1 to 20 digits.' },
  PAYOUT_TAX_ID_TYPE_NOT_ALLOWED: { code: '02.01.0028', status: 400, description: "tax_id_type: is not one of the country's tax id types." },
  PAYOUT_CO_CC_FORMAT: { code: '02.01.0029', status: 400, description: 'tax_id: must be 6 to 10 digits for CO tax_id_type CC.' },
  PAYOUT_CO_NIT_FORMAT: { code: '02.01.0030', status: 400, description: 'tax_id: must be 9 or 10 digits, the NIT and its check digit, for CO tax_id_type NIT.' },
  PAYOUT_CO_NIT_CHECK_DIGIT: { code: '02.01.0031', status: 400, description: 'tax_id: the NIT check digit is wrong.' },
  PAYOUT_CO_CE_FORMAT: { code: '02.01.0032', status: 400, description: 'tax_id: must be 1 to 15 letters or digits for CO tax_id_type CE.' },
  PAYOUT_CO_TI_FORMAT: { code: '02.01.0033', status: 400, description: 'tax_id: must be 10 or 11 digits for CO tax_id_type TI.' },
  PAYOUT_CO_PP_FORMAT: { code: '02.01.0034', status: 400, description: 'tax_id: must be 1 to 15 letters or digits for CO tax_id_type PP.' },
  PAYOUT_PE_TAX_ID_LENGTH: { code: '02.01.0035', status: 400, description: 'tax_id: must be 8 characters (DNI), 11 (RUC), or at most 12 (CE, PAS) in PE.' },
  PAYOUT_PE_DNI_FORMAT: { code: '02.01.0036', status: 400, description: 'tax_id: must be digits only for PE tax_id_type DNI.' },
  PAYOUT_PE_RUC_FORMAT: { code: '02.01.0037', status: 400, description: 'tax_id: must be digits only for PE tax_id_type RUC.' },
  PAYOUT_PE_RUC_PREFIX: { code: '02.01.0038', status: 400, description: 'tax_id: a RUC must start with 10, 15, 17 or 20.' },
  PAYOUT_PE_RUC_CHECK_DIGIT: { code: '02.01.0039', status: 400, description: 'tax_id: the RUC check digit is wrong.' },
  PAYOUT_PE_CE_FORMAT: { code: '02.01.0040', status: 400, description: 'tax_id: must be letters and digits only for PE tax_id_type CE.' },
  PAYOUT_PE_PAS_FORMAT: { code: '02.01.0041', status: 400, description: 'tax_id: must be letters and digits only for PE tax_id_type PAS.' },
  PAYOUT_CL_RUT_FORMAT: { code: '02.01.0042', status: 400, description: 'tax_id: must be a RUT written 12.345.678-5, 12345678-5 or 123456785.' },
  PAYOUT_CL_RUT_CHECK_DIGIT: { code: '02.01.0043', status: 400, description: 'tax_id: the RUT check digit is wrong.' },
  PAYOUT_CL_RUT_LOWERCASE_K: { code: '02.01.0044', status: 400, description: 'tax_id: the RUT check digit K must be upper case.' },
  PAYOUT_EMAIL_FORMAT: { code: '02.01.0045', status: 400, description: 'email: is not an e-mail address of at most 254 characters.' },
  PAYOUT_FULL_NAME_TOO_LONG: { code: '02.01.0046', status: 400, description: 'full_name: is longer than 100 characters.' },
  PAYOUT_PE_CCI_BANK_MISMATCH: { code: '02.01.0047', status: 400, description: "account_number: a PE interbank account code (CCI) must start with the item's bank_code." },

  // 02.02 — the batch as a whole and the merchant's side of it, checked before anything is stored.
  PAYOUT_BATCH_TOO_LARGE: { code: '02.02.0001', status: 400, description: 'payoutTransactions: must have at most 1000 payout items.' },
  PAYOUT_CONTRACT_NOT_OWNED: { code: '02.02.0002', status: 400, description: "contract_id: is not this merchant's payout_contract_id." },
  PAYOUT_AMOUNT_BELOW_FEES: { code: '02.02.0003', status: 400, description: 'original_amount: does not cover the customer fees, so the recipient would receive nothing.' },
  PAYOUT_FX_RATE_MISSING: { code: '02.02.0004', status: 422, description: 'There is no stored FX rate between original_currency and payment_currency.' },

  // 02.03 — payouts through a connector and FX
  PAYOUT_CONNECTOR_FIELD_REQUIRED: { code: '02.03.0001', status: 400, description: "A recipient field the interface makes optional is required by the merchant's payout connector (dLocal needs full_name)." },

  // 03 — hosted checkout (docs/checkout.md). 03.01: rules of POST /checkout/generate beyond the shared
  // field codes; 03.02: a session's state; 03.03: the sandbox payer.
  CHECKOUT_METHOD_INVALID: { code: '03.01.0001', status: 400, description: 'method: must be PIX, CREDITCARD, DEBITCARD, BOLETO, PICPAY, OXXO, PAYNET or SPEI, an array of them, or ALL.' },
  CHECKOUT_URL_INVALID: { code: '03.01.0002', status: 400, description: 'The URL must be an absolute http or https URL of at most 2048 characters.' },
  CHECKOUT_COUNTRY_UNSUPPORTED: { code: '03.01.0003', status: 400, description: 'paymentCountry: must be BR or MX, the country of every method of the session.' },
  CHECKOUT_PAYMENT_CURRENCY_UNSUPPORTED: { code: '03.01.0004', status: 400, description: 'paymentCurrency: must be the currency of paymentCountry (BRL for BR, MXN for MX).' },
  CHECKOUT_PIX_DIRECT_WITHOUT_PIX: { code: '03.01.0005', status: 400, description: 'pixDirect: needs PIX among the methods.' },
  CHECKOUT_SAVE_CARD_WITHOUT_CARD: { code: '03.01.0006', status: 400, description: 'saveCard: needs CREDITCARD or DEBITCARD among the methods.' },
  CHECKOUT_BOLETO_PAYER_REQUIRED: {
    code: '03.01.0007',
    status: 400,
    description:
      "In live mode a boleto registered with a bank needs its payer (name, CPF or CNPJ, and address with CEP): pass customer and billingAddress to /checkout/generate, or the payer to the page's boleto attempt.",
  },
  CHECKOUT_NOT_OPEN: { code: '03.02.0001', status: 422, description: 'The checkout session is PAID, CANCELED, ERROR or expired; no payment can be started in it.' },
  CHECKOUT_ATTEMPT_IN_PROGRESS: { code: '03.02.0002', status: 409, description: 'A payment of this checkout session is still processing (a card, or a paid boleto compensating); wait for its outcome.' },
  CHECKOUT_METHOD_NOT_OFFERED: { code: '03.02.0003', status: 400, description: 'method: is not one of the methods of this checkout session.' },
  CHECKOUT_AUTHENTICATION_FAILED: { code: '03.02.0004', status: 422, description: 'The debit card was not authenticated with 3DS (unenrolled, not allowed, failed challenge or error); pay with another card or method.' },
  SANDBOX_PAY_METHOD_UNSUPPORTED: { code: '03.03.0001', status: 422, description: 'Only PIX, BOLETO, PICPAY, OXXO, PAYNET and SPEI payments are paid through the sandbox payer; cards are paid by the simulator.' },
  SANDBOX_PAY_NOT_AWAITING: { code: '03.03.0002', status: 422, description: 'The payment is not awaiting payment (it is not CREATED, or it has expired).' },

  // 04 — subscriptions (docs/subscriptions.md). 04.01: rules of POST /subscriptions and of the charge
  // endpoint beyond the shared field rules (person, card, amount and asset reuse 00.01 and 00.04 codes).
  SUBSCRIPTION_DATE_INVALID: { code: '04.01.0001', status: 400, description: 'The date is not a real calendar date written YYYY-MM-DD.' },
  SUBSCRIPTION_DATE_OUT_OF_RANGE: { code: '04.01.0002', status: 400, description: 'The date is outside the accepted window on the merchant clock (first_due_date: today to 5 years ahead; due_date: 1 year back to 5 years ahead).' },
  SUBSCRIPTION_AMOUNT_REQUIRED: { code: '04.01.0003', status: 400, description: 'amount and asset: are required for a FIXED subscription.' },
  SUBSCRIPTION_AMOUNT_NOT_ALLOWED: { code: '04.01.0004', status: 400, description: 'amount and asset: are not accepted for a VARIABLE subscription; each charge gives its own.' },
  CHARGE_AMOUNT_REQUIRED: { code: '04.01.0005', status: 400, description: 'amount and asset: are required to charge a VARIABLE subscription.' },
  CHARGE_AMOUNT_NOT_ALLOWED: { code: '04.01.0006', status: 400, description: "amount and asset: are not accepted when charging a FIXED subscription; the subscription's amount applies." },

  // 04.02 — subscription and charge state
  SUBSCRIPTION_STATUS_CONFLICT: { code: '04.02.0001', status: 422, description: 'The subscription is CANCELED: it takes no more charges and cannot be canceled again.' },
  CHARGE_DUE_DATE_TAKEN: { code: '04.02.0002', status: 409, description: 'The subscription already has a charge on this due date.' },

  // 05 — reports (docs/reports.md). 05.01: rules of a report definition beyond its shape, checked in
  // this order: columns, expressions, grouping, filters, orderings; each description names the item's path.
  REPORT_FIELD_UNKNOWN: { code: '05.01.0001', status: 400, description: 'field.id: is not a field of the catalogue (docs/reports.md).' },
  REPORT_FIELD_NOT_IN_TYPE: { code: '05.01.0002', status: 400, description: 'field.id: the field is not available in reports of this report_type.' },
  REPORT_OPERATOR_NOT_ALLOWED: { code: '05.01.0003', status: 400, description: "filter_operator: does not apply to the field's type." },
  REPORT_FILTER_VALUE: { code: '05.01.0004', status: 400, description: "value: is not a value of the field's type for this operator." },
  REPORT_DYNAMIC_VALUE: { code: '05.01.0005', status: 400, description: 'dynamic_filter: dynamic values (NOW, CURRENT_DAY, CURRENT_MONTH, LAST_7_DAYS) apply to date fields only, with a comparison operator.' },
  REPORT_PARENTHESES: { code: '05.01.0006', status: 400, description: "open_parentheses / close_parentheses: do not balance within the column's expression." },
  REPORT_FIELD_POSITION: { code: '05.01.0007', status: 400, description: 'field_position: is not the position of a column of the report.' },
  REPORT_DUPLICATE_POSITION: { code: '05.01.0008', status: 400, description: 'position: another item of the same list has this position.' },
  REPORT_DUPLICATE_ID: { code: '05.01.0009', status: 400, description: 'id: another item of the same list has this id.' },
  REPORT_DUPLICATE_ALIAS: { code: '05.01.0010', status: 400, description: 'alias: another column has this alias; aliases name the columns of an export.' },
  REPORT_GROUP_BY_UNKNOWN: { code: '05.01.0011', status: 400, description: 'group_by: names no column alias.' },
  REPORT_NOT_GROUPED: { code: '05.01.0012', status: 400, description: 'aggregation_operator: the report groups rows, so a column that is not in group_by needs an aggregation.' },
  REPORT_GROUPED_AGGREGATE: { code: '05.01.0013', status: 400, description: 'aggregation_operator: a column listed in group_by cannot also be aggregated.' },
  REPORT_AGGREGATION_NOT_ALLOWED: { code: '05.01.0014', status: 400, description: "aggregation_operator: does not apply to the field's type." },
  REPORT_MONEY_CURRENCY: { code: '05.01.0015', status: 400, description: "An amount in a grouped report needs a column of its currency field in group_by, so no total adds up two currencies." },
  REPORT_ARITHMETIC: { code: '05.01.0016', status: 400, description: 'arithmetic_operator: combines only numbers with numbers, or amounts of the same currency, and needs a next column.' },
  REPORT_WRAP: { code: '05.01.0017', status: 400, description: 'wrap: DAY, MONTH and YEAR apply to date fields only.' },
  REPORT_ID_MISMATCH: { code: '05.01.0018', status: 400, description: 'id: differs from the report id of the path.' },
  REPORT_MASKED_FIELD: { code: '05.01.0019', status: 400, description: 'A masked field (tax_id, account_number) can be shown or counted, but not filtered, grouped or ordered by.' },
  // 05.02 — a saved report's state
  REPORT_DISABLED: { code: '05.02.0001', status: 422, description: 'The report is disabled (enable: false); enable it to export it.' },
  REPORT_DEFINITION_OUTDATED: { code: '05.02.0002', status: 422, description: 'The stored definition no longer passes the field catalogue; update the report to export it.' },
  REPORT_LIMIT_REACHED: { code: '05.02.0003', status: 422, description: 'The merchant has 1000 saved reports, the most it may keep; delete one first.' },

  // 06 — 3DS (docs/3ds.md). 06.01: the library's authentication request; 06.02: the issuer's
  // challenge; 06.03: POST /checkout/3ds/payment, checked in this order.
  THREE_DS_CONTRACT_UNKNOWN: { code: '06.01.0001', status: 400, description: 'contractId: is not the contract id of any merchant.' },
  THREE_DS_REQUEST_INVALID: { code: '06.01.0002', status: 400, description: 'A field of the authentication request breaks a rule of the 3DS library; the description names it.' },
  THREE_DS_DEBIT_INSTALLMENTS: { code: '06.01.0003', status: 400, description: 'paymentMethod.installments: DEBIT_CARD payments take no installments.' },
  THREE_DS_UNAVAILABLE: { code: '06.01.0004', status: 422, description: 'No directory server is configured in live mode; 3DS authentication is simulated in sandbox mode only.' },
  THREE_DS_CHALLENGE_NOT_FOUND: { code: '06.02.0001', status: 404, description: 'There is no challenge with this id.' },
  THREE_DS_CHALLENGE_ANSWERED: { code: '06.02.0002', status: 409, description: 'The challenge was already answered; each challenge takes one answer.' },
  THREE_DS_CHALLENGE_EXPIRED: { code: '06.02.0003', status: 422, description: 'The challenge was not answered within 10 minutes.' },
  THREE_DS_NOT_FOUND: { code: '06.03.0001', status: 404, description: "id: no 3DS authentication of this merchant has this id (another merchant's is not found either)." },
  THREE_DS_TOKEN_MISMATCH: { code: '06.03.0002', status: 400, description: 'paymentToken: is not the payment token issued with this authentication.' },
  THREE_DS_PENDING: { code: '06.03.0003', status: 422, description: "The authentication is not finished: the customer's challenge answer is awaited." },
  THREE_DS_NOT_AUTHENTICATED: { code: '06.03.0004', status: 422, description: 'The authentication did not succeed (unenrolled, not allowed, error or failed challenge); it cannot pay.' },
  THREE_DS_ALREADY_USED: { code: '06.03.0005', status: 409, description: 'The authentication already paid; each authentication pays once.' },
  THREE_DS_EXPIRED: { code: '06.03.0006', status: 422, description: 'The authentication is older than 1 hour; authenticate the card again.' },
  THREE_DS_AMOUNT_MISMATCH: { code: '06.03.0007', status: 400, description: "amount: is not the amount the customer authenticated; send the merchant's own order amount." },
  THREE_DS_REFERENCE_MISMATCH: { code: '06.03.0008', status: 400, description: "reference_id: is not the reference the customer authenticated; send the merchant's own order reference." },
  THREE_DS_CARD_DECLINED: { code: '06.03.0009', status: 422, description: 'The processor declined the verification of the authenticated card; it cannot pay.' },
  THREE_DS_RATE_LIMITED: { code: '06.01.0005', status: 429, description: 'Too many authentications from this address or for this contract; retry after the time given in the Retry-After header.' },

  // 07 — callbacks (docs/callbacks.md). 07.01: the event log, GET /webhooks/events and its retry.
  WEBHOOK_EVENT_NOT_FOUND: { code: '07.01.0001', status: 404, description: 'id: no event of this merchant has this id (another merchant\'s is not found either).' },
  WEBHOOK_EVENT_WITHOUT_URL: { code: '07.01.0002', status: 422, description: 'The event has no notification URL, so there is no callback to deliver again.' },
  WEBHOOK_CURSOR_INVALID: { code: '07.01.0003', status: 400, description: 'cursor: is not a next_cursor returned by GET /webhooks/events.' },
  WEBHOOK_DATE_RANGE_INVALID: { code: '07.01.0004', status: 400, description: 'created_from: must not be later than created_to.' },
  // 07.02 — callback targets given at input (docs/callbacks.md, "Where callbacks may go").
  CALLBACK_TARGET_REFUSED: { code: '07.02.0001', status: 400, description: 'The notification URL points at a loopback, private, link-local or metadata address, which live mode never calls (unless the host is in COLIBRI_CALLBACK_ALLOW_HOSTS).' },

  // 09 — disputes (docs/disputes.md). 09.01: lookups; 09.02: evidence and responses; 09.03: amounts; 09.04: the processor.
  DISPUTE_NOT_FOUND: { code: '09.01.0001', status: 404, description: "dispute_id: no dispute of this merchant has this id (another merchant's is not found either)." },
  DISPUTE_RESPONSE_CLOSED: { code: '09.02.0001', status: 409, description: 'The dispute no longer takes evidence or a response: it was submitted, accepted or decided.' },
  DISPUTE_EVIDENCE_REQUIRED: { code: '09.02.0002', status: 400, description: 'evidence: add at least one file or text field before submitting.' },
  DISPUTE_FILE_TYPE: { code: '09.02.0003', status: 415, description: 'file: is not a PDF, JPEG or PNG file by its content (its name and declared type are not trusted).' },
  DISPUTE_FILE_TOO_LARGE: { code: '09.02.0004', status: 413, description: 'file: is larger than 5 MB.' },
  DISPUTE_EVIDENCE_TOO_LARGE: { code: '09.02.0005', status: 413, description: "file: the dispute's files would exceed 10 MB together." },
  DISPUTE_FILE_MISSING: { code: '09.02.0006', status: 400, description: 'file: a multipart upload needs one non-empty part named file.' },
  DISPUTE_AMOUNT_EXCEEDS_DISPUTABLE: { code: '09.03.0001', status: 422, description: 'amount: a dispute cannot exceed what was captured less what was refunded and what other disputes hold.' },
  DISPUTE_PROCESSOR_REFUSED: { code: '09.04.0001', status: 502, description: 'The processor refused the defence or the acceptance; the description gives its reason.' },

  // 11 — reconciliation with the processors (docs/reconciliation.md). 11.01: the report imported; 11.02: lookups; 11.03: resolutions.
  RECONCILIATION_HEADER_INVALID: { code: '11.01.0001', status: 400, description: "The report's header is not its format's: a column Colibri reads is missing or appears twice. Nothing was stored." },
  RECONCILIATION_COLUMN_COUNT: { code: '11.01.0002', status: 400, description: 'A line of the report has more or fewer columns than its header; the description names the line. Nothing was stored.' },
  RECONCILIATION_VALUE_INVALID: { code: '11.01.0003', status: 400, description: 'A value of the report is not of its column\'s type (an amount, a date, a currency, a record type); the description names the line and the column. Nothing was stored.' },
  RECONCILIATION_FILE_INVALID: { code: '11.01.0004', status: 400, description: 'The report is not UTF-8 CSV text (a quote left open, a quote inside a field); the description names the line. Nothing was stored.' },
  RECONCILIATION_FILE_TOO_LARGE: { code: '11.01.0005', status: 413, description: 'The report, or one of its lines, is larger than Colibri reads (2 GB, a line 64 KB). Nothing was stored.' },
  RECONCILIATION_PERIOD_INVALID: { code: '11.01.0006', status: 400, description: 'from and to: a PIX reconciliation needs both, from before to, at most 5 days apart (the API Pix limit).' },
  RECONCILIATION_PIX_NOT_CONFIGURED: { code: '11.01.0007', status: 422, description: 'No PIX connector that lists received PIX (the API Pix) is configured for this instance.' },
  RECONCILIATION_RUN_NOT_FOUND: { code: '11.02.0001', status: 404, description: 'run_id: no reconciliation run has this id.' },
  RECONCILIATION_LINE_NOT_FOUND: { code: '11.02.0002', status: 404, description: 'line_id: the run has no line with this id that did not match.' },
  RECONCILIATION_OPERATOR_REQUIRED: { code: '11.03.0001', status: 400, description: 'X-Operator: a resolution needs the name of the operator who makes it (1 to 100 characters).' },
  RECONCILIATION_ADJUSTMENT_MERCHANT: { code: '11.03.0002', status: 422, description: "adjustment.merchant_id: the line belongs to another merchant; an adjustment moves the line's own merchant's balance." },
  RECONCILIATION_MERCHANT_NOT_FOUND: { code: '11.03.0003', status: 404, description: 'adjustment.merchant_id: no merchant has this id.' },

  // 12 — boleto bank files (docs/connectors.md). 12.01: the files; 12.02: the findings of their returns.
  BOLETO_FILE_NOT_FOUND: { code: '12.01.0001', status: 404, description: 'file_id: no boleto bank file has this id.' },
  BOLETO_FINDING_NOT_FOUND: { code: '12.02.0001', status: 404, description: 'finding_id: no finding of the boleto returns has this id.' },
  BOLETO_FINDING_RESOLVED: { code: '12.02.0002', status: 409, description: 'finding_id: the finding is already resolved.' },

  // 08 — the merchant dashboard (docs/dashboard.md). 08.01: its session.
  DASHBOARD_CSRF_INVALID: { code: '08.01.0001', status: 403, description: 'X-CSRF-Token: missing or not the token of this dashboard session; reload the dashboard.' },
  DASHBOARD_ORIGIN_REFUSED: { code: '08.01.0002', status: 403, description: 'Origin: the dashboard accepts changes only from its own pages.' },
  DASHBOARD_PERIOD_INVALID: { code: '08.02.0001', status: 400, description: 'from: must not be later than to, and the period spans at most 366 days.' },

  // 10 — balances and settlements (docs/balance-and-settlements.md). 10.01–10.04 are left to the balance and
  // its availability schedule; 10.05: settlement lookups; 10.06: settlement settings.
  SETTLEMENT_NOT_FOUND: { code: '10.05.0001', status: 404, description: "settlement_id: no settlement of this merchant has this id (another merchant's is not found either)." },
  SETTLEMENT_CURRENCY_UNSUPPORTED: { code: '10.06.0001', status: 400, description: 'asset: settlements go out in BRL (to a PIX key or a Brazilian bank account) or MXN (to a CLABE).' },
  SETTLEMENT_CURRENCY_REPEATED: { code: '10.06.0002', status: 400, description: 'currencies: name each asset at most once.' },
  SETTLEMENT_DESTINATION_REQUIRED: { code: '10.06.0003', status: 400, description: 'destination: a currency without a registered destination needs one (BRL: pix_key or the bank-account fields; MXN: clabe).' },
  SETTLEMENT_DESTINATION_AMBIGUOUS: { code: '10.06.0004', status: 400, description: 'destination: give either pix_key or the bank-account fields, not both.' },
  SETTLEMENT_DESTINATION_WRONG_CURRENCY: { code: '10.06.0005', status: 400, description: 'destination: a BRL destination is a PIX key or a Brazilian bank account; an MXN destination is a CLABE.' },
  SETTLEMENT_PIX_KEY_INVALID: { code: '10.06.0006', status: 400, description: 'destination.pix_key: is not a valid CPF, CNPJ, e-mail, +55 mobile or random key.' },
  SETTLEMENT_BANK_ACCOUNT_INVALID: { code: '10.06.0007', status: 400, description: 'destination: a bank-account field is missing or malformed; the description names it.' },
  SETTLEMENT_CLABE_INVALID: { code: '10.06.0008', status: 400, description: 'destination.clabe: must be 18 digits with a valid check digit, of the bank in bank_code when given.' },
  SETTLEMENT_MINIMUM_INVALID: { code: '10.06.0009', status: 400, description: 'minimum: must be at least 1.00, with at most two decimal places.' },
});

export type ErrorKey = keyof typeof ERRORS;

export interface ErrorItem {
  readonly code: string;
  readonly description: string;
}

/**
 * The one exception type routes and services throw for client-visible failures. It carries a
 * catalogue key per failing rule; the error handler turns it into the spec's standard error body.
 * @example
 * throw new ApiError('NOT_FOUND', 'payment_token: payment not found');
 * throw ApiError.fields([{ key: 'FIELD_REQUIRED', description: 'amount: is required.' }]);
 */
export class ApiError extends Error {
  readonly status: number;
  readonly items: readonly ErrorItem[];
  /** Sent as `Retry-After` (rate limits). */
  readonly retryAfterSeconds: number | undefined;
  /** Sent as `WWW-Authenticate` with a 401: why the credentials were refused (RFC 6750), where the spec's body has no room for it. */
  readonly challenge: string | undefined;

  constructor(key: ErrorKey, description?: string, options?: { message?: string; retryAfterSeconds?: number; challenge?: string }) {
    const definition = ERRORS[key];
    super(options?.message ?? description ?? definition.description);
    this.name = 'ApiError';
    this.status = definition.status;
    this.items = [{ code: definition.code, description: description ?? definition.description }];
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.challenge = options?.challenge;
  }

  /** Several failures of one request, all answered together; the status is that of the first. */
  static fields(failures: readonly { key: ErrorKey; description: string }[]): ApiError {
    const [first, ...rest] = failures;
    if (!first) throw new Error('ApiError.fields needs at least one failure');
    const error = new ApiError(first.key, first.description, { message: 'Validation failed' });
    (error as { items: readonly ErrorItem[] }).items = [first, ...rest].map((f) => ({
      code: ERRORS[f.key].code,
      description: f.description,
    }));
    return error;
  }
}
