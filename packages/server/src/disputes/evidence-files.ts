import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { AppContext } from '../context';
import { merchantNow } from '../clock/merchant-clock';
import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { isUuid } from '../lib/identifiers';
import { assertWaiting, disputeView, loadDispute, type DisputeFileRow, type DisputeRow, type DisputeView } from './dispute-record';
import { EVIDENCE_FILE_KINDS, EVIDENCE_FILE_MAX_BYTES, EVIDENCE_TOTAL_MAX_BYTES, type EvidenceFileKind } from './evidence-fields';

/**
 * Evidence files (docs/disputes.md, "Evidence"): uploaded as `multipart/form-data`, checked by their
 * content, and kept in PostgreSQL (`dispute_files`, `dispute_file_chunks`) so that every process of the
 * service serves them and a database backup keeps them.
 *
 * An upload is streamed, never held whole: in one transaction that holds the dispute's row lock, its
 * bytes are counted, hashed and written in chunks as they arrive, and the upload stops at the first
 * byte past a limit. Any failure rolls the transaction back, so a refused or broken upload stores
 * nothing. Holding the lock also makes the 10 MB total exact when two uploads race.
 */

/** The bytes of one `dispute_file_chunks` row; a file's last chunk may be shorter. */
export const EVIDENCE_CHUNK_BYTES = 256 * 1024;

/**
 * How long an upload may go without a byte, and how long it may take in all. The upload holds a
 * database connection and the dispute's lock (on PGlite, the one connection): a client that stalls
 * must not keep them. 5 MB in two minutes is about 350 kbit/s.
 */
export const EVIDENCE_UPLOAD_IDLE_MS = 20_000;
export const EVIDENCE_UPLOAD_TOTAL_MS = 120_000;

export const EVIDENCE_CONTENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png'] as const;
export type EvidenceContentType = (typeof EVIDENCE_CONTENT_TYPES)[number];

/**
 * The signatures that name a file's type, by its first bytes: PDF's header `%PDF-` (ISO 32000-1,
 * 7.5.2), JPEG's start-of-image marker FF D8 followed by the next marker's FF, PNG's eight-byte
 * signature. The check is written here rather than taken from a library: the well-kept one
 * (file-type) recognises some 150 formats through its own tokenizer over a whole stream or buffer,
 * where Colibri accepts three fixed signatures of at most eight bytes, compared before anything is
 * stored; a dependency would add code to audit for one comparison.
 */
