import { randomBytes } from 'node:crypto';
import type { Db } from '../db/database';
import { hashSecret, newApiKey, newApiSecret, newWebhookSecret } from '../auth/secrets';
import { toUserResource, type UserResource } from '../auth/user-resource';
import { MERCHANT_SETUP_STEPS } from './setup-steps';

/** The contract's answer to `POST /admin/merchants`; the only time the secrets are shown. */
export interface CreatedMerchant {
  merchant_id: string;
  contract_id: string;
  payout_contract_id: string;
  api_key: string;
  api_secret: string;
  webhook_secret: string;
  user: UserResource;
}


function slug(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return base === '' ? 'merchant' : base;
}

/** Contract ids are short, unambiguous and easy to read aloud: a prefix and 12 base-32 characters. */
function contractId(prefix: string): string {
  const alphabet = 'ABCDEFGHJKMNPQRSTVWXYZ0123456789';
  const bytes = randomBytes(12);
  return `${prefix}-${Array.from(bytes, (b) => alphabet[b % 32]).join('')}`;
}

/**
 * Creates a merchant with its API user, contracts and webhook secret in one transaction.
 * @example const merchant = await createMerchant(db, 'Loja Exemplo');
 */
export async function createMerchant(db: Db, name: string): Promise<CreatedMerchant> {
  const apiKey = newApiKey();
  const apiSecret = newApiSecret();
  const webhookSecret = newWebhookSecret();
  return db.transaction().execute(async (trx) => {
    const merchant = await trx
      .insertInto('merchants')
      .values({ name, contract_id: contractId('CT'), payout_contract_id: contractId('PO'), webhook_secret: webhookSecret })
      .returning(['id', 'contract_id', 'payout_contract_id'])
      .executeTakeFirstOrThrow();
    const user = await trx
      .insertInto('users')
      .values({
        merchant_id: merchant.id,
        username: `${slug(name)}-${randomBytes(3).toString('hex')}`,
        name,
        roles: ['MERCHANT_ADMIN'],
        api_key: apiKey,
        api_secret_hash: hashSecret(apiSecret),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    for (const step of MERCHANT_SETUP_STEPS) await step(trx, merchant.id);
    return {
      merchant_id: merchant.id,
      contract_id: merchant.contract_id,
      payout_contract_id: merchant.payout_contract_id,
      api_key: apiKey,
      api_secret: apiSecret,
      webhook_secret: webhookSecret,
      user: toUserResource(user),
    };
  });
}
