import { InstallmentOptionView } from '../payments/installments-route';
import { Type, type Static } from 'typebox';
import { StatusEnum, StringEnum } from '../http/schema-kit';
import { PAYMENT_STATUSES } from '../payments/states';
import { CHECKOUT_METHODS, CHECKOUT_STATUSES, CODE_METHODS, EXPIRES_IN_MAX_SECONDS, EXPIRES_IN_MIN_SECONDS } from './states';

/**
 * Schemas of the checkout endpoints. Shapes are checked here; the rules a schema cannot state
 * clearly (decimal amounts, method lists, absolute URLs, the caller's contract) are checked in
 * generate-checkout.ts, so each failure gets its own catalogue code and wording.
 */

const Url = Type.String({ maxLength: 2048, description: 'absolute http(s) URL' });

/**
 * The boleto's payer at generation, in the shapes of the spec's client library (`customer`, Address), which
 * the spec does not list for /checkout/generate: Colibri's addition (docs/checkout.md, "The boleto payer").
 */
const BoletoCustomer = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 32, description: "the payer's CPF or CNPJ (tax-system id), with or without punctuation; check digits verified" }),
  name: Type.String({ minLength: 1, maxLength: 200, description: "the payer's full name" }),
  email: Type.Optional(Type.String({ maxLength: 254 })),
}, { description: "the boleto's payer; with billingAddress. Required in live mode for a single-method BOLETO session registered with a bank" });

const BillingAddress = Type.Object({
  street: Type.String({ minLength: 1, maxLength: 200 }),
  number: Type.String({ minLength: 1, maxLength: 20 }),
  complement: Type.Optional(Type.String({ maxLength: 100 })),
  district: Type.String({ minLength: 1, maxLength: 100, description: 'the neighbourhood (bairro); not in the spec\'s Address, which banks require on a boleto' }),
  city: Type.String({ minLength: 1, maxLength: 100 }),
  regionCode: Type.String({ minLength: 2, maxLength: 2, description: 'the state (UF), like SP' }),
  country: Type.Optional(Type.String({ minLength: 3, maxLength: 3, description: 'ISO 3166-1 alpha-3; BRA (the default) is the only one a boleto takes' })),
  postalCode: Type.String({ minLength: 1, maxLength: 10, description: 'CEP, 8 digits (01310-100 or 01310100)' }),
}, { description: "the boleto payer's address; with customer" });

export const GenerateCheckoutBody = Type.Object({
  amount: Type.Union([Type.Number(), Type.String({ maxLength: 24 })], { description: 'decimal number or decimal string, at most two decimals, at least 1.00 BRL' }),
  asset: Type.String({ minLength: 3, maxLength: 3, description: 'currency code of amount; converted to BRL at the stored rate' }),
  referenceId: Type.String({ minLength: 1, maxLength: 45, description: 'merchant reference, used in callbacks and on the payments' }),
  contractId: Type.String({ minLength: 1, maxLength: 64, description: "the merchant's contract_id" }),
  method: Type.Union([Type.String({ maxLength: 16 }), Type.Array(Type.String({ maxLength: 16 }), { minItems: 1, maxItems: 8 })], {
    description:
      'PIX, CREDITCARD, DEBITCARD, BOLETO, PICPAY (Brazil) or OXXO, PAYNET, SPEI (Mexico), an array of them, or ALL (PIX, CREDITCARD and BOLETO in Brazil; OXXO, PAYNET and SPEI in Mexico). One method: SINGLE mode; more, or ALL: MULTI.',
  }),
  notificationUrl: Type.Optional(Url),
  successUrl: Type.Optional(Url),
  declinedUrl: Type.Optional(Url),
  errorUrl: Type.Optional(Url),
  pixDirect: Type.Optional(Type.Boolean({ description: 'start the PIX attempt at generation (also in multi-method mode): the answer carries its BR Code and QR code, and the page opens on it' })),
  paymentCountry: Type.Optional(Type.String({ minLength: 2, maxLength: 2, description: 'BR or MX; default: MX when every method is Mexican, otherwise BR' })),
  paymentCurrency: Type.Optional(Type.String({ minLength: 3, maxLength: 3, description: 'the country\'s currency: BRL for BR, MXN for MX (the default)' })),
  saveCard: Type.Optional(Type.Boolean({ description: "keep the customer's card (public_person_id, public_card_id) for later sendPayment" })),
  checkoutNotificationUrl: Type.Optional(Url),
  checkoutReferenceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  expiresIn: Type.Optional(
    Type.Integer({ minimum: EXPIRES_IN_MIN_SECONDS, maximum: EXPIRES_IN_MAX_SECONDS, description: 'seconds until the session expires; default 3600' }),
  ),
  customer: Type.Optional(BoletoCustomer),
  billingAddress: Type.Optional(BillingAddress),
});
export type GenerateCheckoutInput = Static<typeof GenerateCheckoutBody>;

