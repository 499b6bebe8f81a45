import { Type } from 'typebox';
import { principalOf, type App, type AppContext } from '../context';
import { StringEnum } from '../http/schema-kit';
import { exponentOf } from '../lib/currencies';
import { formatAmount } from '../lib/money';
import type { SettlementDestination } from '../processor/processor';
import { maskTaxId } from '../rails/brazil';
import { listSettlements } from '../settlements/list-settlements';
import { readSettlementSettings, updateSettlementSettings, type SettlementSettings } from '../settlements/settings';
import { SETTLEMENT_STATUSES } from '../settlements/states';

/** A destination as the dashboard shows it: its kind, and the account with most of it hidden. */
export interface MaskedDestination {
  kind: SettlementDestination['kind'];
  /** PIX keys also say their type (CPF, CNPJ, EMAIL, PHONE, EVP). */
  pix_key_type?: string;
  masked: string;
}

/** Every letter and digit but the last `keep` hidden, punctuation kept: `+55*******4321`. */
function keepLast(value: string, keep: number): string {
  let shown = 0;
  const out = [...value].reverse().map((c) => {
    if (!/[0-9a-z]/i.test(c)) return c;
    shown += 1;
    return shown <= keep ? c : '*';
  });
  return out.reverse().join('');
}

/**
 * A settlement destination with most of it hidden, enough for the merchant to know its account: a CPF or
 * CNPJ key as the reports mask them, an e-mail key's first letter and domain, the last four characters of a
 * phone or random key, of an account number (the bank and agency shown) and of a CLABE.
 * @example maskDestination({ kind: 'PIX_KEY', pix_key: 'financeiro@loja.com.br', pix_key_type: 'EMAIL' }).masked // 'f*********@loja.com.br'
 */
export function maskDestination(destination: SettlementDestination): MaskedDestination {
  switch (destination.kind) {
    case 'PIX_KEY': {
      const { pix_key: key, pix_key_type: type } = destination;
      let masked: string;
      if (type === 'CPF' || type === 'CNPJ') masked = maskTaxId(type, key);
      else if (type === 'EMAIL') {
        const at = key.lastIndexOf('@');
        masked = at > 0 ? `${key[0]}${'*'.repeat(Math.max(at - 1, 1))}${key.slice(at)}` : keepLast(key, 4);
      } else masked = keepLast(key, 4);
      return { kind: 'PIX_KEY', pix_key_type: type, masked };
    }
    case 'BANK_ACCOUNT': {
      const agency = destination.agency_check_digit ? `${destination.agency_number}-${destination.agency_check_digit}` : destination.agency_number;
      const account = keepLast(`${destination.account_number}${destination.account_check_digit}`, Math.min(4, destination.account_number.length - 1));
      return { kind: 'BANK_ACCOUNT', masked: `${destination.bank_number} / ${agency} / ${account.slice(0, -1)}-${account.slice(-1)}` };
    }
    case 'CLABE':
      return { kind: 'CLABE', masked: keepLast(destination.clabe, 4) };
  }
}

function settingsView(settings: SettlementSettings) {
  return {
    paused: settings.paused,
    held: settings.held,
    currencies: settings.currencies.map((c) => ({
      currency: c.currency,
      minimum: formatAmount(c.minimum_minor, exponentOf(c.currency)),
      destination: maskDestination(c.destination),
    })),
  };
}

/**
 * The dashboard's settlements (docs/dashboard.md, "Settlements"): the list of `GET /settlements` and the
 * settings of `GET /settlements/settings`, every destination masked, and the pause, set through the same
 * updateSettlementSettings as `PUT /settlements/settings` (so its CSRF rule is the dashboard's, its codes
 * the API's). Destinations and minimums are set through the API.
 * @example registerDashboardSettlements(scope, ctx, '/dashboard/api');
 */
export function registerDashboardSettlements(scope: App, ctx: AppContext, api: string): void {
  scope.get(
    `${api}/settlements`,
    {
      schema: {
        querystring: Type.Object({
          status: Type.Optional(StringEnum(SETTLEMENT_STATUSES)),
          page: Type.Integer({ minimum: 0, maximum: 100_000, default: 0 }),
          size: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
        }),
      },
    },
    async (request) => {
      const page = await listSettlements(ctx.readDb, principalOf(request).merchantId, request.query);
      return {
        rows: page.content.map((s) => ({
          settlement_id: s.settlement_id,
          amount: s.amount,
          asset: s.asset,
          status: s.status,
          settlement_date: s.settlement_date,
          arrival_date: s.arrival_date,
          destination: maskDestination(s.destination),
          failure_code: s.failure_code,
          failure_description: s.failure_description,
          created_at: s.created_at,
        })),
        total: page.totalElements,
        page: request.query.page,
        size: request.query.size,
      };
    },
  );

  scope.get(`${api}/settlements/settings`, async (request) => settingsView(await readSettlementSettings(ctx.db, principalOf(request).merchantId)));

  scope.put(`${api}/settlements/settings`, { schema: { body: Type.Object({ paused: Type.Boolean() }, { additionalProperties: false }) } }, async (request) =>
    settingsView(await updateSettlementSettings(ctx.db, principalOf(request).merchantId, { paused: request.body.paused })),
  );
}
