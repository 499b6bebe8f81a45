import type { AppContext } from '../context';
import { attemptDueCharges } from './attempt-charges';
import { scheduleDueCharges } from './schedule-charges';
import { settleCharges } from './settle-charges';

/** How often every worker process runs the subscription sweep (the sandbox clock also runs it at once). */
export const SUBSCRIPTION_SWEEP_MS = 10_000;

/**
 * One pass of subscription work, in the order that lets a single pass do everything that is due:
 * settle finished attempts (which may set retries), then charge due periods, then start due attempts
 * and retries. Safe to run in any number of processes at once (see schedule-charges.ts).
 * @example await runSubscriptionSweep(ctx);
 */
export async function runSubscriptionSweep(ctx: AppContext): Promise<void> {
  await settleCharges(ctx);
  await scheduleDueCharges(ctx);
  await attemptDueCharges(ctx);
}
