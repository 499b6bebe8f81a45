import { parseAmount } from '../../lib/money';
import { ownEntry } from '../../lib/own-entry';
import { declined, failed, type OutcomeCode } from '../../processor/outcome-codes';
import type { KnownOutcome, PaidPix, PixCharge, PixReceipt } from '../connector';
import type { DisputeNotice, DisputeReasonCategory } from '../dispute-notices';
import type { CobStatus, Devolucao, DevolucaoNatureza, DevolucaoStatus, Pix } from './pix-api';

/**
 * The API Pix vocabulary translated into Colibri's. These tables are the whole of the translation; they
 * are printed in docs/connectors.md and a test checks the page against them.
 */

/** What each charge status (`CobrancaStatus`) means for the payment that shows the charge. */
export const COB_STATUSES: Readonly<Record<CobStatus, PixCharge['state']>> = {
  ATIVA: 'OPEN',
  CONCLUIDA: 'PAID',
  REMOVIDA_PELO_USUARIO_RECEBEDOR: 'WITHDRAWN',
  REMOVIDA_PELO_PSP: 'WITHDRAWN',
};

/**
 * The state of a charge the PSP answered; OPEN for a status the standard does not list (one named like
 * what every object inherits, `constructor`, included): the charge is read again until it says.
 * @example cobState('CONCLUIDA') // 'PAID'
 */
export function cobState(status: string): PixCharge['state'] {
  return ownEntry(COB_STATUSES, status) ?? 'OPEN';
}

/** What each refund status (`Devolucao.status`) means for the Colibri refund. */
export const DEVOLUCAO_STATUSES: Readonly<Record<DevolucaoStatus, 'PENDING' | 'APPROVED' | OutcomeCode>> = {
  EM_PROCESSAMENTO: 'PENDING',
  DEVOLVIDO: 'APPROVED',
  NAO_REALIZADO: 'REFUND_REJECTED',
};

/**
 * The devoluções the PSP makes on the Banco Central's Mecanismo Especial de Devolução (MED), by
 * `natureza`, and what each is as a dispute (docs/disputes.md, "MED"): a devolução the merchant neither
 * asked for nor can contest through the API, decided when it reaches the receiver (`LOST`). Any other
 * `natureza` (`ORIGINAL`, `RETIRADA`, or none) is an ordinary return.
 */
export const MED_NATUREZAS: Readonly<Record<Extract<DevolucaoNatureza, `MED_${string}`>, { readonly category: DisputeReasonCategory; readonly name: string }>> = {
  MED_OPERACIONAL: { category: 'GENERAL', name: 'MED: returned for an operational failure of a PSP (BE08)' },
  MED_FRAUDE: { category: 'FRAUD', name: 'MED: returned on a founded suspicion of fraud (FR01)' },
  MED_PIX_AUTOMATICO: { category: 'GENERAL', name: 'MED: a Pix Automático payment returned to the payer (REFU)' },
};
export type MedNatureza = keyof typeof MED_NATUREZAS;

/** Whether a devolução's `natureza` is one of the MED's. @example isMed('MED_FRAUDE') // true; isMed(undefined) // false */
export function isMed(natureza: string | undefined): natureza is MedNatureza {
  return natureza !== undefined && Object.hasOwn(MED_NATUREZAS, natureza);
}

/** A refund's reference is `<payment_token>:refund:<refund_id>`; its devolução id at the PSP is derived from it. */
export const REFUND_REFERENCE = /:refund:(\d+)$/;

/** The devolução `id` (letters and digits, at most 35) of a Colibri refund reference. @example devolucaoIdOf('…:refund:42') // 'colibri42' */
export function devolucaoIdOf(reference: string): string | null {
  const refund = REFUND_REFERENCE.exec(reference);
  return refund ? `colibri${refund[1]}` : null;
}

/** A devolução as Colibri reads it from a webhook or a PIX read back (`horario` is required by the standard, but not needed). */
export type DevolucaoSeen = Pick<Devolucao, 'id' | 'rtrId' | 'valor' | 'natureza' | 'descricao' | 'status'> & { readonly horario?: Devolucao['horario'] | undefined };

/**
 * A MED devolução of a paid PIX as the dispute notice it is: the dispute is at the CHARGEBACK stage
 * (the money leaves the merchant), already LOST (the Banco Central decided; the API has no evidence
 * channel), with no deadline, no fee, and the refund it represents (its `rtrId`, the return's id in the
 * SPI, as for every PIX refund). It is named `<endToEndId>/<id>`: a devolução's id is unique per PIX only.
 * Null for any other devolução, and for a MED one not `DEVOLVIDO` (`EM_PROCESSAMENTO`: no money moved
 * yet, and the PSP notifies the final status; `NAO_REALIZADO`: none ever will).
 * @example medNoticeOf(pix, { id: 'MED1', rtrId, valor: '40.00', natureza: 'MED_FRAUDE', status: 'DEVOLVIDO', horario }, now) // kind LOST, reasonCategory FRAUD
 */
