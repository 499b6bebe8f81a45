import { createHash, randomUUID } from 'node:crypto';
import { merchantNow } from '../clock/merchant-clock';
import { RETURN_MOVEMENTS, translateRejection } from '../connectors/boleto/boleto-codes';
import type { BoletoBankConnector } from '../connectors/boleto/boleto-connector';
import { CnabFileError } from '../connectors/boleto/cnab240';
import { parseRetorno, type ReturnOccurrence } from '../connectors/boleto/retorno';
import { recordOutcome } from '../connectors/operations';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import type { BoletoFindingsTable, BoletoRegistrationsTable } from '../db/tables/boleto-bank';
import { changeStatus, lockPayment } from '../payments/payment-record';
import { declined, failed } from '../processor/outcome-codes';
import { startOfBrasiliaDay } from './boleto-term';
import { lockCheckout } from './checkout-record';
import { syncCheckout } from './sync-checkout';

/**
 * Retornos: the bank's return files, dropped by the operator's sync into the inbox, imported by the
 * files pass (boleto-bank.ts). Each file is imported once: a content already imported (by SHA-256) or a
 * sequence number already imported from another content changes nothing. A file that is not the
 * layout's is refused whole: only the refusal is stored (the line and field at fault), nothing of it is
 * applied. A file read whole is stored and applied in one transaction, each occurrence (a pair of
 * segments T and U) once by its key, whatever order the bank's files arrive in:
 * - registered (02): the registration is REGISTERED; the payment waits for its payer;
 * - rejected (03): the registration is REJECTED and the payment ERROR with the bank's reason translated
 *   (boleto-codes.ts); "already registered" (63) counts as registered;
 * - paid (06, 17): the registration is PAID with the amount, dates and tariff; a payment still waiting
 *   becomes PROCESSING and compensates on the credit date (sync-checkout.ts); a boleto already paid,
 *   or whose payment closed (paid by PIX, canceled, lapsed), moves no money: a finding for the operator;
 * - written off (09, 25): the registration is WRITTEN_OFF and a payment still waiting CANCELED;
 * - any other movement is kept in the file; one Colibri does not know, or for a boleto it does not
 *   know, is a finding too.
 * The moved files go to the inbox's `processed/` folder.
 */

/** A boleto's reference in the connector's books. */
export function boletoReference(paymentToken: string): string {
  return `${paymentToken}:boleto`;
}

export function sha256(content: string): string {
  return createHash('sha256').update(content, 'latin1').digest('hex');
}

type Registration = Pick<BoletoRegistrationsTable, 'merchant_id' | 'payment_token' | 'connector' | 'nosso_numero' | 'status' | 'amount_minor'>;

export async function importRetornos(ctx: AppContext, bank: BoletoBankConnector): Promise<{ imported: number; refused: number }> {
  let imported = 0;
  let refused = 0;
  for (const file of bank.listInbox()) {
    const result = await importRetorno(ctx, bank, file.name, file.content);
    if (result.status === 'PROCESSED') imported += 1;
    if (result.status === 'REFUSED') refused += 1;
    bank.archiveInbox(file.name);
  }
  if (imported > 0) ctx.workerSignal.poke();
  return { imported, refused };
}

export type ImportResult =
  | { status: 'PROCESSED'; fileId: string; applied: number }
  | { status: 'ALREADY_IMPORTED'; fileId: string }
  | { status: 'REFUSED'; fileId: string; line: number; field: string; reason: string };

/**
 * One retorno, whole or not at all.
 * @example await importRetorno(ctx, bank, 'CBR6430211.ret', content) // { status: 'PROCESSED', … }
 */
