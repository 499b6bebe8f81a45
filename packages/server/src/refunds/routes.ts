import { Type } from 'typebox';
import { refreshToken } from '../auth/refresh-token';
import { principalOf, type App, type AppContext } from '../context';
import { ApiError } from '../http/errors';
import { errorResponses, StatusEnum } from '../http/schema-kit';
import { refundView } from './refund-record';
import { REFUND_STATUSES } from './states';
import { idempotencyKeyOf } from '../http/idempotency';
import { requestRefund } from './request-refund';

const RefundBody = Type.Object({
  payment_token: Type.String({ minLength: 1, maxLength: 64 }),
  amount: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'at most the amount still refundable; absent: all of it' })),
  notification_url: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 })),
  pix_key: Type.Optional(Type.String({ minLength: 1, maxLength: 77 })),
  bank_code: Type.Optional(Type.Integer({ minimum: 0, maximum: 999 })),
  clabe: Type.Optional(Type.String({ maxLength: 32 })),
  type: Type.Optional(Type.String({ maxLength: 16 })),
  bank_number: Type.Optional(Type.String({ maxLength: 8 })),
  agency_number: Type.Optional(Type.String({ maxLength: 8 })),
  agency_check_digit: Type.Optional(Type.String({ maxLength: 2 })),
  account_number: Type.Optional(Type.String({ maxLength: 20 })),
  account_check_digit: Type.Optional(Type.String({ maxLength: 2 })),
});

const RefundResponse = Type.Object({
  refund_id: Type.Integer(),
  payment_token: Type.String(),
  created_at: Type.String({ description: 'yyyy-MM-dd HH:mm:ss.SSS (UTC, merchant clock)' }),
  refund_status: StatusEnum(REFUND_STATUSES),
  refresh_token: Type.String(),
}, { title: 'RefundCreated' });

/** `POST /refund` (spec) and `GET /refund/<refund_id>`. */
export function registerRefundRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/refund',
    {
      schema: {
        summary: 'Request a refund',
        description: 'Refunds all or part of a paid payment. Answers PROCESSING (or FAILED); the outcome follows in callbacks and GET /refund/<id>.',
        tags: ['Refunds'],
        body: RefundBody,
        response: { 200: RefundResponse, ...errorResponses(400, 401, 404, 502) },
      },
    },
    async (request) => {
      const refund = await requestRefund(ctx, principalOf(request).merchantId, request.body, { idempotencyKey: idempotencyKeyOf(request) });
      const view = refundView(refund);
      return {
        refund_id: view.refund_id,
        payment_token: view.payment_token,
        created_at: view.created_at,
        refund_status: view.refund_status,
        refresh_token: await refreshToken(ctx, request),
      };
    },
  );

  app.get(
    '/refund/:refund_id',
    {
      schema: {
        summary: 'One refund',
        tags: ['Refunds'],
        params: Type.Object({ refund_id: Type.String({ pattern: '^\\d{1,18}$' }) }),
        response: {
          200: Type.Object({
            refund_id: Type.Integer(),
            payment_token: Type.String(),
            created_at: Type.String(),
            refund_status: StatusEnum(REFUND_STATUSES),
            amount: Type.Number(),
            currency: Type.String(),
            error_code: Type.Union([Type.String(), Type.Null()]),
            error_description: Type.Union([Type.String(), Type.Null()]),
            refresh_token: Type.String(),
          }, { title: 'Refund' }),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => {
      const refund = await ctx.db
        .selectFrom('refunds')
        .selectAll()
        .where('refund_id', '=', BigInt(request.params.refund_id))
        .where('merchant_id', '=', principalOf(request).merchantId)
        .executeTakeFirst();
      if (!refund) throw new ApiError('NOT_FOUND', 'refund_id: refund not found.');
      return { ...refundView(refund), refresh_token: await refreshToken(ctx, request) };
    },
  );
}
