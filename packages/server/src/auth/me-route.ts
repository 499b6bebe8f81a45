import { Type } from 'typebox';
import { principalOf, type App } from '../context';

/**
 * `GET /me`: who the token belongs to. It touches no database, which also makes it the benchmark's
 * "authenticated no-op" (bench/http.ts).
 */
export function registerMeRoute(app: App): void {
  app.get(
    '/me',
    {
      schema: {
        summary: 'The caller of this token',
        tags: ['Authentication'],
        response: { 200: Type.Object({ user_id: Type.String(), merchant_id: Type.String() }) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return { user_id: principal.userId, merchant_id: principal.merchantId };
    },
  );
}
