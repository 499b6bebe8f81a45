import type { Db } from '../db/database';
import { ApiError, type ErrorKey } from '../http/errors';
import { exponentOf } from '../lib/currencies';
import { parseAmount, toJsonNumber } from '../lib/money';
import type { SettlementDestination } from '../processor/processor';
import { validatePixKey } from '../rails/brazil';
import { validateClabe } from '../rails/mexico';
import { BANK_FIELD_RULES, BANK_FIELDS, bankAccountOf, type DestinationInput } from '../refunds/destination';
import { isSettlementCurrency, type SettlementCurrency } from './settlement-days';

/** The least amount settled when the merchant sets none: 100.00 in the currency (minor units of exponent 2). */
export const DEFAULT_SETTLEMENT_MINIMUM_MINOR = 100_00n;
/** A minimum below 1.00 would send transfers that cost more than they carry. */
const LEAST_MINIMUM_MINOR = 1_00n;


/** `PUT /settlements/settings`: what it sets; what it leaves out stays as it was. */
export interface SettlementSettingsInput {
  paused?: boolean | undefined;
  currencies?: readonly { asset: string; minimum?: number | undefined; destination?: DestinationInput | null | undefined }[] | undefined;
}

/** A merchant's settlement settings as stored. */
export interface SettlementSettings {
  paused: boolean;
  held: boolean;
  held_reason: string | null;
  held_at: Date | null;
  currencies: { currency: SettlementCurrency; minimum_minor: bigint; destination: SettlementDestination }[];
}

type Failure = { key: ErrorKey; description: string };

/**
 * Checks one currency's destination, in a fixed order, with the rules refunds apply to the same kinds of
 * account (refunds/destination.ts): BRL takes a PIX key or a Brazilian bank account, never both; MXN a CLABE
 * with a valid check digit (and `bank_code`, when given, must be its bank).
 * @example validateSettlementDestination('BRL', { pix_key: 'financeiro@loja.com.br' }, 'currencies[0].destination')
 */
export function validateSettlementDestination(currency: SettlementCurrency, input: DestinationInput, at: string): { destination?: SettlementDestination; failures: Failure[] } {
  const bankGiven = BANK_FIELDS.some((f) => input[f] !== undefined);
  const clabeGiven = input.clabe !== undefined || input.bank_code !== undefined;
  if (currency === 'MXN') {
    if (input.pix_key !== undefined || bankGiven) return { failures: [{ key: 'SETTLEMENT_DESTINATION_WRONG_CURRENCY', description: `${at}: an MXN destination is a CLABE (clabe, and bank_code if you like).` }] };
    if (input.clabe === undefined) return { failures: [{ key: 'SETTLEMENT_DESTINATION_REQUIRED', description: `${at}.clabe: is required for MXN.` }] };
    const clabe = validateClabe(input.clabe);
    if (!clabe.ok) return { failures: [{ key: 'SETTLEMENT_CLABE_INVALID', description: `${at}.clabe: must be 18 digits with a valid check digit.` }] };
    if (input.bank_code !== undefined && Number(clabe.bankCode) !== input.bank_code) {
      return { failures: [{ key: 'SETTLEMENT_CLABE_INVALID', description: `${at}.bank_code: does not match the bank of the clabe.` }] };
    }
    return { destination: { kind: 'CLABE', bank_code: clabe.bankCode, clabe: clabe.value }, failures: [] };
  }
  if (clabeGiven) return { failures: [{ key: 'SETTLEMENT_DESTINATION_WRONG_CURRENCY', description: `${at}: a BRL destination is a PIX key or a Brazilian bank account, not a CLABE.` }] };
  if (input.pix_key !== undefined && bankGiven) return { failures: [{ key: 'SETTLEMENT_DESTINATION_AMBIGUOUS', description: `${at}: give either pix_key or the bank-account fields, not both.` }] };
  if (input.pix_key !== undefined) {
    const key = validatePixKey(input.pix_key);
    if (!key.ok) return { failures: [{ key: 'SETTLEMENT_PIX_KEY_INVALID', description: `${at}.pix_key: is not a valid CPF, CNPJ, e-mail, +55 mobile or random key.` }] };
    return { destination: { kind: 'PIX_KEY', pix_key: key.value, pix_key_type: key.type }, failures: [] };
  }
  if (!bankGiven) return { failures: [{ key: 'SETTLEMENT_DESTINATION_REQUIRED', description: `${at}: a BRL destination needs pix_key or the bank-account fields.` }] };
  const failures: Failure[] = [];
  for (const field of BANK_FIELDS) {
    const value = input[field];
    const rule = BANK_FIELD_RULES[field];
    if (value === undefined) {
      if (rule.required) failures.push({ key: 'SETTLEMENT_BANK_ACCOUNT_INVALID', description: `${at}.${field}: is required with the bank-account fields.` });
    } else if (!rule.pattern.test(value)) {
      failures.push({ key: 'SETTLEMENT_BANK_ACCOUNT_INVALID', description: `${at}.${field}: ${rule.rule}.` });
    }
  }
  if (failures.length > 0) return { failures };
  return { destination: bankAccountOf(input), failures };
}

/**
 * A merchant's settlement settings: not paused, not held and no destination until it sets some.
 * @example const settings = await readSettlementSettings(db, merchantId);
 */
