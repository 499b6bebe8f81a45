import { Type } from 'typebox';
import { bumpAccessVersion } from '../auth/access-list';
import type { App, AppContext } from '../context';
import { ApiError } from '../http/errors';
import { errorResponses } from '../http/schema-kit';

const MerchantAccess = Type.Object(
  { merchant_id: Type.String({ format: 'uuid' }), enabled: Type.Boolean() },
  { title: 'Merchant access' },
);
const UserAccess = Type.Object(
  { user_id: Type.String({ format: 'uuid' }), merchant_id: Type.String({ format: 'uuid' }), enabled: Type.Boolean() },
  { title: 'User access' },
);
const TokenKeyRotated = Type.Object({ kid: Type.String({ description: 'The id of the key that signs tokens from now on' }) }, { title: 'Token key rotation' });

const ACTIONS = ['disable', 'enable'] as const;

/**
 * Revocation and key rotation, behind the admin bearer token (docs/security.md):
 * `POST /admin/merchants/<id>/disable|enable` (contract, Admin), `POST /admin/users/<id>/disable|enable`
 * and `POST /admin/token-keys/rotate`. A change and the increment of `access_version` are one
 * transaction, so every process sees it on its next refresh of the access list (within 5 seconds);
 * this process sees it at once.
 * @example registerAccessRoutes(app, ctx);
 */
export function registerAccessRoutes(app: App, ctx: AppContext): void {
  for (const action of ACTIONS) {
    const enabled = action === 'enable';
    app.post(
      `/admin/merchants/:merchantId/${action}`,
      {
        config: { auth: 'admin' },
        schema: {
          summary: enabled ? 'Enable a merchant' : "Disable a merchant: its logins and tokens (refresh tokens included) stop working within 5 seconds",
          tags: ['Admin'],
          security: [{ adminToken: [] }],
          params: Type.Object({ merchantId: Type.String({ format: 'uuid' }) }),
          response: { 200: MerchantAccess, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const changed = await ctx.db.transaction().execute(async (trx) => {
          const row = await trx.updateTable('merchants').set({ enabled }).where('id', '=', request.params.merchantId).returning('id').executeTakeFirst();
          if (row) await bumpAccessVersion(trx);
          return row;
        });
        if (!changed) throw new ApiError('NOT_FOUND', 'merchantId: merchant not found.');
        ctx.access.invalidate();
        return { merchant_id: changed.id, enabled };
      },
    );

    app.post(
      `/admin/users/:userId/${action}`,
      {
        config: { auth: 'admin' },
        schema: {
          summary: enabled ? 'Enable an API user' : "Disable an API user: its logins and tokens (refresh tokens included) stop working within 5 seconds",
          tags: ['Admin'],
          security: [{ adminToken: [] }],
          params: Type.Object({ userId: Type.String({ format: 'uuid' }) }),
          response: { 200: UserAccess, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const changed = await ctx.db.transaction().execute(async (trx) => {
          const row = await trx.updateTable('users').set({ enabled }).where('id', '=', request.params.userId).returning(['id', 'merchant_id']).executeTakeFirst();
          if (row) await bumpAccessVersion(trx);
          return row;
        });
        if (!changed) throw new ApiError('NOT_FOUND', 'userId: user not found.');
        ctx.access.invalidate();
        return { user_id: changed.id, merchant_id: changed.merchant_id, enabled };
      },
    );
  }

  app.post(
    '/admin/token-keys/rotate',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Rotate the token signing key',
        description:
          'A new key signs tokens from now on; tokens signed with older keys stay valid until they expire (5 minutes). Refused with 409 when the keys come from COLIBRI_TOKEN_SIGNING_KEYS.',
        tags: ['Admin'],
        security: [{ adminToken: [] }],
        response: { 200: TokenKeyRotated, ...errorResponses(401, 409) },
      },
    },
    async () => {
      if (ctx.config.tokenSigningKeys) throw new ApiError('TOKEN_KEYS_CONFIGURED');
      return { kid: await ctx.tokens.rotate() };
    },
  );
}
