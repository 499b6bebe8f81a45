import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { App, AppContext } from '../context';
import { ApiError } from '../http/errors';
import { errorResponses } from '../http/schema-kit';
import { Authenticator } from './authenticate';
import { UserResourceSchema } from './user-resource';

const AuthBody = Type.Object({
  apiKey: Type.String({ minLength: 1, maxLength: 200 }),
  apiSecret: Type.String({ minLength: 1, maxLength: 200 }),
});

const AuthResponse = Type.Object({
  token: Type.String({ description: 'Access token for the X-Auth-Token header; lives 5 minutes' }),
  user: UserResourceSchema,
  version: Type.String({ description: 'Version of the service' }),
});

/**
 * `POST /auth`: the spec sends `apiKey` and `apiSecret` as form-data; urlencoded and JSON bodies are
 * accepted too. Form parsers are registered in this route's own scope so no other endpoint takes
 * form bodies. Attempts are limited per client address (before the body is read) and per API key
 * (after), so neither a single address nor a botnet can guess one key's secret.
 */
export async function registerAuthRoutes(app: App, ctx: AppContext): Promise<void> {
  const authenticator = new Authenticator(ctx.db);
  // Two independent limiters (the plugin's route hook runs only one limit per request).
  const limitPerAddress = app.createRateLimit({ max: ctx.config.authRateLimitPerIp, timeWindow: 60_000 });
  const limitPerKey = app.createRateLimit({
    max: ctx.config.authRateLimitPerKey,
    timeWindow: 60_000,
    keyGenerator: (request) => `auth-key:${String((request.body as { apiKey?: unknown } | undefined)?.apiKey ?? '')}`,
  });
  const enforce = (limiter: typeof limitPerKey) => async (request: FastifyRequest) => {
    const result = await limiter(request);
    if (!result.isAllowed && result.isExceeded) {
      throw new ApiError('RATE_LIMITED', undefined, { retryAfterSeconds: Math.max(1, result.ttlInSeconds) });
    }
  };

  await app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: 8192 });
    await scope.register(multipart, {
      attachFieldsToBody: 'keyValues',
      limits: { files: 0, fields: 10, fieldSize: 4096, parts: 10 },
    });
    scope.withTypeProvider().post(
      '/auth',
      {
        config: { auth: 'public' },
        onRequest: enforce(limitPerAddress),
        preHandler: enforce(limitPerKey),
        schema: {
          summary: 'Obtain an access token',
          description: 'Exchanges an API key and secret for an access token that lives 5 minutes.',
          tags: ['Authentication'],
          consumes: ['multipart/form-data', 'application/x-www-form-urlencoded', 'application/json'],
          body: AuthBody,
          response: { 200: AuthResponse, ...errorResponses(400, 401, 429) },
        },
      },
      async (request) => {
        const { apiKey, apiSecret } = request.body as { apiKey: string; apiSecret: string };
        const user = await authenticator.authenticate(apiKey, apiSecret);
        if (!user) throw new ApiError('ACCESS_DENIED');
        const token = await ctx.tokens.issue({ userId: user.id, merchantId: user.merchant_id });
        return { token, user, version: ctx.version };
      },
    );
  });
}
