import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context';

/**
 * The absolute URL of one of the service's own paths, as a customer's browser must reach it. With
 * PUBLIC_BASE_URL set it is the base, whatever the request came through (an internal address, a
 * health-checking load balancer); otherwise the request's protocol and Host, which are the client's
 * only behind a proxy trusted through COLIBRI_TRUST_PROXY. Every absolute URL the service answers is
 * made here, so the two never disagree.
 * @example absoluteUrl(ctx, request, `/pay/${id}`) // 'https://pay.example.com/pay/…'
 */
export function absoluteUrl(ctx: AppContext, request: Pick<FastifyRequest, 'protocol' | 'host'>, path: string): string {
  if (!path.startsWith('/')) throw new Error(`absoluteUrl takes a path starting with /, got ${path}`);
  return `${ctx.config.publicBaseUrl ?? `${request.protocol}://${request.host}`}${path}`;
}
