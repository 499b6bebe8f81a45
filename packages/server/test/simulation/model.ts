/**
 * The simulation's model: what the merchants asked for and were told, and the merchant clocks they
 * moved. It is kept from the commands the generator sent and the answers they got, never from
 * Colibri's tables; the invariants (invariants.ts) hold Colibri's tables against it and against the
 * processor's own record.
 */

export interface ModelMerchant {
  readonly merchantId: string;
  readonly contractId: string;
  readonly token: string;
  readonly personId: string;
  readonly cardId: string;
  /** A card the simulated acquirer declines. */
  readonly declinedCardId: string;
  /** How far this merchant's clock was moved, in hours (the sandbox clock). */
  clockHours: number;
}

export interface ModelPayment {
  readonly token: string;
  readonly merchant: ModelMerchant;
  readonly amountMinor: bigint;
  readonly delayCapture: boolean;
  /** The merchant clock (hours moved) when the payment was first seen PRE_AUTHORIZED: its TTL counts from here. */
  preAuthorizedAtHours: number | undefined;
  /** Captures the merchant was told were accepted (200). */
  capturesAccepted: number;
}

/** The 5-day pre-authorisation TTL of the contract, in hours. */
export const PRE_AUTHORIZATION_TTL_HOURS = 120;

export class Model {
  readonly merchants: ModelMerchant[] = [];
  readonly payments: ModelPayment[] = [];
  /** Whether the service's database connections were dropped since the last step began (5xx are then allowed). */
  connectionsDropped = false;

  merchantIds(): string[] {
    return this.merchants.map((m) => m.merchantId);
  }

  payment(token: string): ModelPayment | undefined {
    return this.payments.find((p) => p.token === token);
  }

  /** Hours since the payment was first pre-authorised, on its merchant's clock. */
  preAuthorizedFor(payment: ModelPayment): number | undefined {
    return payment.preAuthorizedAtHours === undefined ? undefined : payment.merchant.clockHours - payment.preAuthorizedAtHours;
  }
}

/** Payment moves a merchant may see in its events (the contract's statuses and transitions), kept apart from src/. */
export const PAYMENT_MOVES: Readonly<Record<string, readonly string[]>> = {
  CREATED: ['PROCESSING', 'CANCELED', 'EXPIRED'],
  PROCESSING: ['PAID', 'PRE_AUTHORIZED', 'DECLINED', 'ERROR', 'CANCELED', 'EXPIRED'],
  PRE_AUTHORIZED: ['PROCESSING'],
  PAID: ['PARTIALLY_REFUNDED', 'REFUNDED'],
  PARTIALLY_REFUNDED: ['PARTIALLY_REFUNDED', 'REFUNDED'],
};
export const FINAL_PAYMENT_STATUSES = ['DECLINED', 'CANCELED', 'EXPIRED', 'ERROR', 'REFUNDED'];

export const REFUND_MOVES: Readonly<Record<string, readonly string[]>> = {
  REQUESTED: ['PROCESSING', 'FAILED'],
  PROCESSING: ['COMPLETED', 'FAILED'],
};
export const FINAL_REFUND_STATUSES = ['COMPLETED', 'FAILED'];
export const PENDING_REFUND_STATUSES = ['REQUESTED', 'PROCESSING'];