const SIGNATURES: readonly { readonly contentType: EvidenceContentType; readonly extension: string; readonly magic: Buffer }[] = [
  { contentType: 'application/pdf', extension: 'pdf', magic: Buffer.from('%PDF-', 'latin1') },
  { contentType: 'image/jpeg', extension: 'jpg', magic: Buffer.from([0xff, 0xd8, 0xff]) },
  { contentType: 'image/png', extension: 'png', magic: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
];
const SIGNATURE_BYTES = Math.max(...SIGNATURES.map((s) => s.magic.length));

/**
 * The type a file's first bytes say it is, or null: never its name or its declared content type.
 * @example detectEvidenceType(Buffer.from('%PDF-1.7\n')) // 'application/pdf'
 */
export function detectEvidenceType(head: Uint8Array): EvidenceContentType | null {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  return SIGNATURES.find((s) => bytes.length >= s.magic.length && bytes.subarray(0, s.magic.length).equals(s.magic))?.contentType ?? null;
}

/** One part of a multipart upload, as @fastify/multipart's `request.parts()` gives it. */
export type UploadPart =
  | { readonly type: 'field'; readonly fieldname: string; readonly value: unknown; readonly valueTruncated?: boolean }
  | { readonly type: 'file'; readonly fieldname: string; readonly filename: string; readonly file: AsyncIterable<Uint8Array> };

export interface EvidenceUpload {
  /** The parts in the order they arrive: the file in a part named `file`, an optional field `kind` before or after it. */
  readonly parts: AsyncIterable<UploadPart>;
  /** Ends the upload at once (the route destroys the request), so a stalled client's parts stop. */
  readonly cancel: () => void;
}

/**
 * Adds one evidence file to a dispute that NEEDS_RESPONSE, streaming it into the database, and
 * answers the dispute. `kind` may come before or after the file: the file's row is completed when the
 * upload ends. Refuses, storing nothing: DISPUTE_FILE_MISSING (no file part, or an empty one),
 * DISPUTE_FILE_TYPE (not a PDF, JPEG or PNG by its first bytes), DISPUTE_FILE_TOO_LARGE (over 5 MB),
 * DISPUTE_EVIDENCE_TOO_LARGE (the dispute's files over 10 MB together).
 * @example const view = await addEvidenceFile(ctx, merchantId, disputeId, { parts: request.parts(), cancel: () => request.raw.destroy() });
 */
export async function addEvidenceFile(
  ctx: AppContext,
  merchantId: string,
  disputeId: string,
  upload: EvidenceUpload,
  timing: { idleMs: number; totalMs: number } = { idleMs: EVIDENCE_UPLOAD_IDLE_MS, totalMs: EVIDENCE_UPLOAD_TOTAL_MS },
): Promise<DisputeView> {
  // Read before the transaction: on PGlite the transaction holds the only connection.
  const now = await merchantNow(ctx.db, merchantId);
  const watch = new StallWatch(upload.cancel, timing);
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const { dispute, files } = await loadDispute(trx, merchantId, disputeId, { forUpdate: true });
      assertWaiting(dispute, 'evidence can be added');
      // Armed once the lock is held: waiting for another upload of the dispute is no stall of this client.
      watch.alive();
      const room = EVIDENCE_TOTAL_MAX_BYTES - files.reduce((sum, f) => sum + Number(f.size_bytes), 0);
      let kind: EvidenceFileKind | undefined;
      let stored: StoredFile | null = null;
      for await (const part of upload.parts) {
        watch.alive();
        if (part.fieldname === 'file' && part.type === 'file') {
          if (stored) throw new ApiError('FIELD_INVALID', 'file: an upload carries one file; send each file in its own request.');
          stored = await storeFile(trx, dispute, part, room, now, watch);
        } else if (part.fieldname === 'kind' && part.type === 'field') {
          if (kind !== undefined) throw new ApiError('FIELD_INVALID', 'kind: is given more than once.');
          kind = kindOf(part);
        } else if (part.fieldname === 'file') {
          throw new ApiError('DISPUTE_FILE_MISSING', 'file: is a text field; send the file itself (curl -F file=@receipt.pdf).');
        } else {
          throw new ApiError('FIELD_INVALID', `${part.fieldname.slice(0, 64)}: is not a part of an evidence upload (file, and optionally kind).`);
        }
      }
      if (!stored) throw new ApiError('DISPUTE_FILE_MISSING');
      await trx
        .updateTable('dispute_files')
        .set({ kind: kind ?? 'uncategorized', size_bytes: BigInt(stored.size), sha256: stored.sha256 })
        .where('file_id', '=', stored.fileId)
        .where('merchant_id', '=', merchantId)
        .execute();
      const updated = await trx.updateTable('disputes').set({ updated_at: now }).where('dispute_id', '=', disputeId).where('merchant_id', '=', merchantId).returningAll().executeTakeFirstOrThrow();
      return disputeView(updated, (await loadDispute(trx, merchantId, disputeId)).files);
    });
  } catch (error) {
    if (watch.stalled) throw new ApiError('MALFORMED_BODY', `file: the upload stopped sending for ${timing.idleMs / 1000} s or took over ${timing.totalMs / 1000} s; nothing was stored.`);
    throw error;
  } finally {
    watch.stop();
  }
}

interface StoredFile {
  readonly fileId: string;
  readonly size: number;
  readonly sha256: string;
}