export async function importRetorno(ctx: AppContext, bank: BoletoBankConnector, name: string, content: string): Promise<ImportResult> {
  const bankCode = bank.settings.beneficiary.bankCode;
  const hash = sha256(content);
  const seen = await ctx.db.selectFrom('boleto_bank_files').select(['id', 'status', 'refusal']).where('direction', '=', 'RETORNO').where('content_sha256', '=', hash).executeTakeFirst();
  if (seen) return { status: 'ALREADY_IMPORTED', fileId: seen.id };
  const lines = content.replace(/(\r?\n)+$/, '').split(/\r?\n/).length;
  let refusal: CnabFileError | null = null;
  let retorno;
  try {
    retorno = parseRetorno(content, bankCode);
  } catch (error) {
    if (!(error instanceof CnabFileError)) throw error;
    refusal = error;
  }
  const agreement = bank.settings.beneficiary.agreement.padStart(9, '0');
  if (retorno && !retorno.agreement.startsWith(agreement)) {
    refusal = new CnabFileError(1, 'file header.agreement (positions 33-52)', `is ${JSON.stringify(retorno.agreement)}; this connector's agreement is ${bank.settings.beneficiary.agreement}`);
  } else if (retorno) {
    const earlier = await ctx.db.selectFrom('boleto_bank_files').select(['name']).where('direction', '=', 'RETORNO').where('bank_code', '=', bankCode).where('sequence', '=', retorno.sequence).where('status', '=', 'PROCESSED').executeTakeFirst();
    if (earlier) refusal = new CnabFileError(1, 'file header.file_sequence (positions 158-163)', `sequence ${retorno.sequence} was already imported from ${earlier.name} with another content`);
  }
  const id = randomUUID();
  if (refusal || !retorno) {
    const reason = refusal!;
    const stored = await ctx.db
      .insertInto('boleto_bank_files')
      .values({ id, direction: 'RETORNO', bank_code: bankCode, sequence: null, name, content, content_sha256: hash, status: 'REFUSED', refusal: JSON.stringify({ line: reason.line, field: reason.field, reason: reason.reason }), lines, processed_at: new Date() })
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .executeTakeFirst();
    return { status: 'REFUSED', fileId: stored?.id ?? id, line: reason.line, field: reason.field, reason: reason.reason };
  }
  const parsed = retorno;
  try {
    const applied = await ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('boleto_bank_files')
        .values({ id, direction: 'RETORNO', bank_code: bankCode, sequence: parsed.sequence, name, content, content_sha256: hash, status: 'PROCESSED', lines, processed_at: new Date() })
        .execute();
      let count = 0;
      for (const occurrence of parsed.occurrences) count += (await applyOccurrence(trx, bankCode, id, occurrence)) ? 1 : 0;
      return count;
    });
    return { status: 'PROCESSED', fileId: id, applied };
  } catch (error) {
    // Another process imported the same file (or sequence) at the same moment.
    if (!/duplicate key|unique/i.test((error as Error).message)) throw error;
    const other = await ctx.db.selectFrom('boleto_bank_files').select('id').where('direction', '=', 'RETORNO').where('content_sha256', '=', hash).executeTakeFirst();
    return { status: 'ALREADY_IMPORTED', fileId: other?.id ?? id };
  }
}

/** Applies one occurrence in the file's transaction; false when it was applied before (a repeated return). */
async function applyOccurrence(trx: Db, bankCode: string, fileId: string, occurrence: ReturnOccurrence): Promise<boolean> {
  const registration = await trx
    .selectFrom('boleto_registrations')
    .select(['merchant_id', 'payment_token', 'connector', 'nosso_numero', 'status', 'amount_minor'])
    .where('bank_code', '=', bankCode)
    .where('nosso_numero', '=', occurrence.nossoNumero)
    .executeTakeFirst();
  const movement = RETURN_MOVEMENTS[occurrence.movement];
  const finding = (kind: BoletoFindingsTable['kind'], detail: string, amountMinor: bigint | null = null) =>
    trx.insertInto('boleto_findings').values({ id: randomUUID(), file_id: fileId, line: occurrence.line, merchant_id: registration?.merchant_id ?? null, payment_token: registration?.payment_token ?? null, nosso_numero: occurrence.nossoNumero, kind, detail, amount_minor: amountMinor }).execute();
  if (!registration) {
    await finding('UNKNOWN_BOLETO', `movement ${occurrence.movement} for nosso número ${occurrence.nossoNumero}, which Colibri did not register`, occurrence.paidMinor || null);
    return true;
  }
  const key = [occurrence.nossoNumero, occurrence.movement, occurrence.occurredOn ?? '', occurrence.paidMinor, occurrence.reasons.join('')].join(':');
  const first = await trx
    .insertInto('boleto_returns')
    .values({ merchant_id: registration.merchant_id, occurrence_key: key, payment_token: registration.payment_token, file_id: fileId, line: occurrence.line, movement: occurrence.movement, outcome: movement?.kind ?? 'UNKNOWN' })
    .onConflict((oc) => oc.doNothing())
    .returning('occurrence_key')
    .executeTakeFirst();
  if (!first) return false;
  if (occurrence.tariffMinor > 0n) {
    await trx.updateTable('boleto_registrations').set((eb) => ({ tariff_minor: eb(eb.fn.coalesce('tariff_minor', eb.val(0n)), '+', occurrence.tariffMinor) })).where('merchant_id', '=', registration.merchant_id).where('payment_token', '=', registration.payment_token).execute();
  }
  if (!movement) {
    await finding('UNKNOWN_MOVEMENT', `movement ${occurrence.movement} is not one Colibri knows (docs/connectors.md, Boleto)`);
    return true;
  }
  const waiting = registration.status === 'PENDING' || registration.status === 'SENT';
  const kind = movement.kind === 'REJECTED' && translateRejection(occurrence.reasons) === null ? 'REGISTERED' : movement.kind;
  if (kind === 'REGISTERED') {
    if (waiting) await setRegistration(trx, registration, { status: 'REGISTERED' });
  } else if (kind === 'REJECTED') {
    if (waiting) {
      const rejection = translateRejection(occurrence.reasons)!;
      await setRegistration(trx, registration, { status: 'REJECTED', result_code: rejection.code, result_description: rejection.description });
      await movePayment(trx, registration, 'ERROR', { error_code: rejection.code, error_description: rejection.description });
      await recordOutcome(trx, { connector: registration.connector, merchantId: registration.merchant_id, reference: boletoReference(registration.payment_token), providerReference: registration.nosso_numero, outcome: failed(rejection.code, rejection.description) });
    }
  } else if (kind === 'PAID') {
    await applyPayment(trx, registration, occurrence, finding);
  } else if (kind === 'WRITTEN_OFF') {
    if (waiting || registration.status === 'REGISTERED') {
      await setRegistration(trx, registration, { status: 'WRITTEN_OFF' });
      await movePayment(trx, registration, 'CANCELED', {});
      await recordOutcome(trx, { connector: registration.connector, merchantId: registration.merchant_id, reference: boletoReference(registration.payment_token), providerReference: registration.nosso_numero, outcome: declined('CANCELED') });
    }
  }
  return true;
}

