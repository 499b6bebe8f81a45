import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { registersBoletos, type BankBoleto, type BoletoBankConnector } from '../connectors/boleto/boleto-connector';
import { buildRemessa, type RemessaEntry } from '../connectors/boleto/remessa';
import { recordOutcome } from '../connectors/operations';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import type { PaymentRow } from '../payments/payment-record';
import { remessaPayer, type BoletoPayer } from './boleto-payer';
import { brasiliaDate } from './boleto-term';
import { boletoReference, importRetornos, sha256 } from './boleto-retornos';

/**
 * Boletos registered with a bank through CNAB 240 files (connectors/boleto/), in Colibri's terms:
 * 1. a boleto attempt's transaction stores the payment CREATED, the boleto in the bank's format and its
 *    registration PENDING (`boleto_registrations`), and opens `<payment_token>:boleto` in the
 *    connector's books;
 * 2. the files pass (sweepBoletoFiles) writes the PENDING registrations, and the write-offs of boletos
 *    whose payment closed otherwise (paid by PIX, canceled, lapsed), into one remessa: stored first
 *    (WRITING), then written into the outbox (WRITTEN); a process that dies between the two writes it
 *    again on the next pass, the same file under the same name;
 * 3. the same pass imports the retornos dropped in the inbox (boleto-retornos.ts).
 */

