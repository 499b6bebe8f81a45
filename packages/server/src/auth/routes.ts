import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context';
import { ApiError } from '../http/errors';
import { errorResponses } from '../http/schema-kit';
import { authenticate } from './authenticate';
import { UserResourceSchema } from './user-resource';

const AuthBody = Type.Object({
  apiKey: Type.String({ minLength: 1, maxLength: 200 }),
  apiSecret: Type.String({ minLength: 1, maxLength: 200 }),
});

const AuthResponse = Type.Object({
  token: Type.String({ description: 'Access token for the X-Auth-Token header; lives 5 minutes' }),
  user: Type.Ref(UserResourceSchema),
  version: Type.String({ description: 'Version of the service' }),
});

/**
 * `POST /auth`: the spec sends `apiKey` and `apiSecret` as form-data; urlencoded and JSON bodies are
 * accepted too. Form parsers are registered in this route's own scope so no other endpoint takes
 * form bodies. Attempts are limited per client address (before the body is read) and per API key
 * (after), so neither a single address nor a botnet can guess one key's secret.
 */
export async function registerAuthRoutes(app: App, ctx: AppContext): Promise<void> {
  const tooMany = (_request: unknown, context: { ttl: number }) =>
    new ApiError('RATE_LIMITED', undefined, { retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)) });

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
        onRequest: scope.rateLimit({ max: ctx.config.authRateLimitPerIp, timeWindow: 60_000, groupId: 'auth-ip', errorResponseBuilder: tooMany }),
        preHandler: scope.rateLimit({
          max: ctx.config.authRateLimitPerKey,
          timeWindow: 60_000,
          groupId: 'auth-key',
          keyGenerator: (request) => `key:${String((request.body as { apiKey?: unknown } | undefined)?.apiKey ?? '')}`,
          errorResponseBuilder: tooMany,
        }),
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
        const user = await authenticate(ctx.db, apiKey, apiSecret);
        if (!user) throw new ApiError('ACCESS_DENIED');
        const token = await ctx.tokens.issue({ userId: user.id, merchantId: user.merchant_id });
        return { token, user, version: ctx.version };
      },
    );
  });
}
