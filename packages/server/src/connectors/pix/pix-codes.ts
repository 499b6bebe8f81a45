import { parseAmount } from '../../lib/money';
import { declined, failed, type OutcomeCode } from '../../processor/outcome-codes';
import type { KnownOutcome, PixCharge, PixReceipt } from '../connector';
import type { CobStatus, Devolucao, DevolucaoStatus, Pix } from './pix-api';

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

/** What each refund status (`Devolucao.status`) means for the Colibri refund. */
export const DEVOLUCAO_STATUSES: Readonly<Record<DevolucaoStatus, 'PENDING' | 'APPROVED' | OutcomeCode>> = {
  EM_PROCESSAMENTO: 'PENDING',
  DEVOLVIDO: 'APPROVED',
  NAO_REALIZADO: 'REFUND_REJECTED',
};

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
  const code = PROBLEM_TYPES[errorName] ?? (statusCode === 401 || statusCode === 403 ? 'CONNECTOR_AUTH' : 'INVALID_REQUEST');
  return REFUSALS.has(code) ? declined(code) : failed(code, `${errorName} ${detail}`.trim());
}

/** The outcome of a refund as the PSP reports it; `processorId` is the return's id (`rtrId`). */
export function translateDevolucao(devolucao: Pick<Devolucao, 'status' | 'rtrId'>): KnownOutcome {
  const mapped = DEVOLUCAO_STATUSES[devolucao.status] ?? 'UNEXPECTED_RESULT';
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