const Method = StringEnum(CHECKOUT_METHODS);
const Status = StringEnum(CHECKOUT_STATUSES);
const Mode = StringEnum(['SINGLE', 'MULTI'] as const);

const Expiry = Type.Union([Type.String({ description: 'yyyy-MM-dd HH:mm:ss UTC: the payer can pay until then' }), Type.Null()]);
const Voucher = Type.Object({ reference: Type.String({ description: '14 digits, Luhn check digit' }), barcode: Type.Union([Type.String(), Type.Null()]), expires_at: Expiry });

export const CheckoutPayment = Type.Object({
  payment_token: Type.String(),
  method: Type.String(),
  transaction_status: StatusEnum(PAYMENT_STATUSES),
  amount: Type.Number({ description: 'what the customer pays (amount plus customer fees)' }),
  asset: Type.String(),
  public_person_id: Type.Optional(Type.String({ description: 'with saveCard only' })),
  public_card_id: Type.Optional(Type.String({ description: 'with saveCard only' })),
  pix: Type.Optional(Type.Object({ br_code: Type.String(), qr_code: Type.String({ description: 'data:image/png;base64,…' }), expires_at: Expiry })),
  boleto: Type.Optional(Type.Object({ digitable_line: Type.String(), barcode: Type.String(), due_date: Type.String({ description: 'YYYY-MM-DD, payable through the end of that day in Brasília' }) })),
  oxxo: Type.Optional(Voucher),
  paynet: Type.Optional(Voucher),
  spei: Type.Optional(Type.Object({ clabe: Type.String(), bank_code: Type.String(), reference: Type.Union([Type.String(), Type.Null()]), expires_at: Expiry })),
  picpay: Type.Optional(Type.Object({ deep_link: Type.String(), qr_code: Type.String({ description: 'data:image/png;base64,…' }), expires_at: Expiry })),
}, { title: 'CheckoutPayment' });

export const GenerateCheckoutResponse = Type.Object({
  checkout_id: Type.String({ format: 'uuid' }),
  checkout_url: Type.String(),
  status: Status,
  mode: Mode,
  methods: Type.Array(Method),
  expires_at: Type.String({ description: 'yyyy-MM-dd HH:mm:ss, UTC, on the merchant clock' }),
  payment: Type.Union([CheckoutPayment, Type.Null()], { description: 'the attempt started at generation (single-method, or pixDirect; with a card method, a payment that waits CREATED for the card); null otherwise' }),
  refresh_token: Type.String(),
}, { title: 'CheckoutSession' });

export const CheckoutResponse = Type.Object({
  checkout_id: Type.String(),
  status: Status,
  mode: Mode,
  methods: Type.Array(Method),
  reference_id: Type.String(),
  checkout_reference_id: Type.Union([Type.String(), Type.Null()]),
  amount: Type.Number(),
  asset: Type.String(),
  expires_at: Type.String(),
  payments: Type.Array(CheckoutPayment),
  installment_options: Type.Array(InstallmentOptionView, { description: "a card session's installment options, as its page shows them (the merchant's plan, plan-wide rates); empty without CREDITCARD" }),
  refresh_token: Type.String(),
}, { title: 'Checkout' });

export const CheckoutIdParams = Type.Object({ checkout_id: Type.String({ maxLength: 64 }) });

