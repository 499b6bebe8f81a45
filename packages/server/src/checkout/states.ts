import { stateTable } from '../lib/state-machine';
import { PAYMENT_METHODS, type PaymentMethod } from '../payments/methods';

/** The spec's checkout session statuses. */
export const CHECKOUT_STATUSES = ['CREATED', 'PROCESSING', 'PAID', 'CANCELED', 'ERROR'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

/** Every method a session may offer: every payment method, in the order sessions list them (payments/methods.ts). */
export const CHECKOUT_METHODS = PAYMENT_METHODS;
export type CheckoutMethod = PaymentMethod;

/**
 * Methods the payer completes outside the page (a code, voucher, transfer or wallet): their payment exists
 * as soon as the attempt starts and waits CREATED for the payer. Card methods get their payment when the
 * card is submitted.
 */
export const CODE_METHODS = ['PIX', 'BOLETO', 'PICPAY', 'OXXO', 'PAYNET', 'SPEI'] as const;
export type CodeMethod = (typeof CODE_METHODS)[number];
export function isCodeMethod(method: string): method is CodeMethod {
  return (CODE_METHODS as readonly string[]).includes(method);
}
export type CardMethod = 'CREDITCARD' | 'DEBITCARD';
export function isCardMethod(method: string): method is CardMethod {
  return method === 'CREDITCARD' || method === 'DEBITCARD';
}

/**
 * What `method: "ALL"` offers in each country. Brazil keeps the spec's three seen values (PIX, CREDITCARD,
 * BOLETO), so an integration written against them never meets a method it did not ask for; PicPay and
 * debit card are offered when named.
 */
export const ALL_METHODS: Readonly<Record<'BR' | 'MX', readonly CheckoutMethod[]>> = {
  BR: ['PIX', 'CREDITCARD', 'BOLETO'],
  MX: ['OXXO', 'PAYNET', 'SPEI'],
};
export type CheckoutMode = 'SINGLE' | 'MULTI';

/**
 * Every allowed move of a session, as data (docs/checkout.md draws it). The spec's table is
 * CREATED → PROCESSING → PAID, CANCELED or ERROR; the one addition is CREATED → CANCELED, for a session
 * that expires before the customer ever started a payment (abandoned without an attempt). PROCESSING →
 * PROCESSING is a retry in multi-method mode: the session stays pending while the customer switches
 * method. `updateCheckout` checks every status change here.
 */
export const CHECKOUT_STATES = stateTable({
  resource: 'checkout session',
  moves: {
    CREATED: ['PROCESSING', 'CANCELED'],
    PROCESSING: ['PROCESSING', 'PAID', 'CANCELED', 'ERROR'],
    PAID: [],
    CANCELED: [],
    ERROR: [],
  } satisfies Record<CheckoutStatus, readonly CheckoutStatus[]>,
  timestamps: { PROCESSING: 'processing_at', PAID: 'paid_at', CANCELED: 'canceled_at', ERROR: 'failed_at' },
});

export function isFinalCheckoutStatus(status: string): boolean {
  return status === 'PAID' || status === 'CANCELED' || status === 'ERROR';
}

/** How a payment attempt stands, from its payment's status. */
export type AttemptOutcome = 'OPEN' | 'PAID' | 'DECLINED' | 'ERROR' | 'CANCELED' | 'EXPIRED';

const OUTCOME_OF_PAYMENT_STATUS: Readonly<Record<string, AttemptOutcome>> = {
  CREATED: 'OPEN',
  PROCESSING: 'OPEN',
  PRE_AUTHORIZED: 'OPEN',
  PAID: 'PAID',
  // A paid attempt refunded later still paid the session: the goods were released against it.
  PARTIALLY_REFUNDED: 'PAID',
  REFUNDED: 'PAID',
  DECLINED: 'DECLINED',
  ERROR: 'ERROR',
  // A PIX or boleto attempt the customer left for another method.
  CANCELED: 'CANCELED',
  EXPIRED: 'EXPIRED',
};

/** @example attemptOutcome('DECLINED') // 'DECLINED' */
export function attemptOutcome(paymentStatus: string): AttemptOutcome {
  return OUTCOME_OF_PAYMENT_STATUS[paymentStatus] ?? 'ERROR';
}

/**
 * The spec leaves the mapping of attempt outcomes to session statuses open; this table fixes it.
 * Single-method: the one attempt decides the session. Multi-method: a failed attempt keeps the
 * session PROCESSING (still pending for the merchant) so the customer can switch method and retry;
 * only PAID, expiry or the attempt limit end it.
 */
export const OUTCOME_TO_STATUS: Readonly<Record<CheckoutMode, Readonly<Record<Exclude<AttemptOutcome, 'OPEN'>, CheckoutStatus>>>> = {
  SINGLE: { PAID: 'PAID', DECLINED: 'CANCELED', ERROR: 'ERROR', CANCELED: 'CANCELED', EXPIRED: 'CANCELED' },
  MULTI: { PAID: 'PAID', DECLINED: 'PROCESSING', ERROR: 'PROCESSING', CANCELED: 'PROCESSING', EXPIRED: 'CANCELED' },
};

/** A multi-method session ends after this many failed attempts, so a card tester cannot use it forever. */
export const MAX_ATTEMPTS = 5;

/** Default and bounds of `expiresIn`, in seconds. */
export const EXPIRES_IN_DEFAULT_SECONDS = 3600;
export const EXPIRES_IN_MIN_SECONDS = 60;
export const EXPIRES_IN_MAX_SECONDS = 30 * 86_400;

export interface SessionFacts {
  readonly mode: CheckoutMode;
  readonly status: string;
  readonly attempts: number;
  /** The outcome of the latest attempt, or null when none was started. */
  readonly outcome: AttemptOutcome | null;
  /** The session's expiry has passed on the merchant clock. */
  readonly expired: boolean;
}

export interface NextState {
  readonly status: CheckoutStatus;
  /** Set when the session becomes final. */
  readonly endReason: string | null;
}

/**
 * The session's next state from the facts: the attempt's outcome by OUTCOME_TO_STATUS, then the
 * attempt limit, then expiry. An open attempt keeps the session as it is even past expiry, because a
 * card authorisation already sent must be allowed to settle (PIX and boleto attempts are expired
 * first by the caller, so their outcome is EXPIRED by then).
 * @example nextCheckoutState({ mode: 'MULTI', status: 'PROCESSING', attempts: 1, outcome: 'DECLINED', expired: false })
 * // { status: 'PROCESSING', endReason: null }
 */
export function nextCheckoutState(facts: SessionFacts): NextState {
  const current = facts.status as CheckoutStatus;
  if (isFinalCheckoutStatus(current)) return { status: current, endReason: null };
  if (facts.outcome === 'OPEN') return { status: current, endReason: null };
  if (facts.outcome === null) return facts.expired ? { status: 'CANCELED', endReason: 'EXPIRED' } : { status: current, endReason: null };

  const mapped = OUTCOME_TO_STATUS[facts.mode][facts.outcome];
  if (mapped !== 'PROCESSING') return { status: mapped, endReason: facts.outcome };
  // A failed attempt in multi-method mode: retry unless the session is out of time or of attempts.
  const finalStatus: CheckoutStatus = facts.outcome === 'ERROR' ? 'ERROR' : 'CANCELED';
  if (facts.expired) return { status: finalStatus, endReason: 'EXPIRED' };
  if (facts.attempts >= MAX_ATTEMPTS) return { status: finalStatus, endReason: 'ATTEMPTS_EXHAUSTED' };
  return { status: 'PROCESSING', endReason: null };
}

/**
 * Where the customer goes when the session is final: PAID → successUrl, CANCELED → declinedUrl,
 * ERROR → errorUrl (null when the merchant gave none, or the session is still open).
 * @example redirectUrlOf({ status: 'PAID', success_url: 'https://shop.example/ok', declined_url: null, error_url: null }) // 'https://shop.example/ok'
 */
export function redirectUrlOf(session: { status: string; success_url: string | null; declined_url: string | null; error_url: string | null }): string | null {
  if (session.status === 'PAID') return session.success_url;
  if (session.status === 'CANCELED') return session.declined_url;
  if (session.status === 'ERROR') return session.error_url;
  return null;
}
