import type { Db } from '../../db/database';
import type { PaidPix } from '../connector';
import { recordDisputeNotice } from '../dispute-notices';
import { recordOutcome } from '../operations';
import { devolucaoIdOf, isMed, medNoticeOf, translateDevolucao, type DevolucaoSeen } from './pix-codes';

/** What the devoluções of a received PIX said, once recorded. */
export interface DevolucoesRecorded {
  /** References of Colibri's refunds whose devolução reached a final status: their settlement jobs are woken. */
  readonly settled: readonly string[];
  /** MED devoluções kept as dispute notices now (one kept before is not counted again). */
  readonly med: number;
  /** Devoluções Colibri did not ask for and does not read as MED (made at the PSP by hand), and MED ones NAO_REALIZADO: for the log. */
  readonly unread: readonly Pick<DevolucaoSeen, 'id' | 'natureza' | 'status' | 'valor'>[];
}

/**
 * Records, in the caller's transaction, what the devoluções of a PIX Colibri applied to a payment say
 * (the `/pix` webhook's, or the PIX read back by `GET /pix/{e2eid}`). `natureza` is read before the id,
 * so that a devolução the PSP made, whatever id it invented, never settles a refund of Colibri's:
 * - a MED devolução `DEVOLVIDO` is kept as a dispute notice (pix-codes.ts `medNoticeOf`; once per
 *   devolução and status), which the disputes domain applies: a dispute LOST and the refund it is;
 * - a MED devolução still `EM_PROCESSAMENTO` is left for the final status the PSP notifies (and the
 *   next reading finds); one `NAO_REALIZADO` moved no money and is only reported;
 * - Colibri's own devolução (`colibri<refund_id>` of this payment) in a final status settles its
 *   refund's record, unless a settled outcome is on record already (connectors/operations.ts);
 * - any other devolução was made at the PSP by hand: Colibri does not know it as a refund, and reports it.
 * @example const { settled } = await recordDevolucoes(trx, { merchantId, paymentToken, currency: 'BRL', endToEndId }, 'pix', pix.devolucoes ?? [], now);
 */
export async function recordDevolucoes(trx: Db, pix: PaidPix, connectorId: string, devolucoes: readonly DevolucaoSeen[], now: Date): Promise<DevolucoesRecorded> {
  const settled: string[] = [];
  const unread: DevolucoesRecorded['unread'][number][] = [];
  let med = 0;
  for (const devolucao of devolucoes) {
    const { id, natureza, status, valor } = devolucao;
    if (isMed(natureza)) {
      const notice = medNoticeOf(pix, devolucao, now);
      if (notice && (await recordDisputeNotice(trx, notice))) med += 1;
      else if (!notice && status !== 'EM_PROCESSAMENTO') unread.push({ id, natureza, status, valor });
      continue;
    }
    if (status === 'EM_PROCESSAMENTO') continue;
    const refund = /^colibri(\d+)$/.exec(id);
    const reference = refund ? `${pix.paymentToken}:refund:${refund[1]}` : null;
    if (!reference || devolucaoIdOf(reference) !== id) {
      unread.push({ id, natureza, status, valor });
      continue;
    }
    await recordOutcome(trx, { connector: connectorId, merchantId: pix.merchantId, reference, providerReference: `${pix.endToEndId}/${id}`, outcome: translateDevolucao(devolucao) });
    settled.push(reference);
  }
  return { settled, med, unread };
}
