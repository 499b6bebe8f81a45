import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import { principalOf, type App, type AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { Authenticator } from './authenticate';
import type { LoginLimits } from './login-limits';
import { rotateApiSecret } from './rotate-secret';
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

/** `POST /auth/secret/rotate`'s answer: the new secret, shown only here. */
const RotatedSecret = Type.Object(
  {
    api_key: Type.String({ description: 'Unchanged' }),
    api_secret: Type.String({ description: 'The new secret; shown only here, only its hash is stored' }),
    previous_secret_expires_at: Type.String({ format: 'date-time', description: 'Until when the replaced secret still authenticates' }),
  },
  { title: 'Rotated API secret' },
);

/**
 * `POST /auth`: the spec sends `apiKey` and `apiSecret` as form-data; urlencoded and JSON bodies are
 * accepted too. Form parsers are registered in this route's own scope so no other endpoint takes
 * form bodies.
 *
 * Limits (docs/security.md, "Login limits") count failures, not successes: per API key and client
 * address, and per client address whatever the key. A merchant whose servers log in often is never
 * refused for succeeding, and another address's failures never lock the key's owner out: API secrets
 * are 256-bit random values, so guessing one is hopeless and the per-address counters only keep a
 * prober busy. Successes have a high ceiling of their own against runaway clients. The counters are
 * shared by every process of the database and with the dashboard's sign-in (auth/login-limits.ts).
 */
export async function registerAuthRoutes(app: App, ctx: AppContext, logins: LoginLimits): Promise<void> {
  const authenticator = new Authenticator(ctx.db);

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
        schema: {
          summary: 'Obtain an access token',
          description: 'Exchanges an API key and secret for an access token that lives 5 minutes. Failed attempts are limited per key and address and per address.',
          tags: ['Authentication'],
          consumes: ['multipart/form-data', 'application/x-www-form-urlencoded', 'application/json'],
          body: AuthBody,
          response: { 200: AuthResponse, ...errorResponses(400, 401, 429) },
        },
      },
      async (request) => {
        const { apiKey, apiSecret } = request.body as { apiKey: string; apiSecret: string };
        const user = await logins.signIn(authenticator, apiKey, apiSecret, request.ip);
        const token = await ctx.tokens.issue({ userId: user.id, merchantId: user.merchant_id });
        return { token, user, version: ctx.version };
      },
    );
  });

  app.post(
    '/auth/secret/rotate',
    {
      schema: {
        summary: "Rotate the caller's API secret",
        description:
          'Issues a new API secret for the calling API user. The replaced secret keeps authenticating for the grace period (COLIBRI_API_SECRET_GRACE_SECONDS, default 24 hours), so servers can be moved to the new one without downtime; a second rotation ends the first one\'s grace at once.',
        tags: ['Authentication'],
        response: { 200: RotatedSecret, ...errorResponses(401) },
      },
    },
    async (request) => {
      const rotated = await rotateApiSecret(ctx.db, principalOf(request).userId, ctx.config.apiSecretGraceSeconds);
      authenticator.forget(rotated.api_key);
      return rotated;
    },
  );
}
