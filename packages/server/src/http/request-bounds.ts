import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { App } from '../context';
import type { Config } from '../config';
import { ApiError } from './errors';
import { DEFAULT_MAX_JSON_DEPTH, inspectInput } from './validation';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How deep this route's JSON body may nest (DEFAULT_MAX_JSON_DEPTH when absent). */
    maxJsonDepth?: number;
  }
}

/** The body limit of an ordinary route: a payment, a checkout or a card with a full extra_data fits many times over. */
export const DEFAULT_ROUTE_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Routes whose bodies are legitimately large: a payout batch of up to 1000 items and a report
 * definition of up to 100 columns and 100 filters. They get the configured ceiling
 * (`COLIBRI_BODY_LIMIT_BYTES`); every other route gets the smaller of that and 64 KB, so a client
 * cannot make Colibri buffer and parse a megabyte where a kilobyte is expected.
 */
const LARGE_BODY_ROUTES: readonly RegExp[] = [/^\/payoutTransaction$/, /^\/reports\//];

/**
 * Bounds every request before a handler sees it: a body limit per route, and one iterative walk of
 * the parsed body, query and path parameters that refuses nesting deeper than the route allows, NUL characters and
 * lone UTF-16 surrogates (see `inspectInput`). Call before any route is registered, since the body
 * limit is set as each route is added.
 * @example installRequestBounds(app, ctx.config);
 */
export function installRequestBounds(app: App, config: Config): void {
  const ordinary = Math.min(DEFAULT_ROUTE_BODY_LIMIT_BYTES, config.bodyLimitBytes);
  app.addHook('onRoute', (route) => {
    if (route.bodyLimit !== undefined) return;
    route.bodyLimit = LARGE_BODY_ROUTES.some((pattern) => pattern.test(route.url)) ? config.bodyLimitBytes : ordinary;
  });
  // Callback-style: no promise per request where nothing awaits.
  app.addHook('preValidation', (request, _reply, done) => {
    const maxDepth = request.routeOptions.config?.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
    // Path parameters too: a NUL in an id would reach the database, which refuses it in text.
    const fault = inspectInput(request.body, maxDepth) ?? inspectInput(request.query, maxDepth) ?? inspectInput(request.params, maxDepth);
    done(fault ? ApiError.fields([fault]) : undefined);
  });
}

/**
 * Which methods a path takes, for a `405` with `Allow` instead of a `404` when the path exists but
 * not with the request's method. Fastify's router answers only "not found"; this is a second
 * router (find-my-way, the one Fastify itself is built on) that holds every route's path and method.
 * @example const allowed = trackRouteMethods(app); allowed('/checkout/generate') // ['POST']
 */
export function trackRouteMethods(app: App): (path: string) => string[] {
  const router = FindMyWay({ ignoreTrailingSlash: false, maxParamLength: 500 });
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat().map((m) => m.toUpperCase() as HTTPMethod)) {
      if (router.hasRoute(method, route.url)) continue;
      router.on(method, route.url, () => undefined);
      methods.add(method);
    }
  });
  return (path) => [...methods].filter((method) => router.find(method as HTTPMethod, path) !== null).sort();
}
