/**
 * The payment domain's job kind and its payload, on their own so that every module that enqueues the
 * job (payment creation, capture, cancel) can name it without importing its handler
 * (process-payment.ts), which imports the hot path (hot-path.ts), which imports payment creation.
 */

/** The job kind of every processor operation on a card payment (authorise, capture, cancel: payments/operations.ts). */
export const PROCESS_PAYMENT_JOB = 'payment.process';

/** The 3DS facts an authorisation sends to the processor; the CAVV rides only in the job, never stored elsewhere. */
export interface JobAuthentication {
  cavv: string;
  eci: string;
  version: string;
  dstrans_id: string;
  xid?: string | undefined;
}

/** A job carries its operation: it settles that operation only, and only while the operation is REQUESTED. */
export interface ProcessPaymentJob {
  operationId: string;
  merchantId: string;
  authentication?: JobAuthentication | undefined;
}
