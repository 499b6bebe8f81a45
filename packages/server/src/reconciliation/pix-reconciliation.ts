import { createHash } from 'node:crypto';
import { paymentTokenOfTxid } from '../checkout/pix-charges';
import type { PixApiClient, Pix } from '../connectors/pix/pix-api';
import { PixConnector } from '../connectors/pix/pix-connector';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { parseAmount } from '../lib/money';
import { attemptOutcome } from '../processor/processor';
import { addDays, daysBetween } from '../rails/calendar';
import { importReport, type ImportResult, type ReportSource } from './import-report';
import type { SettlementLine } from './settlement-details-format';

/**
 * PIX reconciliation: the PSP's own list of the PIX it received (`GET /pix?inicio&fim` of the API Pix,
 * connectors/pix/pix-api.ts), with their devoluções, read a page at a time and reconciled as a run of
 * processor `pix`, like a settlement report. Each PIX received is a line that settles a payment (found
 * by its txid, which Colibri derives from the payment token: checkout/pix-charges.ts), and each
 * devolução the PSP settled (DEVOLVIDO) a line that settles a refund (its id is `colibri<refund id>`);
 * devoluções still in process or refused settle nothing and are not lines. A PIX's psp reference is its
 * endToEndId, which Colibri keeps as the payment's processor id. The days are Brasília's (UTC−3), as the
 * PSP's; the run's digest is that of the PSP's answers with the period, so asking again for the same
 * days while nothing changed at the PSP answers the first run.
 *
 * The instance's PIX connector is the one read (a merchant's own PSP account is not).
 */

/** Items per page asked of the PSP, and the most pages read (a million PIX). */
const PER_PAGE = 1_000;
const MAX_PAGES = 1_000;
/** The longest period asked for at once, in days. */
const MAX_DAYS = 31;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DEVOLUCAO_OF_REFUND = /^colibri(\d{1,18})$/;

/**
 * @example const { run } = await importPixReceipts(ctx, { from: '2026-11-24', to: '2026-11-25', importedBy: 'ana' })
 */
export async function importPixReceipts(ctx: AppContext, input: { from: string | undefined; to: string | undefined; importedBy: string | null }): Promise<ImportResult> {
  const { from, to } = input;
  if (!from || !to || !DATE.test(from) || !DATE.test(to) || daysBetween(from, to) < 0 || daysBetween(from, to) >= MAX_DAYS) {
    throw new ApiError('RECONCILIATION_PERIOD_INVALID', `from and to: both YYYY-MM-DD, from not after to, at most ${MAX_DAYS} days.`);
  }
  const connector = ctx.connectors.instanceConnectors().find((c): c is PixConnector => c instanceof PixConnector);
  if (!connector) throw new ApiError('RECONCILIATION_PIX_NOT_CONFIGURED');
  try {
    return await importReport(ctx.db, 'pix', pixReceiptsSource(connector.api, from, to), input.importedBy);
  } catch (error) {
    if (attemptOutcome(error)) throw new ApiError('EXTERNAL_API', `The PSP's list of received PIX could not be read: ${(error as Error).message}.`);
    throw error;
  }
}

/** The PIX received on the days from `from` to `to` (Brasília), as report lines. */
export function pixReceiptsSource(api: Pick<PixApiClient, 'listPix'>, from: string, to: string): ReportSource {
  const inicio = `${from}T00:00:00-03:00`;
  const fim = `${addDays(to, 1)}T00:00:00-03:00`;
  const hash = createHash('sha256').update(`pix\n${inicio}\n${fim}\n`);
  return {
    period: { from: new Date(inicio), to: new Date(fim) },
    async *lines() {
      let line = 0;
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const answer = await api.listPix(inicio, fim, page, PER_PAGE);
        const received = Array.isArray(answer.pix) ? answer.pix : [];
        hash.update(JSON.stringify(received));
        const lines: SettlementLine[] = [];
        for (const pix of received) for (const l of linesOf(pix)) lines.push({ ...l, line: (line += 1) });
        yield lines;
        if (page + 1 >= (answer.parametros?.paginacao?.quantidadeDePaginas ?? 0)) return;
      }
    },
    digest: () => hash.digest('hex'),
  };
}

/** A PIX received, and each of its devoluções the PSP settled, as lines (numbered by the caller). */
function linesOf(pix: Pix): Omit<SettlementLine, 'line'>[] {
  const token = pix.txid ? paymentTokenOfTxid(pix.txid) : null;
  const base = {
    merchantAccount: '',
    pspReference: pix.endToEndId,
    merchantReference: pix.txid ?? '',
    zoneOffsetHours: -3,
    grossCurrency: 'BRL',
    netCurrency: 'BRL',
    feeMinor: 0n,
    batchNumber: null,
  };
  const received = amountOf(pix.valor, `PIX ${pix.endToEndId}`);
  const lines: Omit<SettlementLine, 'line'>[] = [
    {
      ...base,
      type: 'Settled',
      creationDate: dateOf(pix.horario, `PIX ${pix.endToEndId}`),
      modificationReference: pix.endToEndId,
      modificationMerchantReference: token ? `${token}:charge` : '',
      grossMinor: received,
      netMinor: received,
    },
  ];
  for (const devolucao of pix.devolucoes ?? []) {
    if (devolucao.status !== 'DEVOLVIDO') continue;
    const refundId = DEVOLUCAO_OF_REFUND.exec(devolucao.id)?.[1];
    const amount = amountOf(devolucao.valor, `devolução ${devolucao.id} of ${pix.endToEndId}`);
    lines.push({
      ...base,
      type: 'Refunded',
      creationDate: dateOf(devolucao.horario.liquidacao ?? devolucao.horario.solicitacao ?? pix.horario, `devolução ${devolucao.id}`),
      modificationReference: devolucao.rtrId,
      modificationMerchantReference: token && refundId ? `${token}:refund:${refundId}` : devolucao.id,
      grossMinor: -amount,
      netMinor: -amount,
    });
  }
  return lines;
}

function amountOf(valor: string, what: string): bigint {
  const parsed = parseAmount(valor, 2);
  if (!parsed.ok) throw new ApiError('EXTERNAL_API', `The PSP listed ${what} with the amount ${JSON.stringify(valor)}, which is not one.`);
  return parsed.minor;
}

function dateOf(text: string | undefined, what: string): Date {
  const date = new Date(text ?? '');
  if (Number.isNaN(date.getTime())) throw new ApiError('EXTERNAL_API', `The PSP listed ${what} with the time ${JSON.stringify(text)}, which is not one.`);
  return date;
}