/** The connector that registers the merchant's boletos with a bank, or null (the sandbox's boletos are registered nowhere). */
export async function boletoBankFor(ctx: Pick<AppContext, 'connectors'>, merchantId: string): Promise<BoletoBankConnector | null> {
  try {
    const connector = await ctx.connectors.connectorFor(merchantId, 'BOLETO');
    return registersBoletos(connector) ? connector : null;
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}

/** How long after its payable time a bank boleto's payment stays open, for the bank's return of a last-day payment to arrive. */
export function bankBoletoExpiry(payableUntil: Date, bank: BoletoBankConnector): Date {
  return new Date(payableUntil.getTime() + bank.settings.returnGraceDays * 86_400_000);
}

/**
 * Step 1, in the attempt's transaction: the boleto in the bank's format, its registration PENDING with
 * its payer (null only in sandbox mode: live mode refuses a bank boleto without one, start-attempt.ts),
 * and its record in the connector's books.
 * @example const boleto = await registerBoleto(trx, bank, payment, 42n, '2026-03-10', 15990n, payer, now);
 */
export async function registerBoleto(trx: Db, bank: BoletoBankConnector, payment: Pick<PaymentRow, 'payment_token' | 'merchant_id'>, sequence: bigint, dueDate: string, chargedMinor: bigint, payer: BoletoPayer | null, now: Date): Promise<BankBoleto> {
  const boleto = bank.boletoOf(sequence, dueDate, chargedMinor);
  const written = payer ? remessaPayer(payer) : null;
  await trx
    .insertInto('boleto_registrations')
    .values({
      merchant_id: payment.merchant_id,
      payment_token: payment.payment_token,
      connector: bank.id,
      bank_code: bank.settings.beneficiary.bankCode,
      nosso_numero: boleto.nossoNumero,
      amount_minor: chargedMinor,
      due_date: dueDate,
      issued_on: brasiliaDate(now),
      status: 'PENDING',
      write_off: null,
      payer_tax_id_type: payer?.taxIdType ?? null,
      payer_tax_id: payer?.taxId ?? null,
      payer_name: payer?.name ?? null,
      payer_address: written?.address ?? null,
      payer_district: payer?.district ?? null,
      payer_city: payer?.city ?? null,
      payer_state: payer?.state ?? null,
      payer_postal_code: payer?.postalCode ?? null,
    })
    .execute();
  await recordOutcome(trx, { connector: bank.id, merchantId: payment.merchant_id, reference: boletoReference(payment.payment_token), providerReference: boleto.nossoNumero, outcome: { status: 'PENDING', processorId: boleto.nossoNumero } });
  return boleto;
}

/** Registrations and write-offs put in one remessa at most; the rest wait for the next pass. */
const REMESSA_LIMIT = 1000;
const lastPass = new WeakMap<AppContext, number>();

/**
 * Steps 2 and 3, run periodically by every worker process (each COLIBRI_BOLETO_SWEEP_MS at most unless
 * `force`): remessas stored but not yet in the outbox are written, a new remessa is written when
 * anything waits, and the inbox is imported. Returns what it did.
 * @example const { remessa, imported } = await sweepBoletoFiles(ctx, { force: true });
 */
export async function sweepBoletoFiles(ctx: AppContext, options: { force?: boolean } = {}): Promise<{ remessa: string | null; imported: number; refused: number }> {
  const bank = ctx.connectors.instanceConnectors().find(registersBoletos);
  if (!bank) return { remessa: null, imported: 0, refused: 0 };
  const last = lastPass.get(ctx) ?? 0;
  if (!options.force && Date.now() - last < bank.settings.sweepMs) return { remessa: null, imported: 0, refused: 0 };
  lastPass.set(ctx, Date.now());
  await flushWriting(ctx.db, bank);
  const remessa = await writeRemessa(ctx, bank);
  const { imported, refused } = await importRetornos(ctx, bank);
  return { remessa, imported, refused };
}

/** Remessas stored but not yet written into the outbox (a process died between the two): written now. */
async function flushWriting(db: Db, bank: BoletoBankConnector): Promise<void> {
  const pending = await db.selectFrom('boleto_bank_files').select(['id', 'name', 'content']).where('status', '=', 'WRITING').where('direction', '=', 'REMESSA').orderBy('created_at').execute();
  for (const file of pending) {
    bank.writeOutbox(file.name, file.content);
    await db.updateTable('boleto_bank_files').set({ status: 'WRITTEN' }).where('id', '=', file.id).where('status', '=', 'WRITING').execute();
  }
}

/**
 * A new remessa, if anything waits: boletos to register, and write-offs of registered boletos whose
 * payment closed without the bank (paid by PIX, canceled, lapsed). Its sequence is one more than the
 * bank's last remessa; two processes writing at once collide on it and one gives way.
 */
async function writeRemessa(ctx: AppContext, bank: BoletoBankConnector): Promise<string | null> {
  const b = bank.settings.beneficiary;
  // A boleto whose payment closed before its registration was sent is never sent; registered ones
  // whose payment closed otherwise are to be written off.
  await sql`
    update boleto_registrations as r set status = 'WRITTEN_OFF', updated_at = now()
    from payments as p
    where p.payment_token = r.payment_token and p.merchant_id = r.merchant_id
      and r.status = 'PENDING' and r.bank_code = ${b.bankCode} and p.status <> 'CREATED'`.execute(ctx.db);
  await sql`
    update boleto_registrations as r set write_off = 'PENDING', updated_at = now()
    from payments as p
    where p.payment_token = r.payment_token and p.merchant_id = r.merchant_id
      and r.write_off is null and r.status in ('SENT', 'REGISTERED') and r.bank_code = ${b.bankCode}
      and p.status not in ('CREATED', 'PROCESSING')`.execute(ctx.db);
  try {
    const written = await ctx.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ merchant_id: string; payment_token: string; nosso_numero: string; amount_minor: string; due_date: string; issued_on: string; status: string; write_off: string | null; merchant_name: string } & PayerColumns>`
        select r.merchant_id, r.payment_token, r.nosso_numero, r.amount_minor, r.due_date::text as due_date, r.issued_on::text as issued_on, r.status, r.write_off, m.name as merchant_name,
          r.payer_tax_id_type, r.payer_tax_id, r.payer_name, r.payer_address, r.payer_district, r.payer_city, r.payer_state, r.payer_postal_code
        from boleto_registrations as r join merchants as m on m.id = r.merchant_id
        where (r.status = 'PENDING' or r.write_off = 'PENDING') and r.bank_code = ${b.bankCode}
        order by r.created_at
        limit ${REMESSA_LIMIT}
        for update of r skip locked`.execute(trx);
      if (rows.length === 0) return null;
      const last = await trx.selectFrom('boleto_bank_files').select(sql<number>`coalesce(max(sequence), 0)`.as('n')).where('direction', '=', 'REMESSA').where('bank_code', '=', b.bankCode).executeTakeFirstOrThrow();
      const sequence = Number(last.n) + 1;
      const now = new Date();
      const entries: RemessaEntry[] = rows.map((row) => ({
        movement: row.status === 'PENDING' ? 'REGISTER' : 'WRITE_OFF',
        nossoNumero: row.nosso_numero,
        documentNumber: row.nosso_numero.slice(-10),
        dueDate: row.due_date,
        amountMinor: BigInt(row.amount_minor),
        issuedOn: row.issued_on,
        companyReference: row.payment_token.replace(/-/g, '').slice(0, 25),
        merchantName: row.merchant_name,
        payer: payerOfRow(row),
      }));
      const remessa = buildRemessa({ beneficiary: b, sequence, generatedOn: brasiliaDate(now), generatedAt: brasiliaTime(now), entries });
      const id = randomUUID();
      const name = `colibri-${b.bankCode}-remessa-${String(sequence).padStart(6, '0')}.rem`;
      await trx
        .insertInto('boleto_bank_files')
        .values({ id, direction: 'REMESSA', bank_code: b.bankCode, sequence, name, content: remessa.content, content_sha256: sha256(remessa.content), status: 'WRITING', lines: remessa.lines })
        .execute();
      const registering = rows.filter((row) => row.status === 'PENDING').map((row) => row.payment_token);
      const writingOff = rows.filter((row) => row.status !== 'PENDING').map((row) => row.payment_token);
      if (registering.length > 0) {
        await trx.updateTable('boleto_registrations').set({ status: 'SENT', remessa_id: id, updated_at: now }).where('payment_token', 'in', registering).where('status', '=', 'PENDING').execute();
      }
      if (writingOff.length > 0) {
        await trx.updateTable('boleto_registrations').set({ write_off: 'SENT', write_off_remessa_id: id, updated_at: now }).where('payment_token', 'in', writingOff).where('write_off', '=', 'PENDING').execute();
      }
      return { id, name, content: remessa.content };
    });
    if (!written) return null;
    bank.writeOutbox(written.name, written.content);
    await ctx.db.updateTable('boleto_bank_files').set({ status: 'WRITTEN' }).where('id', '=', written.id).where('status', '=', 'WRITING').execute();
    return written.name;
  } catch (error) {
    // Another process took this sequence number first: its remessa carries these boletos, or the next pass will.
    if (/boleto_bank_files_sequence_idx|duplicate key|unique/i.test((error as Error).message)) return null;
    throw error;
  }
}

type PayerColumns = { payer_tax_id_type: 'CPF' | 'CNPJ' | null; payer_tax_id: string | null; payer_name: string | null; payer_address: string | null; payer_district: string | null; payer_city: string | null; payer_state: string | null; payer_postal_code: string | null };

/** The payer a registration was stored with, as segment Q writes it; undefined for none (inscription type 0). */
function payerOfRow(row: PayerColumns): RemessaEntry['payer'] {
  if (!row.payer_tax_id_type || !row.payer_tax_id || !row.payer_postal_code) return undefined;
  return {
    documentType: row.payer_tax_id_type === 'CPF' ? '1' : '2',
    document: row.payer_tax_id,
    name: row.payer_name ?? '',
    address: row.payer_address ?? '',
    district: row.payer_district ?? '',
    postalCode: row.payer_postal_code,
    city: row.payer_city ?? '',
    state: row.payer_state ?? '',
  };
}

/** HHMMSS in Brasília (UTC−3 all year). */
function brasiliaTime(at: Date): string {
  return new Date(at.getTime() - 3 * 3_600_000).toISOString().slice(11, 19).replace(/:/g, '');
}
