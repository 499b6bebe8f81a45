import { Gauge, type Registry } from 'prom-client';
import { Type } from 'typebox';
import type { App, AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { countStuckOperations, listStuckOperations } from '../jobs/stuck-operations';

const StuckOperationSchema = Type.Object({
  job_id: Type.String(),
  kind: Type.String(),
  resource_id: Type.Union([Type.String(), Type.Null()]),
  operation_id: Type.Union([Type.String(), Type.Null()], { description: "The card payment operation the job carries (authorise, capture or cancel); null for other jobs." }),
  attempts: Type.Integer(),
  outcome_unknown: Type.Boolean(),
  stuck_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  failed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  next_attempt_at: Type.String({ format: 'date-time' }),
});

/** `GET /admin/stuck-operations` and the `colibri_stuck_operations` gauge (counted at each scrape). */
export function registerStuckOperations(app: App, ctx: AppContext, registry: Registry): void {
  new Gauge({
    name: 'colibri_stuck_operations',
    help: 'Jobs past their deadline with an unknown outcome, or failed on every attempt; see GET /admin/stuck-operations',
    registers: [registry],
    async collect() {
      this.set(await countStuckOperations(ctx.db));
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
