import type { FastifyReply } from 'fastify';

/**
 * Sends an answer that is already JSON text (one kept serialised, as transaction details keeps its
 * answers), with the content type Fastify gives a serialised object. A string with a content type skips
 * the route's serializer, so the text goes out as it is.
 * @example return sendJson(reply, await transactionDetailsJson(ctx, merchantId, token));
 */
export function sendJson(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}
