/**
 * The processor contract: everything Colibri asks of the outside world that moves money. The sandbox
 * simulator (sandbox-simulator.ts) implements it; like every connector it translates its acquirer's and
 * banks' codes into these results inside itself (sandbox-codes.ts; connectors/adyen/adyen-codes.ts for
 * Adyen), so no processor vocabulary leaks into the domains.
 *
 * Colibri reaches processors through connectors (connectors/, docs/connectors.md): each connector
 * implements this contract for the methods it serves, and the connector router picks one per merchant
 * and method.
 *
 * Every operation carries a `reference` chosen by Colibri and unique per operation attempt
 * (`<payment_token>:authorize`, …). Processors treat a repeated reference as the same operation and
 * answer its original result; that is what makes retries and reconciliation safe.
 *
 * Failures come in two kinds, and callers must keep them apart:
 * - `ProcessorUnavailableError`: the request never reached the processor; nothing happened.
 * - `ProcessorTimeoutError`: the request may have been executed; the outcome is unknown until
 *   `status(reference)` says so. Nothing is failed by guesswork. `ProcessorPendingError` is its kind
 *   for an operation the processor accepted and settles later (a capture or refund it confirms by
 *   notification): callers treat both alike and ask `status` again later.
 */

/** The payment methods a connector can serve; PAYOUT stands for bank payouts. */
export type PaymentMethodName = 'CREDITCARD' | 'DEBITCARD' | 'PIX' | 'BOLETO' | 'OXXO' | 'PAYNET' | 'SPEI' | 'PICPAY' | 'PAYOUT';

export type CardScheme = 'VISA' | 'MASTER' | 'ELO' | 'AMERICAN_EXPRESS' | 'DINERS_CLUB' | 'DISCOVER' | 'JCB';

export interface ProcessorCard {
  readonly number: string;
  readonly expMonth: number;
  readonly expYear: number;
  readonly holderName: string;
  readonly scheme: CardScheme;
}

/** The answer to any money-moving operation. */
export type OperationResult =
  | { readonly status: 'APPROVED'; readonly processorId: string }
  | { readonly status: 'DECLINED'; readonly code: string; readonly description: string }
  | { readonly status: 'ERROR'; readonly code: string; readonly description: string };

export interface VerifyCardInput {
  readonly merchantId: string;
  readonly reference: string;
  readonly card: ProcessorCard;
  /** Sent to the processor for verification only; never stored anywhere. */
  readonly cvv: string;
}

export interface AuthorizeInput {
  readonly merchantId: string;
  /** Which card method routes the call (CREDITCARD when absent). */
  readonly method?: 'CREDITCARD' | 'DEBITCARD' | undefined;
  readonly reference: string;
  readonly card: ProcessorCard;
  readonly amountMinor: bigint;
  readonly currency: string;
  readonly installments: number;
  /** true: authorise and capture at once; false: pre-authorise only. */
  readonly capture: boolean;
  readonly softDescriptor?: string | undefined;
  readonly authentication?: { readonly eci: string; readonly cavv: string; readonly version: string; readonly dsTransId: string } | undefined;
}

export interface FollowUpInput {
  readonly merchantId: string;
  readonly reference: string;
  /** The processor id of the authorisation (or payment) this operation follows. */
  readonly processorId: string;
  readonly amountMinor: bigint;
  /** The method of the payment followed (routes the call; CREDITCARD when absent). */
  readonly method?: PaymentMethodName | undefined;
  /** ISO 4217 currency of `amountMinor` (BRL when absent). */
  readonly currency?: string | undefined;
}

export interface PayoutInput {
  readonly merchantId: string;
  readonly reference: string;
  readonly country: string;
  readonly currency: string;
  readonly amountMinor: bigint;
  readonly bankCode: string | undefined;
  readonly accountType: string;
  readonly accountNumber: string;
  readonly taxId: string;
  /** The recipient's document type, name and e-mail, for providers that ask for them (dLocal). */
  readonly taxIdType?: string | undefined;
  readonly fullName?: string | undefined;
  readonly email?: string | undefined;
}

/**
 * Where a settlement goes: the merchant's own account, as it registered it (settlements/settings.ts): a PIX key
 * or a Brazilian bank account for BRL, a CLABE for MXN. Written as the API shows it (snake_case), which is also
 * how the settlement keeps its snapshot.
 */
export type SettlementDestination =
  | { readonly kind: 'PIX_KEY'; readonly pix_key: string; readonly pix_key_type: string }
  | {
      readonly kind: 'BANK_ACCOUNT';
      readonly type: 'CHECKING' | 'SAVINGS';
      readonly bank_number: string;
      readonly agency_number: string;
      readonly agency_check_digit: string | null;
      readonly account_number: string;
      readonly account_check_digit: string;
    }
  | { readonly kind: 'CLABE'; readonly bank_code: string; readonly clabe: string };

export interface SettlementTransferInput {
  readonly merchantId: string;
  /** `<settlement_id>:settlement`: the same for every attempt, so a resend is never a second transfer. */
  readonly reference: string;
  readonly currency: string;
  readonly amountMinor: bigint;
  readonly destination: SettlementDestination;
}

/**
 * What a connector implements to pay settlements: a transfer of a merchant's settled money from the
 * operator's account to the merchant's own (docs/connectors.md, "Settlements"). In sandbox the simulator
 * does; in live mode it is the operator's bank, reached by a payment file or the bank's API, which no
 * connector implements yet, so a live settlement waits PENDING (listed at `GET /admin/stuck-operations`)
 * until one does. The answer is an operation's like any other, and `status(reference)` finds it again.
 */