type Finding = (kind: BoletoFindingsTable['kind'], detail: string, amountMinor?: bigint | null) => Promise<unknown>;

/** A liquidation: money moves once, for a payment still waiting; anything else is the operator's to look at. */
async function applyPayment(trx: Db, registration: Registration, occurrence: ReturnOccurrence, finding: Finding): Promise<void> {
  const paid = `paid ${occurrence.paidMinor} on ${occurrence.occurredOn ?? '?'} (line ${occurrence.line})`;
  if (registration.status === 'PAID') {
    await finding('PAID_TWICE', `the boleto was already paid; this second payment, ${paid}, moved no money: refund the payer from the operator's bank`, occurrence.paidMinor);
    return;
  }
  await setRegistration(trx, registration, { status: 'PAID', paid_minor: occurrence.paidMinor, paid_on: occurrence.occurredOn, credited_on: occurrence.creditedOn });
  if (occurrence.paidMinor !== BigInt(registration.amount_minor)) {
    await finding('AMOUNT_DIFFERS', `${paid}; the boleto was for ${registration.amount_minor}`, occurrence.paidMinor);
  }
  const creditedOn = occurrence.creditedOn ?? occurrence.occurredOn;
  const moved = await movePayment(trx, registration, 'PROCESSING', {}, creditedOn ? startOfBrasiliaDay(creditedOn) : null);
  if (!moved) {
    await finding('PAID_AFTER_CLOSE', `the payment was no longer waiting for its payer when the bank reported it ${paid}: refund the payer from the operator's bank`, occurrence.paidMinor);
    return;
  }
  await recordOutcome(trx, { connector: registration.connector, merchantId: registration.merchant_id, reference: boletoReference(registration.payment_token), providerReference: registration.nosso_numero, outcome: { status: 'APPROVED', processorId: registration.nosso_numero } });
}

async function setRegistration(trx: Db, registration: Registration, patch: Partial<Pick<BoletoRegistrationsTable, 'status' | 'result_code' | 'result_description' | 'paid_minor' | 'paid_on' | 'credited_on'>>): Promise<void> {
  await trx.updateTable('boleto_registrations').set({ ...patch, updated_at: new Date() }).where('merchant_id', '=', registration.merchant_id).where('payment_token', '=', registration.payment_token).execute();
  registration.status = patch.status ?? registration.status;
}

/**
 * Moves a payment still CREATED (session first, then payment, as every checkout writer locks): to
 * PROCESSING with its compensation time (a liquidation), to ERROR through PROCESSING (a rejection), or
 * to CANCELED (a write-off); the session follows. False when the payment was no longer CREATED.
 */
async function movePayment(trx: Db, registration: Registration, to: 'PROCESSING' | 'ERROR' | 'CANCELED', patch: { error_code?: string; error_description?: string }, compensatesAt: Date | null = null): Promise<boolean> {
  const now = await merchantNow(trx, registration.merchant_id);
  const seen = await trx.selectFrom('payments').select('checkout_id').where('payment_token', '=', registration.payment_token).where('merchant_id', '=', registration.merchant_id).executeTakeFirst();
  const session = seen?.checkout_id ? await lockCheckout(trx, seen.checkout_id, registration.merchant_id) : undefined;
  const payment = await lockPayment(trx, registration.merchant_id, registration.payment_token);
  if (!payment || payment.status !== 'CREATED') return false;
  if (to === 'CANCELED') {
    await changeStatus(trx, payment, 'CANCELED', now);
  } else {
    const processing = await changeStatus(trx, payment, 'PROCESSING', now);
    if (to === 'ERROR') await changeStatus(trx, processing, 'ERROR', now, patch);
    else await trx.updateTable('checkout_payment_codes').set({ compensates_at: compensatesAt && compensatesAt > now ? compensatesAt : now }).where('payment_token', '=', payment.payment_token).execute();
  }
  if (session) await syncCheckout(trx, (await lockCheckout(trx, session.checkout_id, registration.merchant_id)) ?? session, now);
  return true;
}
