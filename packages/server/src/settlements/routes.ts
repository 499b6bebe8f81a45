import { Type } from 'typebox';
import { refreshToken } from '../auth/refresh-token';
import { principalOf, type App, type AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { formatDateTime } from '../lib/time-format';
import { holdSettlements, releaseSettlements, type HoldResult } from './hold';
import { listSettlements } from './list-settlements';
import { HoldBody, HoldResponse, SettlementListQuery, SettlementPage, SettlementParams, SettlementResponse, SettlementSettingsBody, SettlementSettingsResponse } from './schemas';
import { loadSettlement, settlementView } from './settlement-record';
import { readSettlementSettings, settingsView, updateSettlementSettings } from './settings';

const tags = ['Balance'];

function holdView(hold: HoldResult) {
  return { ...hold, held_at: hold.held_at === null ? null : formatDateTime(hold.held_at) };
}

/**
 * Settlements to merchants (CONTRACTS.md; docs/balance-and-settlements.md, "Settlements"): the merchant's
 * settlements and settings, and the operator's hold. Thin: schema, one call, presentation.
 */
export function registerSettlementRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/settlements',
    {
      schema: {
        summary: "List the merchant's settlements",
        description: 'Newest first, as a page object like the saved reports list; filters by status and by settlement date.',
        tags,
        querystring: SettlementListQuery,
        response: { 200: SettlementPage, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const page = await listSettlements(ctx.db, principalOf(request).merchantId, request.query);
      return { ...page, refresh_token: await refreshToken(ctx, request) };
    },
  );

  app.get(
    '/settlements/settings',
    { schema: { summary: "The merchant's settlement settings", tags, response: { 200: SettlementSettingsResponse, ...errorResponses(401) } } },
    async (request) => ({ ...settingsView(await readSettlementSettings(ctx.db, principalOf(request).merchantId)), refresh_token: await refreshToken(ctx, request) }),
  );

  app.put(
    '/settlements/settings',
    {
      schema: {
        summary: "Set the merchant's settlement settings",
        description: 'Pauses or resumes settlements, and sets each currency\'s destination and minimum; what is left out stays as it was.',
        tags,
        body: SettlementSettingsBody,
        response: { 200: SettlementSettingsResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => ({
      ...settingsView(await updateSettlementSettings(ctx.db, principalOf(request).merchantId, request.body)),
      refresh_token: await refreshToken(ctx, request),
    }),
  );

  app.get(
    '/settlements/:settlement_id',
    { schema: { summary: 'Read a settlement', tags, params: SettlementParams, response: { 200: SettlementResponse, ...errorResponses(401, 404) } } },
    async (request) => {
      const settlement = await loadSettlement(ctx.db, principalOf(request).merchantId, request.params.settlement_id);
      return { ...settlementView(settlement), refresh_token: await refreshToken(ctx, request) };
    },
  );

  const admin = { config: { auth: 'admin' as const }, tags: ['Admin'], security: [{ adminToken: [] }], params: Type.Object({ merchantId: Type.String({ format: 'uuid' }) }) };
  app.post(
    '/admin/merchants/:merchantId/settlements/hold',
    {
      config: admin.config,
      schema: {
        summary: "Hold a merchant's settlements",
        description: 'No settlement is made or sent until released; PENDING ones fail, their money available again. Takes the admin token.',
        tags: admin.tags,
        security: admin.security,
        params: admin.params,
        body: HoldBody,
        response: { 200: HoldResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => holdView(await holdSettlements(ctx.db, request.params.merchantId, request.body.reason)),
  );

  app.post(
    '/admin/merchants/:merchantId/settlements/release',
    {
      config: admin.config,
      schema: {
        summary: "Release a merchant's settlements",
        description: 'Settlements resume with the next sweep of a business day. Takes the admin token.',
        tags: admin.tags,
        security: admin.security,
        params: admin.params,
        response: { 200: HoldResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => holdView(await releaseSettlements(ctx.db, request.params.merchantId)),
  );
}
