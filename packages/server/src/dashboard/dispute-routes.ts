import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { merchantNow } from '../clock/merchant-clock';
import { principalOf, type App, type AppContext } from '../context';
import { disputeView, loadDispute } from '../disputes/dispute-record';
import { addEvidenceFile, attachmentHeader, openEvidenceFile } from '../disputes/evidence-files';
import { listDisputes } from '../disputes/list-disputes';
import { acceptDispute, addEvidenceText, submitDispute } from '../disputes/respond';
import { closeSandboxDispute, openSandboxDispute } from '../disputes/sandbox-disputes';
import { EVIDENCE_MULTIPART } from '../disputes/routes';
import { EvidenceTextBody } from '../disputes/schemas';
import { DISPUTE_STATUSES } from '../disputes/states';
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
      const page = await listDisputes(ctx.readDb, merchantId, request.query);
      return { rows: page.content, total: page.totalElements, page: request.query.page, size: request.query.size, now: await clockOf(merchantId) };
    },
  );

  scope.get(`${api}/disputes/:dispute_id`, { schema: { params: DisputeParams } }, async (request) => {
    const merchantId = principalOf(request).merchantId;
    const { dispute, files } = await loadDispute(ctx.db, merchantId, request.params.dispute_id);
    return { ...disputeView(dispute, files), now: await clockOf(merchantId) };
  });

  // Evidence: JSON sets text fields; multipart/form-data adds a file, its parts handed as they arrive to
  // the API's own verb, which streams the file into the database. The parser, with the API's limits, is
  // registered in this route's scope only; the dashboard's session and CSRF hooks apply as everywhere.
  await scope.register(async (plain) => {
    const uploads = plain.withTypeProvider<TypeBoxTypeProvider>() as App;
    await uploads.register(multipart, EVIDENCE_MULTIPART);
    uploads.post(
      `${api}/disputes/:dispute_id/evidence`,
      // Only a JSON body has a schema: a multipart one is checked part by part as it streams.
      { schema: { params: DisputeParams, body: { content: { 'application/json': { schema: EvidenceTextBody } } } } },
      async (request, reply) => {
        const merchantId = principalOf(request).merchantId;
        const disputeId = request.params.dispute_id;
        let view;
        if (request.isMultipart()) {
          try {
            view = await addEvidenceFile(ctx, merchantId, disputeId, { parts: request.parts(), cancel: () => request.raw.destroy() });
          } catch (error) {
            // The browser may still be sending the file: close the connection after the answer.
            reply.header('connection', 'close');
            throw error;
          }
        } else {
          view = await addEvidenceText(ctx, merchantId, disputeId, request.body as Static<typeof EvidenceTextBody>);
        }
        return { ...view, now: await clockOf(merchantId) };
      },
    );
  });

  // A file of the dispute, as a download, streamed: only one of this merchant's dispute's own files.
  scope.get(
    `${api}/disputes/:dispute_id/evidence/:file_id`,
    { schema: { params: Type.Object({ dispute_id: Type.String({ maxLength: 64 }), file_id: Type.String({ maxLength: 64 }) }) } },
    async (request, reply) => {
      const { file, stream } = await openEvidenceFile(ctx.db, principalOf(request).merchantId, request.params.dispute_id, request.params.file_id);
      return reply
        .type(file.content_type)
        .header('content-length', String(file.size_bytes))
        .header('content-disposition', attachmentHeader(file.filename))
        .header('x-content-type-options', 'nosniff')
        .send(stream);
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
