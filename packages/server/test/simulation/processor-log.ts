import type { AuthorizeInput, FollowUpInput, OperationResult, PaymentMethodName, PayoutInput, Processor, VerifyCardInput } from '../../src/processor/processor';

/** A money-moving call as Colibri made it, by reference. */
export interface ProcessorCall {
  readonly operation: 'authorize' | 'capture' | 'cancel' | 'refund';
  readonly merchantId: string;
  readonly reference: string;
  readonly amountMinor: bigint;
  /** authorize: whether it captured at once. */
  readonly capture: boolean;
  /** Follow-ups: the processor id of the authorisation they follow. */
  readonly processorId: string | null;
}

/** Where a processor call is, for the driver's hook: before the processor acts, or after it answered (or failed). */
export type CallPhase = 'before' | 'after';

/**
 * The processor as Colibri sees it, with a log of what Colibri asked it: the amounts and the
 * authorisation each call follows, which the sandbox's own record (`sandbox_operations`: reference,
 * operation, outcome) does not keep. The model reads both: the record says what the processor did,
 * this log says with how much money.
 *
 * While a job runs, the driver may hook each call (run a merchant's command while the processor is
 * being asked, or kill the worker right before or right after the processor acts).
 */
export class RecordingProcessor implements Processor {
  private readonly calls = new Map<string, ProcessorCall>();
  /** Set by the driver while it runs a job; HTTP requests' own calls (refunds) are never hooked. */
  hook: ((phase: CallPhase, call: ProcessorCall) => Promise<void>) | undefined;

  constructor(private readonly inner: Processor) {}

  /** The call made under a reference (the first; a retry under the same reference asks the same). */
  call(merchantId: string, reference: string): ProcessorCall | undefined {
    return this.calls.get(`${merchantId} ${reference}`);
  }

  forget(merchantId: string): void {
    for (const [key, call] of this.calls) if (call.merchantId === merchantId) this.calls.delete(key);
  }

  verifyCard(input: VerifyCardInput): Promise<OperationResult> {
    return this.inner.verifyCard(input);
  }

  authorize(input: AuthorizeInput): Promise<OperationResult> {
    const call: ProcessorCall = { operation: 'authorize', merchantId: input.merchantId, reference: input.reference, amountMinor: input.amountMinor, capture: input.capture, processorId: null };
    return this.around(call, () => this.inner.authorize(input));
  }

  capture(input: FollowUpInput): Promise<OperationResult> {
    return this.around(followUp('capture', input), () => this.inner.capture(input));
  }

  cancel(input: FollowUpInput): Promise<OperationResult> {
    return this.around(followUp('cancel', input), () => this.inner.cancel(input));
  }

  refund(input: FollowUpInput): Promise<OperationResult> {
    return this.around(followUp('refund', input), () => this.inner.refund(input));
  }

  payout(input: PayoutInput): Promise<OperationResult> {
    return this.inner.payout(input);
  }

  status(merchantId: string, reference: string, method?: PaymentMethodName): Promise<OperationResult | null> {
    return this.inner.status(merchantId, reference, method);
  }

  private async around(call: ProcessorCall, send: () => Promise<OperationResult>): Promise<OperationResult> {
    const key = `${call.merchantId} ${call.reference}`;
    if (!this.calls.has(key)) this.calls.set(key, call);
    const hook = this.hook;
    await hook?.('before', call);
    let result: OperationResult;
    try {
      result = await send();
    } catch (error) {
      await hook?.('after', call);
      throw error;
    }
    await hook?.('after', call);
    return result;
  }
}

function followUp(operation: 'capture' | 'cancel' | 'refund', input: FollowUpInput): ProcessorCall {
  return { operation, merchantId: input.merchantId, reference: input.reference, amountMinor: input.amountMinor, capture: false, processorId: input.processorId };
}