export interface SettlementPayer {
  /**
   * Sends one settlement to the merchant's account.
   * @example await connector.paySettlement({ merchantId, reference: `${settlementId}:settlement`, currency: 'BRL', amountMinor: 96_24n, destination: { kind: 'PIX_KEY', pix_key: 'financeiro@loja.com.br', pix_key_type: 'EMAIL' } })
   */
  paySettlement(input: SettlementTransferInput): Promise<OperationResult>;
}

export interface Processor {
  /**
   * Checks that a card exists and its CVV matches, moving no money.
   * @example await processor.verifyCard({ merchantId, reference: `${cardId}:verify`, card, cvv: '123' })
   */
  verifyCard(input: VerifyCardInput): Promise<OperationResult>;
  /**
   * Authorises (and with `capture: true` also captures) a card payment.
   * @example await processor.authorize({ merchantId, reference: `${token}:authorize`, card, amountMinor: 1000n, currency: 'BRL', installments: 1, capture: true })
   */
  authorize(input: AuthorizeInput): Promise<OperationResult>;
  /** Captures up to the authorised amount; the rest is released. @example await processor.capture({ merchantId, reference, processorId, amountMinor: 500n }) */
  capture(input: FollowUpInput): Promise<OperationResult>;
  /** Voids an authorisation that was not captured. @example await processor.cancel({ merchantId, reference, processorId, amountMinor: 0n }) */
  cancel(input: FollowUpInput): Promise<OperationResult>;
  /** Returns money of a captured payment to the payer. @example await processor.refund({ merchantId, reference, processorId, amountMinor: 250n }) */
  refund(input: FollowUpInput): Promise<OperationResult>;
  /** Sends money to a bank account. @example await processor.payout({ merchantId, reference, country: 'CL', currency: 'CLP', amountMinor: 10000n, … }) */
  payout(input: PayoutInput): Promise<OperationResult>;
  /**
   * The outcome of an earlier operation by its reference, or null if the processor never saw it.
   * Throws `ProcessorPendingError` while the processor has accepted it but not yet settled it.
   * @example const result = await processor.status(merchantId, `${token}:authorize`)
   */
  status(merchantId: string, reference: string, method?: PaymentMethodName): Promise<OperationResult | null>;
}

export class ProcessorUnavailableError extends Error {
  constructor(operation: string) {
    super(`processor unavailable during ${operation}`);
    this.name = 'ProcessorUnavailableError';
  }
}

export class ProcessorTimeoutError extends Error {
  constructor(operation: string) {
    super(`processor timed out during ${operation}; outcome unknown`);
    this.name = 'ProcessorTimeoutError';
  }
}

/**
 * What a failed call says about the operation: `NOT_SENT` (unavailable: nothing happened) or
 * `UNKNOWN` (timed out: it may have happened); undefined for any other error.
 * @example attemptOutcome(new ProcessorTimeoutError('authorize')) // 'UNKNOWN'
 */
export function attemptOutcome(error: unknown): 'NOT_SENT' | 'UNKNOWN' | undefined {
  if (error instanceof ProcessorUnavailableError) return 'NOT_SENT';
  if (error instanceof ProcessorTimeoutError) return 'UNKNOWN';
  return undefined;
}

/**
 * A later attempt's question about an operation failed. An earlier attempt may have reached the
 * processor (its worker may even have died before recording anything), so whatever the question's own
 * failure, the operation's outcome stays unknown: it is never given up as never sent.
 */
export class ProcessorStatusUnknownError extends ProcessorTimeoutError {
  constructor(cause: Error) {
    super('status');
    this.message = `the processor could not say what became of an earlier attempt (${cause.message}); outcome unknown`;
    this.name = 'ProcessorStatusUnknownError';
  }
}

/**
 * An operation's attempt: on a retry (an earlier attempt may have reached the processor), first ask the
 * processor whether it knows the operation and answer that; otherwise, or when it does not know it,
 * send it. A failed question is ProcessorStatusUnknownError (the outcome is unknown), so only a send
 * that was refused before reaching the processor counts as never sent.
 * @example const result = await askThenSend(job.attempts > 1, () => processor.status(merchantId, reference), () => processor.capture(input));
 */
export async function askThenSend(retry: boolean, ask: () => Promise<OperationResult | null>, send: () => Promise<OperationResult>): Promise<OperationResult> {
  if (retry) {
    let known: OperationResult | null;
    try {
      known = await ask();
    } catch (error) {
      if (error instanceof ProcessorUnavailableError) throw new ProcessorStatusUnknownError(error);
      throw error;
    }
    if (known) return known;
  }
  return send();
}

/**
 * The processor accepted the operation and will settle it later (by notification); until then its
 * outcome is unknown, exactly as after a timeout, and callers ask `status(reference)` again later.
 */
export class ProcessorPendingError extends ProcessorTimeoutError {
  constructor(operation: string) {
    super(operation);
    this.message = `processor accepted ${operation}; outcome pending`;
    this.name = 'ProcessorPendingError';
  }
}

/** Operation names, as used by sandbox faults (`status` faults make status queries fail too). */
export const PROCESSOR_OPERATIONS = ['verifyCard', 'authorize', 'capture', 'cancel', 'refund', 'payout', 'status'] as const;
export type ProcessorOperation = (typeof PROCESSOR_OPERATIONS)[number];
