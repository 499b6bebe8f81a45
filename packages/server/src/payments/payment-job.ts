/**
 * The payment domain's job kind and its payload, on their own so that every module that enqueues the
 * job (payment creation, capture, cancel) can name it without importing its handler
 * (process-payment.ts), which imports the hot path (hot-path.ts), which imports payment creation.
 */

/** The job kind of every processor step of a card payment (authorise, capture, cancel). */
export const PROCESS_PAYMENT_JOB = 'payment.process';

export interface ProcessPaymentJob {
  paymentToken: string;
  merchantId: string;
  /** authorize: after sendPayment; capture: a pre-authorisation's capture; cancel: its void (by request or TTL). */
  step: 'authorize' | 'capture' | 'cancel';
  authentication?: { cavv: string; eci: string; version: string; dstrans_id: string; xid?: string | undefined } | undefined;
  /** For cancel: the status to end in (CANCELED for a request or an expired pre-authorisation). */
  reason?: 'REQUESTED' | 'TTL';
}
