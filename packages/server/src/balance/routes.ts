import { Type } from 'typebox';
import { refreshToken } from '../auth/refresh-token';
import { principalOf, type App, type AppContext } from '../context';
import { PageSchema } from '../http/page';
import { errorResponses, StatusEnum, StringEnum } from '../http/schema-kit';
import { exponentOf } from '../lib/currencies';
import { toJsonNumber } from '../lib/money';
import { BALANCE_TYPES } from '../ledger/ledger';
import { merchantBalances } from './balance';
import { listBalanceTransactions } from './list-transactions';

const tags = ['Balance'];

const BalanceResponse = Type.Object(
  {
    balances: Type.Array(
      Type.Object({
        asset: Type.String(),
        available: Type.Number({ description: 'can be settled to the merchant now' }),
        pending: Type.Number({ description: 'captured, available on a later day of its method' }),
        reserved: Type.Number({ description: 'held: the rolling reserve until its day, and what open disputes hold' }),
      }),
    ),
    refresh_token: Type.String(),
  },
  { title: 'Balance' },
);

const BalanceTransaction = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    type: StatusEnum(BALANCE_TYPES),
    source_id: Type.String({ description: 'the payment token, refund id, dispute id, payout tx_id, settlement id or adjustment id' }),
    amount: Type.Number({ description: 'gross: net plus fee' }),
    fee: Type.Number(),
    net: Type.Number({ description: 'what it adds to (or takes from) the balance' }),
    asset: Type.String(),
    reserved: Type.Boolean({ description: 'true for a movement of the reserved part (rolling reserve, dispute holds)' }),
    available_on: Type.Union([Type.String({ description: 'YYYY-MM-DD' }), Type.Null()]),
    created_at: Type.String({ description: 'yyyy-MM-dd HH:mm:ss (UTC, merchant clock)' }),
  },
  { title: 'BalanceTransaction' },
);

/** The merchant's balance and its transactions (CONTRACTS.md, Balance; docs/balance-and-settlements.md). */
export function registerBalanceRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/balance',
    { schema: { summary: "The merchant's balance per currency", tags, response: { 200: BalanceResponse, ...errorResponses(401) } } },
    async (request) => {
      const balances = await merchantBalances(ctx.db, principalOf(request).merchantId);
      return {
        balances: balances.map((b) => {
          const money = (minor: bigint) => toJsonNumber(minor, exponentOf(b.currency));
          return { asset: b.currency, available: money(b.available), pending: money(b.pending), reserved: money(b.reserved) };
        }),
        refresh_token: await refreshToken(ctx, request),
      };
    },
  );

  app.get(
    '/balance/transactions',
    {
      schema: {
        summary: "The merchant's balance transactions",
        description: 'Newest first, as a page object like the saved reports list; their nets add up to available + pending + reserved.',
        tags,
        querystring: Type.Object({
          size: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
          page: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
          type: Type.Optional(StringEnum(BALANCE_TYPES)),
          from: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD: recorded on or after this day' })),
          to: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD: recorded on or before this day' })),
        }),
        response: { 200: PageSchema(BalanceTransaction, 'BalanceTransactionPage', { refresh_token: Type.String() }), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const page = await listBalanceTransactions(ctx.db, principalOf(request).merchantId, request.query);
      return { ...page, refresh_token: await refreshToken(ctx, request) };
    },
  );
}