/**
 * Streams one file part into `dispute_file_chunks`, in chunks of EVIDENCE_CHUNK_BYTES, checking its
 * type by its first bytes and its size as it grows. Its `dispute_files` row is written before its
 * first chunk (the chunks reference it) and completed by the caller once the upload has ended.
 */
async function storeFile(trx: Db, dispute: DisputeRow, part: Extract<UploadPart, { type: 'file' }>, room: number, at: Date, watch: StallWatch): Promise<StoredFile> {
  const fileId = randomUUID();
  const hash = createHash('sha256');
  let contentType: EvidenceContentType | null = null;
  let size = 0;
  let n = 0;
  let chunk = Buffer.allocUnsafe(EVIDENCE_CHUNK_BYTES);
  let filled = 0;

  const write = async (data: Buffer): Promise<void> => {
    if (n === 0) await insertFileRow(trx, dispute, fileId, part.filename, contentType!, at);
    await trx.insertInto('dispute_file_chunks').values({ file_id: fileId, merchant_id: dispute.merchant_id, n, data }).execute();
    n += 1;
  };
  const typeOf = (head: Buffer): EvidenceContentType => {
    const detected = detectEvidenceType(head);
    if (!detected) throw new ApiError('DISPUTE_FILE_TYPE');
    return detected;
  };

  for await (const piece of part.file) {
    watch.alive();
    size += piece.byteLength;
    // Checked as each piece arrives, before it is kept: the upload ends at the first piece past a limit.
    if (size > EVIDENCE_FILE_MAX_BYTES) throw new ApiError('DISPUTE_FILE_TOO_LARGE');
    if (size > room) throw new ApiError('DISPUTE_EVIDENCE_TOO_LARGE');
    hash.update(piece);
    let offset = 0;
    while (offset < piece.byteLength) {
      const taken = Math.min(piece.byteLength - offset, EVIDENCE_CHUNK_BYTES - filled);
      chunk.set(piece.subarray(offset, offset + taken), filled);
      filled += taken;
      offset += taken;
      contentType ??= filled >= SIGNATURE_BYTES ? typeOf(chunk.subarray(0, filled)) : null;
      if (filled === EVIDENCE_CHUNK_BYTES) {
        await write(chunk);
        chunk = Buffer.allocUnsafe(EVIDENCE_CHUNK_BYTES);
        filled = 0;
      }
    }
  }
  if (size === 0) throw new ApiError('DISPUTE_FILE_MISSING', 'file: is empty.');
  contentType ??= typeOf(chunk.subarray(0, filled));
  if (filled > 0) await write(chunk.subarray(0, filled));
  return { fileId, size, sha256: hash.digest('hex') };
}

async function insertFileRow(trx: Db, dispute: DisputeRow, fileId: string, filename: string, contentType: EvidenceContentType, at: Date): Promise<void> {
  await trx
    .insertInto('dispute_files')
    .values({
      file_id: fileId,
      dispute_id: dispute.dispute_id,
      merchant_id: dispute.merchant_id,
      // Completed when the upload ends (addEvidenceFile): the kind may follow the file.
      kind: 'uncategorized',
      filename: cleanFilename(filename, contentType),
      content_type: contentType,
      size_bytes: 0n,
      sha256: '',
      created_at: at,
    })
    .execute();
}

function kindOf(part: Extract<UploadPart, { type: 'field' }>): EvidenceFileKind {
  const value = typeof part.value === 'string' && !part.valueTruncated ? part.value.trim() : '';
  const kind = EVIDENCE_FILE_KINDS.find((k) => k === value);
  if (!kind) throw ApiError.fields([{ key: 'FIELD_NOT_ALLOWED', description: `kind: must be one of ${EVIDENCE_FILE_KINDS.join(', ')}.` }]);
  return kind;
}

/**
 * The name a file is kept and downloaded under: the client's, without control characters, lone
 * surrogates or a path (the multipart parser already keeps only the last segment), at most 200
 * characters; `evidence.<extension of its detected type>` when nothing is left.
 */