export async function readSettlementSettings(db: Db, merchantId: string): Promise<SettlementSettings> {
  const [row, destinations] = await Promise.all([
    db.selectFrom('settlement_settings').selectAll().where('merchant_id', '=', merchantId).executeTakeFirst(),
    db.selectFrom('settlement_destinations').selectAll().where('merchant_id', '=', merchantId).orderBy('currency').execute(),
  ]);
  return {
    paused: row?.paused ?? false,
    held: row?.held ?? false,
    held_reason: row?.held_reason ?? null,
    held_at: row?.held_at ?? null,
    currencies: destinations.map((d) => ({
      currency: d.currency as SettlementCurrency,
      minimum_minor: d.minimum_minor,
      destination: d.destination as unknown as SettlementDestination,
    })),
  };
}

/**
 * `PUT /settlements/settings`: checks every change first, in the order given (nothing is stored when one is
 * wrong), then writes them in one transaction, under the settings row's lock, which the sweep takes too. A
 * currency given with `destination: null` has its destination removed: its money stays in the balance.
 * @example await updateSettlementSettings(db, merchantId, { currencies: [{ asset: 'BRL', minimum: 250, destination: { pix_key: '+5511987654321' } }] })
 */
export async function updateSettlementSettings(db: Db, merchantId: string, input: SettlementSettingsInput): Promise<SettlementSettings> {
  const failures: Failure[] = [];
  const changes: { currency: SettlementCurrency; minimum?: bigint; destination?: SettlementDestination | null }[] = [];
  const seen = new Set<string>();
  (input.currencies ?? []).forEach((item, index) => {
    const at = `currencies[${index}]`;
    if (!isSettlementCurrency(item.asset)) {
      failures.push({ key: 'SETTLEMENT_CURRENCY_UNSUPPORTED', description: `${at}.asset: settlements go out in BRL or MXN.` });
      return;
    }
    if (seen.has(item.asset)) {
      failures.push({ key: 'SETTLEMENT_CURRENCY_REPEATED', description: `${at}.asset: ${item.asset} is named twice.` });
      return;
    }
    seen.add(item.asset);
    const change: (typeof changes)[number] = { currency: item.asset };
    if (item.destination === null) change.destination = null;
    else if (item.destination !== undefined) {
      const checked = validateSettlementDestination(item.asset, item.destination, `${at}.destination`);
      failures.push(...checked.failures);
      if (checked.destination) change.destination = checked.destination;
    }
    if (item.minimum !== undefined) {
      const parsed = parseAmount(item.minimum, exponentOf(item.asset));
      if (!parsed.ok || parsed.minor < LEAST_MINIMUM_MINOR) failures.push({ key: 'SETTLEMENT_MINIMUM_INVALID', description: `${at}.minimum: must be at least 1.00, with at most two decimal places.` });
      else change.minimum = parsed.minor;
    }
    changes.push(change);
  });
  if (failures.length > 0) throw ApiError.fields(failures);

  await db.transaction().execute(async (trx) => {
    const now = new Date();
    await trx
      .insertInto('settlement_settings')
      .values({ merchant_id: merchantId, paused: input.paused ?? false, updated_at: now })
      .onConflict((oc) => oc.column('merchant_id').doUpdateSet(input.paused === undefined ? { updated_at: now } : { paused: input.paused, updated_at: now }))
      .execute();
    for (const change of changes) {
      const current = await trx.selectFrom('settlement_destinations').select('minimum_minor').where('merchant_id', '=', merchantId).where('currency', '=', change.currency).executeTakeFirst();
      if (change.destination === null) {
        await trx.deleteFrom('settlement_destinations').where('merchant_id', '=', merchantId).where('currency', '=', change.currency).execute();
      } else if (change.destination !== undefined) {
        const minimum = change.minimum ?? current?.minimum_minor ?? DEFAULT_SETTLEMENT_MINIMUM_MINOR;
        await trx
          .insertInto('settlement_destinations')
          .values({ merchant_id: merchantId, currency: change.currency, destination: JSON.stringify(change.destination), minimum_minor: minimum, updated_at: now })
          .onConflict((oc) => oc.columns(['currency', 'merchant_id']).doUpdateSet({ destination: JSON.stringify(change.destination), minimum_minor: minimum, updated_at: now }))
          .execute();
      } else if (!current) {
        throw ApiError.fields([{ key: 'SETTLEMENT_DESTINATION_REQUIRED', description: `currencies: ${change.currency} has no destination yet; send one with its minimum.` }]);
      } else if (change.minimum !== undefined) {
        await trx
          .updateTable('settlement_destinations')
          .set({ minimum_minor: change.minimum, updated_at: now })
          .where('merchant_id', '=', merchantId)
          .where('currency', '=', change.currency)
          .execute();
      }
    }
  });
  return readSettlementSettings(db, merchantId);
}

/**
 * The settings as the merchant reads them. The operator's reason for a hold is the operator's: the merchant
 * sees that it is held, and since when.
 * @example settingsView(await readSettlementSettings(db, merchantId))
 */
export function settingsView(settings: SettlementSettings) {
  return {
    paused: settings.paused,
    held: settings.held,
    currencies: settings.currencies.map((c) => ({
      asset: c.currency,
      minimum: toJsonNumber(c.minimum_minor, exponentOf(c.currency)),
      destination: c.destination,
    })),
  };
}
