import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import type { PaymentMethodName } from '../processor/processor';
import { findConnector, METHODS, missingSettings } from './plan';
import { mergedSettings } from './router';

export interface MerchantConnectorView {
  merchant_id: string;
  method: string;
  connector: string;
  /** The credential keys stored (their values are never shown again). */
  credential_keys: string[];
  updated_at: string;
}

/**
 * Gives a merchant its own connector for one method, overriding the instance's routing: check the
 * connector exists, serves the method, may run in this mode, and has every setting it needs (the
 * merchant's credentials over the instance's) → encrypt the credentials under the master key → store.
 * @example await setMerchantConnector(ctx, merchantId, 'CREDITCARD', 'adyen', { merchant_account: 'ShopBR', api_key: '…', hmac_key: '…' });
 */
export async function setMerchantConnector(
  ctx: AppContext,
  merchantId: string,
  method: string,
  connectorId: string,
  credentials: Readonly<Record<string, string>>,
): Promise<MerchantConnectorView> {
  if (!(METHODS as readonly string[]).includes(method)) throw new ApiError('FIELD_NOT_ALLOWED', `method: must be one of ${METHODS.join(', ')}.`);
  const definition = findConnector(connectorId);
  if (!definition) throw new ApiError('CONNECTOR_UNKNOWN', `connector: ${connectorId} is not a connector.`);
  if (!definition.methods.includes(method as PaymentMethodName)) throw new ApiError('CONNECTOR_UNKNOWN', `connector: ${connectorId} does not serve ${method}.`);
  if (definition.sandboxOnly && ctx.config.mode !== 'sandbox') throw new ApiError('CONNECTOR_UNKNOWN', `connector: ${connectorId} exists only in sandbox mode.`);
  // Settings of the instance alone (a listener, an interval) are not a merchant's to set.
  const known = new Set(definition.settings.filter((s) => !s.instanceOnly).map((s) => s.key));
  const unknown = Object.keys(credentials).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new ApiError('FIELD_NOT_ALLOWED', `credentials: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a setting of ${connectorId} (${[...known].join(', ')}).`);
  const settings = mergedSettings(definition, ctx.config, credentials);
  const missing = missingSettings(definition, settings).map((env) => definition.settings.find((s) => s.env === env)?.key ?? env);
  if (missing.length > 0) throw new ApiError('FIELD_REQUIRED', `credentials: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required by ${connectorId} (the instance does not set ${missing.length === 1 ? 'it' : 'them'}).`);
  // Building it checks values the connector parses (an environment name, a timeout) before they are stored.
  try {
    definition.create(settings, { db: ctx.db, config: ctx.config });
  } catch (error) {
    throw new ApiError('FIELD_INVALID', `credentials: ${(error as Error).message}`);
  }
  const exists = await ctx.db.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst();
  if (!exists) throw new ApiError('NOT_FOUND', 'merchantId: merchant not found.');

  const { keyId, ciphertext } = ctx.secretBox.encrypt(JSON.stringify(credentials));
  const now = new Date();
  const row = await ctx.db
    .insertInto('merchant_connectors')
    .values({ merchant_id: merchantId, method, connector: connectorId, key_id: keyId, credentials_ciphertext: ciphertext, updated_at: now })
    .onConflict((oc) => oc.columns(['merchant_id', 'method']).doUpdateSet({ connector: connectorId, key_id: keyId, credentials_ciphertext: ciphertext, updated_at: now }))
    .returningAll()
    .executeTakeFirstOrThrow();
  ctx.connectors.forget(merchantId);
  return { merchant_id: row.merchant_id, method: row.method, connector: row.connector, credential_keys: Object.keys(credentials).sort(), updated_at: row.updated_at.toISOString() };
}

/** A merchant's own connectors, without their credentials' values. */
export async function listMerchantConnectors(ctx: AppContext, merchantId: string): Promise<MerchantConnectorView[]> {
  const rows = await ctx.db.selectFrom('merchant_connectors').selectAll().where('merchant_id', '=', merchantId).orderBy('method').execute();
  return rows.map((row) => ({
    merchant_id: row.merchant_id,
    method: row.method,
    connector: row.connector,
    credential_keys: Object.keys(JSON.parse(ctx.secretBox.decrypt(row.key_id, row.credentials_ciphertext)) as object).sort(),
    updated_at: row.updated_at.toISOString(),
  }));
}

/** Removes a merchant's own connector for a method; the instance's routing applies again. */
export async function deleteMerchantConnector(ctx: AppContext, merchantId: string, method: string): Promise<boolean> {
  const deleted = await ctx.db.deleteFrom('merchant_connectors').where('merchant_id', '=', merchantId).where('method', '=', method).executeTakeFirst();
  ctx.connectors.forget(merchantId);
  return deleted.numDeletedRows > 0n;
}