export const PayBody = Type.Object({});

export const SandboxPayResponse = Type.Object({
  payment_token: Type.String(),
  method: Type.String(),
  transaction_status: Type.String(),
  end_to_end_id: Type.Union([Type.String(), Type.Null()]),
  refresh_token: Type.String(),
});

/** What the page's card form sends: the payer, the card and the installments. */
export const CardAttemptBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, description: "payer's full name" }),
  email: Type.String({ minLength: 3, maxLength: 254, format: 'email' }),
  tax_id: Type.String({ minLength: 1, maxLength: 32, description: 'CPF (or CNPJ), with or without punctuation' }),
  tax_id_type: Type.Optional(StringEnum(['CPF', 'CNPJ'] as const, { description: 'default: CNPJ for 14 characters, CPF otherwise' })),
  number: Type.String({ minLength: 1, maxLength: 32 }),
  exp_month: Type.String({ minLength: 1, maxLength: 2 }),
  exp_year: Type.String({ minLength: 2, maxLength: 4 }),
  cvv: Type.String({ minLength: 1, maxLength: 4 }),
  holder_name: Type.String({ minLength: 1, maxLength: 100 }),
  installments: Type.Integer({ minimum: 1, maximum: 12 }),
});
export type CardAttemptInput = Static<typeof CardAttemptBody>;

/** What the page's debit card form sends: the payer with a mobile phone (for the 3DS challenge) and the card. */
export const DebitAttemptBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, description: "payer's full name" }),
  email: Type.String({ minLength: 3, maxLength: 254, format: 'email' }),
  tax_id: Type.String({ minLength: 1, maxLength: 32, description: 'CPF (or CNPJ), with or without punctuation' }),
  phone: Type.String({ minLength: 1, maxLength: 20, description: 'Brazilian mobile number with area code' }),
  number: Type.String({ minLength: 1, maxLength: 32 }),
  exp_month: Type.String({ minLength: 1, maxLength: 2 }),
  exp_year: Type.String({ minLength: 2, maxLength: 4 }),
  cvv: Type.String({ minLength: 1, maxLength: 4 }),
  holder_name: Type.String({ minLength: 1, maxLength: 100 }),
  lang: Type.Optional(StringEnum(['pt', 'es', 'en'] as const, { description: 'language of the 3DS challenge page (the page\'s own; default pt)' })),
});
export type DebitAttemptInput = Static<typeof DebitAttemptBody>;

export const DebitAttemptResponse = Type.Object({
  status: StringEnum(['SENT', 'CHALLENGE'] as const),
  payment_token: Type.Optional(Type.String()),
  transaction_status: Type.Optional(Type.String()),
  challenge_url: Type.Optional(Type.String({ description: 'the issuer challenge, to show in a frame inside the page' })),
});

/** The payer the page asks for a boleto registered with a bank (checkout/boleto-payer.ts). */
export const PagePayer = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  tax_id: Type.String({ minLength: 1, maxLength: 32, description: 'CPF or CNPJ, with or without punctuation; check digits verified' }),
  postal_code: Type.String({ minLength: 1, maxLength: 10, description: 'CEP, 8 digits' }),
  street: Type.String({ minLength: 1, maxLength: 200 }),
  number: Type.String({ minLength: 1, maxLength: 20 }),
  complement: Type.Optional(Type.String({ maxLength: 100 })),
  district: Type.String({ minLength: 1, maxLength: 100 }),
  city: Type.String({ minLength: 1, maxLength: 100 }),
  state: Type.String({ minLength: 1, maxLength: 2, description: 'UF, like SP' }),
});

export const CodeAttemptBody = Type.Object({
  method: StringEnum(CODE_METHODS),
  payer: Type.Optional(PagePayer),
});

/** The public status of a session, polled by its page. */
export const PublicStatusResponse = Type.Object({
  status: Status,
  /** Changes whenever the page should be drawn again (status, attempt or its payment status). */
  version: Type.String(),
  payment_status: Type.Union([Type.String(), Type.Null()]),
  redirect_url: Type.Union([Type.String(), Type.Null()]),
  seconds_left: Type.Integer(),
});
