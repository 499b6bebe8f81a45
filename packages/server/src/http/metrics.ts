import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { App, AppContext } from '../context';
import { installBusinessMetrics } from '../metrics/business-metrics';
import { installDatabaseMetrics } from '../metrics/database-metrics';
import { processRegistry } from '../metrics/process-registry';

/**
 * Prometheus metrics: request counts and latency histograms per route template and status, process
 * figures, the business series read from the database (metrics/business-metrics.ts) and this process's
 * processor latencies (metrics/process-registry.ts). Each app has its own registry so several apps in
 * one process (tests) do not share HTTP counters.
 */
export function installMetrics(app: App, ctx: AppContext): Registry {
  const registry = new Registry();
  installBusinessMetrics(registry, ctx.db);
  installDatabaseMetrics(registry, ctx.db);
  collectDefaultMetrics({ register: registry, prefix: 'colibri_' });
  const labelNames = ['method', 'route', 'status_code'] as const;
  const requests = new Counter({ name: 'colibri_http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'colibri_http_request_duration_seconds',
    help: 'HTTP request latency from arrival to the end of the response',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    // The route template (not the raw URL) keeps label cardinality bounded.
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  return Registry.merge([registry, processRegistry]);
}