export function medNoticeOf(pix: PaidPix, devolucao: DevolucaoSeen, now: Date): DisputeNotice | null {
  const natureza = devolucao.natureza;
  if (!isMed(natureza) || devolucao.status !== 'DEVOLVIDO') return null;
  const amountMinor = minorOf(devolucao.valor);
  if (amountMinor === null || amountMinor <= 0n) return null;
  const stamps = [devolucao.horario?.liquidacao, devolucao.horario?.solicitacao].map((at) => (at ? new Date(at) : null));
  const at = stamps.find((stamp): stamp is Date => stamp !== null && !Number.isNaN(stamp.getTime())) ?? now;
  const reference = `${pix.endToEndId}/${devolucao.id}`;
  return {
    processor: 'pix',
    merchantId: pix.merchantId,
    noticeKey: `${reference}=${devolucao.status}`,
    processorReference: reference,
    paymentToken: pix.paymentToken,
    kind: 'LOST',
    stage: 'CHARGEBACK',
    amountMinor,
    currency: pix.currency,
    reasonCode: natureza,
    reasonCategory: MED_NATUREZAS[natureza].category,
    reasonDescription: devolucao.descricao ?? MED_NATUREZAS[natureza].name,
    evidenceDueBy: null,
    occurredAt: at,
    refund: { id: devolucao.rtrId, at },
  };
}

/**
 * The standard's error types (the last segment of a `Problema`'s `type`) for the operations Colibri
 * calls, and Colibri's code. Refusals of the refund itself end the refund FAILED (DECLINED); the others
 * are the request's or the credentials' fault and end the operation ERROR. An unlisted 4xx is
 * `INVALID_REQUEST` (`CONNECTOR_AUTH` for 401 and 403); a 5xx leaves the outcome unknown, to reconcile.
 */
export const PROBLEM_TYPES: Readonly<Record<string, OutcomeCode>> = {
  RequisicaoInvalida: 'INVALID_REQUEST',
  AcessoNegado: 'CONNECTOR_AUTH',
  NaoEncontrado: 'INVALID_REQUEST',
  PermanentementeRemovido: 'INVALID_REQUEST',
  CobOperacaoInvalida: 'INVALID_REQUEST',
  CobNaoEncontrado: 'INVALID_REQUEST',
  PixNaoEncontrado: 'REFUND_REJECTED',
  PixDevolucaoInvalida: 'REFUND_REJECTED',
  PixDevolucaoNaoEncontrada: 'INVALID_REQUEST',
};

/** Codes that end a refund FAILED as the PSP's refusal (DECLINED) rather than an ERROR. */
const REFUSALS: ReadonlySet<OutcomeCode> = new Set<OutcomeCode>(['REFUND_REJECTED']);

/** The outcome of a request the PSP refused. @example translateProblem(400, 'PixDevolucaoInvalida', 'over the amount') // DECLINED REFUND_REJECTED */
export function translateProblem(statusCode: number, errorName: string, detail: string): ReturnType<typeof declined> | ReturnType<typeof failed> {
  const code = ownEntry(PROBLEM_TYPES, errorName) ?? (statusCode === 401 || statusCode === 403 ? 'CONNECTOR_AUTH' : 'INVALID_REQUEST');
  return REFUSALS.has(code) ? declined(code) : failed(code, `${errorName} ${detail}`.trim());
}

/** The outcome of a refund as the PSP reports it; `processorId` is the return's id (`rtrId`). */
export function translateDevolucao(devolucao: Pick<Devolucao, 'status' | 'rtrId'>): KnownOutcome {
  const mapped = ownEntry(DEVOLUCAO_STATUSES, devolucao.status) ?? 'UNEXPECTED_RESULT';
  if (mapped === 'PENDING') return { status: 'PENDING', processorId: devolucao.rtrId };
  if (mapped === 'APPROVED') return { status: 'APPROVED', processorId: devolucao.rtrId };
  return REFUSALS.has(mapped) ? declined(mapped) : failed(mapped);
}

/** An amount of the standard (`"10.00"`) in minor units, or null when it is not one. */
export function minorOf(valor: string): bigint | null {
  if (!/^\d{1,10}\.\d{2}$/.test(valor)) return null;
  const parsed = parseAmount(valor, 2);
  return parsed.ok ? parsed.minor : null;
}

/** A received PIX in Colibri's words; null when its fields are not the standard's. */
export function receiptOf(pix: Pick<Pix, 'endToEndId' | 'valor' | 'horario'>): PixReceipt | null {
  const amountMinor = minorOf(pix.valor);
  const receivedAt = new Date(pix.horario);
  if (amountMinor === null || !/^[a-zA-Z0-9]{32}$/.test(pix.endToEndId) || Number.isNaN(receivedAt.getTime())) return null;
  return { endToEndId: pix.endToEndId, amountMinor, receivedAt };
}
