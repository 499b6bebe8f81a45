import { Type } from 'typebox';
import { principalOf, type App, type AppContext } from '../context';
import type { Db } from '../db/database';
import { onePer } from '../lib/batch';

/** Merchants whose contracts a process keeps at most (bounds memory whatever the traffic). */
const CONTRACTS_CACHE_LIMIT = 10_000;

/** A merchant's contracts: `contract_id` for payments, checkouts and subscriptions; `payout_contract_id` for payouts. */
interface Contract {
  contract_id: string;
  type: 'PAYIN' | 'PAYOUT';
}

/**
 * The contracts of each merchant, read once per process: a merchant's contract ids are set when it is
 * created and never change, so nothing can go stale, and `GET /me` stays free of database reads after
 * a merchant's first call.
 */
const contractCacheOf = onePer((_db: Db) => new Map<string, readonly Contract[]>());

async function contractsOf(db: Db, merchantId: string): Promise<readonly Contract[]> {
  const cache = contractCacheOf(db);
  const known = cache.get(merchantId);
  if (known) return known;
  const row = await db.selectFrom('merchants').select(['contract_id', 'payout_contract_id']).where('id', '=', merchantId).executeTakeFirst();
  const contracts: readonly Contract[] = row
    ? [
        { contract_id: row.contract_id, type: 'PAYIN' },
        { contract_id: row.payout_contract_id, type: 'PAYOUT' },
      ]
    : [];
  if (row && cache.size < CONTRACTS_CACHE_LIMIT) cache.set(merchantId, contracts);
  return contracts;
}

/**
 * `GET /me`: who the token belongs to, and the merchant's contracts. Apart from a merchant's first
 * call in a process it touches no database, which also makes it the benchmark's "authenticated
 * no-op" (bench/http.ts).
 */
export function registerMeRoute(app: App, ctx: AppContext): void {
  app.get(
    '/me',
    {
      schema: {
        summary: 'The caller of this token and its merchant contracts',
        description:
          'contracts lists the contract ids to send: PAYIN (contract_id of sendPayment, checkouts and subscriptions) and PAYOUT (contract_id of payoutTransaction).',
        tags: ['Authentication'],
        response: {
          200: Type.Object({
            user_id: Type.String(),
            merchant_id: Type.String(),
            contracts: Type.Array(Type.Object({ contract_id: Type.String(), type: Type.Union([Type.Literal('PAYIN'), Type.Literal('PAYOUT')]) })),
          }),
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return { user_id: principal.userId, merchant_id: principal.merchantId, contracts: [...(await contractsOf(ctx.db, principal.merchantId))] };
    },
  );
}
