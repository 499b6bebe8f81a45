import { Gauge, type Registry } from 'prom-client';
import { Type } from 'typebox';
import type { App, AppContext } from '../context';
import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db/database';
import type { Database } from '../db/schema';
import { errorResponses } from '../http/schema-kit';

/**
 * Operations that need a person: jobs past their deadline whose outcome is unknown (the processor may
 * have acted; Colibri keeps asking it, at least every 5 minutes), and jobs that failed every attempt.
 * Neither is retried silently forever, and neither is forgotten: they are listed here and counted in
 * the `colibri_stuck_operations` metric until they settle.
 */
export interface StuckOperation {
  job_id: string;
  kind: string;
  /** The resource the job works on: a payment token, a refund id or a payout's tx id. */
  resource_id: string | null;
  attempts: number;
  outcome_unknown: boolean;
  stuck_since: string | null;
  failed_at: string | null;
  last_error: string | null;
  created_at: string;
  next_attempt_at: string;
}

const StuckOperationSchema = Type.Object({
  job_id: Type.String(),
  kind: Type.String(),
  resource_id: Type.Union([Type.String(), Type.Null()]),
  attempts: Type.Integer(),
  outcome_unknown: Type.Boolean(),
  stuck_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  failed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  next_attempt_at: Type.String({ format: 'date-time' }),
});

/** Past the deadline with an unknown outcome, or failed on every attempt: the jobs this module lists and counts. */
const needsAttention = (eb: ExpressionBuilder<Database, 'jobs'>) => eb.or([eb('stuck_since', 'is not', null), eb('failed_at', 'is not', null)]);

/** The job payload's resource id; payloads may carry one-time secrets (a CAVV), so only ids leave it. */
function resourceOf(payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as Record<string, unknown>;
  const id = p.paymentToken ?? p.refundId ?? p.txId;
  return typeof id === 'string' ? id : null;
}

/** @example const stuck = await listStuckOperations(db, 100); */
export async function listStuckOperations(db: Db, limit: number): Promise<StuckOperation[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'kind', 'payload', 'attempts', 'outcome_unknown', 'stuck_since', 'failed_at', 'last_error', 'created_at', 'run_at'])
    .where(needsAttention)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
  return rows.map((row) => ({
    job_id: String(row.id),
    kind: row.kind,
    resource_id: resourceOf(row.payload),
    attempts: row.attempts,
    outcome_unknown: row.outcome_unknown,
    stuck_since: iso(row.stuck_since),
    failed_at: iso(row.failed_at),
    last_error: row.last_error,
    created_at: new Date(row.created_at).toISOString(),
    next_attempt_at: new Date(row.run_at).toISOString(),
  }));
}

/** `GET /admin/stuck-operations` and the `colibri_stuck_operations` gauge (counted at each scrape). */
export function registerStuckOperations(app: App, ctx: AppContext, registry: Registry): void {
  new Gauge({
    name: 'colibri_stuck_operations',
    help: 'Jobs past their deadline with an unknown outcome, or failed on every attempt; see GET /admin/stuck-operations',
    registers: [registry],
    async collect() {
      const row = await ctx.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where(needsAttention)
        .executeTakeFirst();
      this.set(Number(row?.n ?? 0));
    },
  });
  app.get(
    '/admin/stuck-operations',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Operations stuck past their deadline or failed for good',
        description: 'Jobs whose processor outcome is still unknown after the retry deadline, and jobs that failed every attempt. Each keeps being reconciled until it settles.',
        tags: ['Admin'],
        security: [{ adminToken: [] }],
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })) }),
        response: { 200: Type.Object({ operations: Type.Array(StuckOperationSchema) }), ...errorResponses(401) },
      },
    },
    async (request) => ({ operations: await listStuckOperations(ctx.db, request.query.limit ?? 100) }),
  );
}