function cleanFilename(name: string, contentType: EvidenceContentType): string {
  // By code point: a lone surrogate is one of its own, a pair is one above U+FFFF.
  const kept = [...name].filter((ch) => {
    const code = ch.codePointAt(0)!;
    return code > 0x1f && (code < 0x7f || code > 0x9f) && (code < 0xd800 || code > 0xdfff);
  });
  const cleaned = kept.join('').replace(/^.*[\\/]/, '').trim();
  const fallback = `evidence.${SIGNATURES.find((s) => s.contentType === contentType)!.extension}`;
  return cleaned === '' ? fallback : [...cleaned].slice(0, 200).join('');
}

/** Cancels an upload that sends nothing for `idleMs` or is not over after `totalMs`. */
class StallWatch {
  stalled = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly deadline: number;

  constructor(
    private readonly cancel: () => void,
    private readonly timing: { idleMs: number; totalMs: number },
  ) {
    this.deadline = Date.now() + timing.totalMs;
  }

  /** Something arrived: the idle time starts again (never past the deadline). */
  alive(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.stalled = true;
      this.cancel();
    }, Math.max(0, Math.min(this.timing.idleMs, this.deadline - Date.now())));
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/**
 * One evidence file of one of the merchant's disputes, with its bytes as a stream read chunk by chunk
 * (one chunk in memory at a time), or DISPUTE_NOT_FOUND (another merchant's too).
 * @example const { file, stream } = await openEvidenceFile(ctx.db, merchantId, disputeId, fileId);
 */
export async function openEvidenceFile(db: Db, merchantId: string, disputeId: string, fileId: string): Promise<{ file: DisputeFileRow; stream: Readable }> {
  const file =
    isUuid(disputeId) && isUuid(fileId)
      ? await db.selectFrom('dispute_files').selectAll().where('merchant_id', '=', merchantId).where('dispute_id', '=', disputeId).where('file_id', '=', fileId).executeTakeFirst()
      : undefined;
  if (!file) throw new ApiError('DISPUTE_NOT_FOUND', 'file_id: no evidence file of this dispute of this merchant has this id.');
  return { file, stream: Readable.from(chunksOf(db, merchantId, fileId)) };
}

async function* chunksOf(db: Db, merchantId: string, fileId: string): AsyncGenerator<Buffer> {
  for (let n = 0; ; n++) {
    const row = await db.selectFrom('dispute_file_chunks').select('data').where('merchant_id', '=', merchantId).where('file_id', '=', fileId).where('n', '=', n).executeTakeFirst();
    if (!row) return;
    yield Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength);
  }
}

/**
 * The headers of an evidence file's download, the same for the API and the dashboard: its type as its
 * content showed, its size, an attachment (never shown inline), no type sniffing and no caching.
 * @example return reply.headers(downloadHeaders(file)).send(stream);
 */
export function downloadHeaders(file: DisputeFileRow): Record<string, string> {
  return {
    'content-type': file.content_type,
    'content-length': String(file.size_bytes),
    'content-disposition': attachmentHeader(file.filename),
    'x-content-type-options': 'nosniff',
    'cache-control': 'private, no-store',
  };
}

/**
 * A `Content-Disposition: attachment` header for a stored name: an ASCII `filename` for old clients
 * and the exact name in `filename*` (RFC 6266, RFC 8187).
 * @example attachmentHeader('recibo de março.pdf') // attachment; filename="recibo de mar_o.pdf"; filename*=UTF-8''recibo%20de%20mar%C3%A7o.pdf
 */
export function attachmentHeader(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/**
 * A stored evidence file's bytes, its chunks joined in order.
 * @example const pdf = await fileContent(db, merchantId, fileId);
 */
export async function fileContent(db: Db, merchantId: string, fileId: string): Promise<Buffer> {
  const chunks = await db.selectFrom('dispute_file_chunks').select('data').where('merchant_id', '=', merchantId).where('file_id', '=', fileId).orderBy('n').execute();
  return Buffer.concat(chunks.map((c) => Buffer.from(c.data)));
}
