import { Type } from 'typebox';
import { sql } from 'kysely';
import type { Registry } from 'prom-client';
import type { App, AppContext } from '../context';

/**
 * Liveness and readiness (public, for load balancers) and Prometheus metrics, which take the admin
 * token: they show business volumes and the deployment's queues (docs/operations.md).
 */
export function registerSystemRoutes(app: App, ctx: AppContext, registry: Registry): void {
  const Status = Type.Object({ status: Type.String() });
  app.get('/healthz', { config: { auth: 'public' }, schema: { tags: ['System'], summary: 'The process is alive', response: { 200: Status } } }, async () => ({
    status: 'ok',
  }));
  app.get(
    '/readyz',
    {
      config: { auth: 'public' },
      schema: { tags: ['System'], summary: 'The database answers', response: { 200: Status, 503: Status } },
    },
    async (request, reply) => {
      try {
        await sql`select 1`.execute(ctx.db);
        return { status: 'ready' };
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        return reply.code(503).send({ status: 'database unreachable' });
      }
    },
  );
  app.get('/metrics', { config: { auth: 'admin' }, schema: { tags: ['System'], summary: 'Prometheus metrics', hide: true } }, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
}
