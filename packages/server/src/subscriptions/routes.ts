import { refreshToken } from '../auth/refresh-token';
import { principalOf, type App, type AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { cancelSubscription } from './cancel-subscription';
import { paymentTotals } from '../payments/payment-response';
import { createCharge } from './create-charge';
import { createSubscription } from './create-subscription';
import { getSubscription } from './get-subscription';
import { listCharges } from './list-charges';
import { listSubscriptions } from './list-subscriptions';
import {
  ChargePage,
  ChargePageQuery,
  ChargeResponse,
  CreateChargeBody,
  CreateSubscriptionBody,
  PageQuery,
  SubscriptionPage,
  SubscriptionParams,
  SubscriptionResponse,
} from './schemas';
import { presentSubscription } from './subscription-record';

const tags = ['Subscriptions'];

/** Subscriptions and their charges (docs/subscriptions.md). Thin: schema, one call, presentation. */
export function registerSubscriptionRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/subscriptions',
    {
      schema: {
        summary: 'Create a subscription',
        description: 'Charges a card on file: FIXED subscriptions on their own schedule, both amount types through POST /subscriptions/{id}/charge.',
        tags,
        body: CreateSubscriptionBody,
        response: { 200: SubscriptionResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const subscription = await createSubscription(ctx, principalOf(request).merchantId, request.body);
      return { ...presentSubscription(subscription), refresh_token: await refreshToken(ctx, request) };
    },
  );

  app.get(
    '/subscriptions',
    {
      schema: { summary: "List the merchant's subscriptions", tags, querystring: PageQuery, response: { 200: SubscriptionPage, ...errorResponses(400, 401) } },
    },
    async (request) => {
      const { rows, total } = await listSubscriptions(ctx, principalOf(request).merchantId, request.query);
      return {
        content: rows.map(presentSubscription),
        page: request.query.page,
        size: request.query.size,
        total_elements: total,
        total_pages: Math.ceil(total / request.query.size),
        refresh_token: await refreshToken(ctx, request),
      };
    },
  );

  app.get(
    '/subscriptions/:subscription_id',
    { schema: { summary: 'Read a subscription', tags, params: SubscriptionParams, response: { 200: SubscriptionResponse, ...errorResponses(401, 404) } } },
    async (request) => {
      const subscription = await getSubscription(ctx, principalOf(request).merchantId, request.params.subscription_id);
      return { ...presentSubscription(subscription), refresh_token: await refreshToken(ctx, request) };
    },
  );

  app.post(
    '/subscriptions/:subscription_id/cancel',
    {
      schema: {
        summary: 'Cancel a subscription',
        description: 'No further charge is scheduled; charges waiting for their due date or a retry are canceled.',
        tags,
        params: SubscriptionParams,
        response: { 200: SubscriptionResponse, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const subscription = await cancelSubscription(ctx, principalOf(request).merchantId, request.params.subscription_id);
      return { ...presentSubscription(subscription), refresh_token: await refreshToken(ctx, request) };
    },
  );

  app.get(
    '/subscriptions/:subscription_id/charges',
    {
      schema: {
        summary: "List a subscription's charges",
        tags,
        params: SubscriptionParams,
        querystring: ChargePageQuery,
        response: { 200: ChargePage, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { content, total } = await listCharges(ctx, principalOf(request).merchantId, request.params.subscription_id, request.query);
      return {
        content,
        page: request.query.page,
        size: request.query.size,
        total_elements: total,
        total_pages: Math.ceil(total / request.query.size),
        refresh_token: await refreshToken(ctx, request),
      };
    },
  );

  app.post(
    '/subscriptions/:subscription_id/charge',
    {
      schema: {
        summary: 'Create a subscription charge',
        description:
          'Charges the card on file for one due date. The transaction is PROCESSING from creation: due today or earlier, it goes to the processor at once; a later due date, it is sent on that day (merchant clock).',
        tags,
        params: SubscriptionParams,
        body: CreateChargeBody,
        response: { 200: ChargeResponse, ...errorResponses(400, 401, 404, 409, 422) },
      },
    },
    async (request) => {
      const { charge, payment } = await createCharge(ctx, principalOf(request).merchantId, request.params.subscription_id, request.body);
      return {
        subscription_id: charge.subscription_id,
        reference_id: charge.reference_id,
        status: charge.status,
        transaction_id: payment.payment_token,
        transaction_status: payment.status,
        transaction_reference_id: payment.reference_id,
        totals: paymentTotals(payment),
        refresh_token: await refreshToken(ctx, request),
      };
    },
  );
}
