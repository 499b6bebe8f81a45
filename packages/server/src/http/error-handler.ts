import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, App } from '../context';
import { REPORTS_UNAUTHORIZED_BODY, standardErrorBody } from './error-body';
import { ApiError, type ERRORS } from './errors';
import { isDatabaseUnavailable } from '../db/database-errors';
import { validationError } from './validation';

/** Fastify's own error codes that mean "the request is malformed", mapped to our catalogue. */
const FRAMEWORK_ERRORS: Record<string, keyof typeof ERRORS> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_REQ_FILE_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_PARTS_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_FILES_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_FIELDS_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_BODY',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'MALFORMED_BODY',
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_BODY',
  FST_PROTO_VIOLATION: 'MALFORMED_BODY',
  FST_ERR_CTP_INVALID_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_BAD_URL: 'URL_INVALID',
  FST_ERR_MAX_PARAM_LENGTH: 'URL_PARAMETER_TOO_LONG',
};

/** Turns anything thrown into an ApiError; returns null for a genuine server fault. */
export function toApiError(error: unknown, request?: FastifyRequest): ApiError | null {
  if (error instanceof ApiError) return error;
  const fastifyError = error as Partial<FastifyError>;
  if (Array.isArray(fastifyError.validation)) {
    const part = fastifyError.validationContext ?? 'body';
    const checks = part === 'body' ? request?.routeOptions.config?.fieldChecks : undefined;
    return validationError(fastifyError.validation, part, checks ? checks(request?.body) : []);
  }
  const mapped = fastifyError.code ? FRAMEWORK_ERRORS[fastifyError.code] : undefined;
  if (mapped) return new ApiError(mapped);
  // The multipart parser (busboy, POST /auth only) throws plain errors for malformed bodies.
  if (error instanceof Error && !fastifyError.statusCode && /^(Multipart: |Unexpected end of (form|multipart))/.test(error.message)) {
    return new ApiError('MALFORMED_BODY');
  }
  if (isDatabaseUnavailable(error)) return new ApiError('DATABASE_UNAVAILABLE', undefined, { retryAfterSeconds: 1 });
  const status = fastifyError.statusCode ?? 500;
  if (error instanceof SyntaxError || status === 400) return new ApiError('MALFORMED_BODY');
  if (status === 413) return new ApiError('PAYLOAD_TOO_LARGE');
  if (status === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE');
  if (status === 404) return new ApiError('ROUTE_NOT_FOUND');
  if (status === 405) return new ApiError('METHOD_NOT_ALLOWED');
  if (status === 414) return new ApiError('URL_PARAMETER_TOO_LONG');
  if (status === 429) return new ApiError('RATE_LIMITED', undefined, { retryAfterSeconds: 60 });
  if (status >= 400 && status < 500) return new ApiError('MALFORMED_BODY');
  return null;
}

/**
 * The one place errors become HTTP answers. Client errors are logged at info, server faults at
 * error with their stack; the client then sees only the generic INTERNAL entry.
 */
export function installErrorHandler(app: App, ctx: AppContext, allowedMethods: (path: string) => string[] = () => []): void {
  app.setErrorHandler(async (error, request, reply) => {
    const apiError = toApiError(error, request);
    if (apiError?.status === 503) {
      request.log.warn({ err: error }, 'database unavailable');
    } else if (apiError) {
      request.log.info({ status: apiError.status, codes: apiError.items.map((i) => i.code) }, apiError.message);
    } else {
      request.log.error({ err: error }, 'unhandled error');
    }
    return sendError(request, reply, apiError ?? new ApiError('INTERNAL'), ctx);
  });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    // A path that exists under another method is a 405 that names the methods it takes.
    const allowed = allowedMethods(path);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(request, reply, new ApiError('METHOD_NOT_ALLOWED', `${request.method} ${path}: this endpoint takes ${allowed.join(', ')}.`), ctx);
    }
    return sendError(request, reply, new ApiError('ROUTE_NOT_FOUND', `${request.method} ${path}: no such endpoint.`), ctx);
  });
}

/**
 * Fastify's `frameworkErrors` handler, given the headers every answer carries: errors the router meets before any route is chosen (a URL that
 * does not decode, a path parameter beyond the router's length limit). No route, hence no token
 * and no route options, exists yet, so the answer is the standard body built directly.
 */
export function frameworkErrorAnswer(headers: Record<string, string>) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => answerFrameworkError(error, request, reply, headers);
}

function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, headers: Record<string, string>): void {
  const apiError = toApiError(error) ?? new ApiError('MALFORMED_BODY');
  request.log.info({ status: apiError.status, codes: apiError.items.map((i) => i.code) }, apiError.message);
  const rawPath = request.raw.url?.split('?')[0] ?? '/';
  // No onSend hook runs for these answers, so they carry the shared headers themselves.
  void reply
    .headers({ ...headers, 'x-request-id': request.id, 'x-frame-options': 'DENY', 'content-security-policy': "frame-ancestors 'none'" })
    .code(apiError.status)
    .type('application/json')
    .send(
      standardErrorBody({
        status: apiError.status,
        message: apiError.message,
        // The path is echoed at most in part: it may be what was too long.
        path: rawPath.length > 256 ? `${rawPath.slice(0, 256)}…` : rawPath,
        items: apiError.items,
      }),
    );
}

async function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError, ctx: AppContext) {
  if (error.challenge !== undefined) reply.header('www-authenticate', error.challenge);
  if (error.status === 401 && request.routeOptions.config?.unauthorizedBody === 'reports') {
    return reply.code(401).type('application/json').send(REPORTS_UNAUTHORIZED_BODY);
  }
  const refreshToken = request.principal ? await ctx.tokens.issue(request.principal) : undefined;
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  return reply
    .code(error.status)
    .type('application/json')
    .send(
      standardErrorBody({
        status: error.status,
        message: error.status === 401 ? 'Access Denied' : error.message,
        path: request.url.split('?')[0] ?? request.url,
        items: error.items,
        refreshToken,
      }),
    );
}
