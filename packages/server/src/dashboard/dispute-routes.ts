import { Type } from 'typebox';
import { merchantNow } from '../clock/merchant-clock';
import { principalOf, type App, type AppContext } from '../context';
import { disputeView, loadDispute } from '../disputes/dispute-record';
import { fileContent } from '../disputes/evidence-files';
import { listDisputes } from '../disputes/list-disputes';
import { acceptDispute, addEvidenceText, submitDispute } from '../disputes/respond';
import { closeSandboxDispute, openSandboxDispute } from '../disputes/sandbox-disputes';
import { EvidenceTextBody } from '../disputes/schemas';
import { DISPUTE_STATUSES } from '../disputes/states';
import { ApiError } from '../http/errors';
import { StringEnum } from '../http/schema-kit';
import { formatDateTime } from '../lib/time-format';

const DisputeParams = Type.Object({ dispute_id: Type.String({ maxLength: 64 }) });

/**
 * The dashboard's disputes (docs/dashboard.md, "Disputes"): the list, one dispute, its evidence (text
 * and files), submit and accept, through the same verbs as `/disputes/*` of the API, so the rules and
 * error codes are the API's. Every answer also carries `now`, the merchant's clock in the format of
 * `evidence_due_by`, so the page counts the deadline down on the clock the deadline is kept on (a
 * sandbox clock may be days ahead of the browser's).
 * @example await registerDashboardDisputes(scope, ctx, '/dashboard/api');
 */
export async function registerDashboardDisputes(scope: App, ctx: AppContext, api: string): Promise<void> {
  const clockOf = async (merchantId: string) => formatDateTime(await merchantNow(ctx.db, merchantId));

  scope.get(
    `${api}/disputes`,
    {
      schema: {
        querystring: Type.Object({
          status: Type.Optional(StringEnum(DISPUTE_STATUSES)),
          page: Type.Integer({ minimum: 0, maximum: 100_000, default: 0 }),
          size: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
        }),
      },
    },
    async (request) => {
      const merchantId = principalOf(request).merchantId;
      const page = await listDisputes(ctx.db, merchantId, request.query);
      return { rows: page.content, total: page.totalElements, page: request.query.page, size: request.query.size, now: await clockOf(merchantId) };
    },
  );

  scope.get(`${api}/disputes/:dispute_id`, { schema: { params: DisputeParams } }, async (request) => {
    const merchantId = principalOf(request).merchantId;
    const { dispute, files } = await loadDispute(ctx.db, merchantId, request.params.dispute_id);
    return { ...disputeView(dispute, files), now: await clockOf(merchantId) };
  });

  scope.post(
    `${api}/disputes/:dispute_id/evidence`,
    { schema: { params: DisputeParams, body: EvidenceTextBody } },
    async (request) => {
      const merchantId = principalOf(request).merchantId;
      const view = await addEvidenceText(ctx, merchantId, request.params.dispute_id, request.body);
      return { ...view, now: await clockOf(merchantId) };
    },
  );

  // A file of the dispute, as a download: only one of this merchant's dispute's own files.
  scope.get(
    `${api}/disputes/:dispute_id/evidence/:file_id`,
    { schema: { params: Type.Object({ dispute_id: Type.String({ maxLength: 64 }), file_id: Type.String({ maxLength: 64 }) }) } },
    async (request, reply) => {
      const merchantId = principalOf(request).merchantId;
      const { files } = await loadDispute(ctx.db, merchantId, request.params.dispute_id);
      const file = files.find((f) => f.file_id === request.params.file_id);
      if (!file) throw new ApiError('NOT_FOUND', 'file_id: the dispute has no file with this id.');
      return reply
        .type(file.content_type)
        .header('content-disposition', attachment(file.filename))
        .header('x-content-type-options', 'nosniff')
        .send(await fileContent(ctx.db, merchantId, file.file_id));
    },
  );

  scope.post(`${api}/disputes/:dispute_id/submit`, { schema: { params: DisputeParams } }, async (request) => {
    const merchantId = principalOf(request).merchantId;
    return { ...(await submitDispute(ctx, merchantId, request.params.dispute_id)), now: await clockOf(merchantId) };
  });
  scope.post(`${api}/disputes/:dispute_id/accept`, { schema: { params: DisputeParams } }, async (request) => {
    const merchantId = principalOf(request).merchantId;
    return { ...(await acceptDispute(ctx, merchantId, request.params.dispute_id)), now: await clockOf(merchantId) };
  });

  if (ctx.config.mode !== 'sandbox') return;
  // The sandbox acquirer: dispute a paid payment now, and rule on a dispute under review.
  scope.post(
    `${api}/sandbox/payments/:payment_token/dispute`,
    { schema: { params: Type.Object({ payment_token: Type.String({ minLength: 1, maxLength: 64 }) }) } },
    async (request) => openSandboxDispute(ctx, principalOf(request).merchantId, request.params.payment_token, {}),
  );
  scope.post(
    `${api}/sandbox/disputes/:dispute_id/close`,
    { schema: { params: DisputeParams, body: Type.Object({ outcome: StringEnum(['WON', 'LOST'] as const) }) } },
    async (request) => {
      const merchantId = principalOf(request).merchantId;
      return { ...(await closeSandboxDispute(ctx, merchantId, request.params.dispute_id, request.body.outcome)), now: await clockOf(merchantId) };
    },
  );
}

/**
 * A Content-Disposition that always downloads, with the stored name: an ASCII fallback for old
 * clients and the exact name in RFC 5987 form.
 * @example attachment('recibo nº 1.pdf') // attachment; filename="recibo n_ 1.pdf"; filename*=UTF-8''recibo%20n%C2%BA%201.pdf
 */
export function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
