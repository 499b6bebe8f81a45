import { createHash, randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import type { KyselyPlugin } from 'kysely';
import { expect, it } from 'vitest';
import { EVIDENCE_FILE_MAX_BYTES, EVIDENCE_TEXT_FIELDS, EVIDENCE_TEXT_MAX } from '../src/disputes/evidence-fields';
import { addEvidenceFile, EVIDENCE_CHUNK_BYTES, type UploadPart } from '../src/disputes/evidence-files';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';
import { settledCardPayment } from './fixtures';

const MB = 1024 * 1024;

/** A one-page PDF that says `text`, with a correct cross-reference table. */
function tinyPdf(text = 'Receipt 42'): Buffer {
  const stream = `BT /F1 12 Tf 20 50 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(pdf.length);
    pdf += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

/** A 1×1 RGB PNG (signature, IHDR, IDAT, IEND with their CRCs). */
function tinyPng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const frame = Buffer.alloc(8 + typed.length);
    frame.writeUInt32BE(data.length, 0);
    typed.copy(frame, 4);
    frame.writeUInt32BE(crc32(typed), 4 + typed.length);
    return frame;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.from([0, 0x2e, 0x8b, 0x57]))), chunk('IEND', Buffer.alloc(0))]);
}

/** An 8×8 grey baseline JPEG: one quantisation table, one-code Huffman tables, one block (DC 0, end of block). */
function tinyJpeg(): Buffer {
  const segment = (marker: number, data: number[]) => [0xff, marker, (data.length + 2) >> 8, (data.length + 2) & 0xff, ...data];
  const oneCodeTable = (tableClass: number) => segment(0xc4, [tableClass << 4, 1, ...Array<number>(15).fill(0), 0x00]);
  return Buffer.from([
    ...[0xff, 0xd8],
    ...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...segment(0xdb, [0, ...Array<number>(64).fill(1)]),
    ...segment(0xc0, [8, 0, 8, 0, 8, 1, 1, 0x11, 0]),
    ...oneCodeTable(0),
    ...oneCodeTable(1),
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]),
    0x3f,
    ...[0xff, 0xd9],
  ]);
}

/** A PDF of exactly `size` bytes: a header, then random bytes, so a misplaced chunk shows. */
function pdfOfSize(size: number): Buffer {
  const head = Buffer.from('%PDF-1.4\n%', 'latin1');
  return Buffer.concat([head, randomBytes(size - head.length)]);
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A dispute of a new merchant's paid payment (the sandbox control). */
async function openDispute(service: TestService, m: TestMerchant): Promise<string> {
  const { token } = await settledCardPayment(service, m, { payment: { amount: '100.00' } });
  const response = await service.post(`/sandbox/payments/${token}/dispute`, {}, { token: m.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.dispute_id;
}

interface FilePart {
  readonly bytes: Uint8Array;
  readonly name: string;
  readonly type: string;
}

/** POSTs a multipart form whose parts are given in order: strings are fields, FileParts are files. */
function upload(service: TestService, m: TestMerchant, disputeId: string, parts: [string, string | FilePart][]) {
  const form = new FormData();
  for (const [name, value] of parts) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([new Uint8Array(value.bytes)], { type: value.type }), value.name);
  }
  return service.post(`/disputes/${disputeId}/evidence`, undefined, { token: m.token, raw: form });
}

async function download(service: TestService, m: TestMerchant, disputeId: string, fileId: string) {
  const response = await fetch(`${service.baseUrl}/disputes/${disputeId}/evidence/${fileId}`, { headers: { 'x-auth-token': m.token } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** What the merchant has stored: evidence file rows and chunk rows. */
async function stored(service: TestService, m: TestMerchant) {
  const db = service.ctx.db;
  const files = await db.selectFrom('dispute_files').selectAll().where('merchant_id', '=', m.merchant_id).orderBy('created_at').execute();
  const chunks = await db.selectFrom('dispute_file_chunks').select(['file_id', 'n', (eb) => eb.fn<number>('length', ['data']).as('bytes')]).where('merchant_id', '=', m.merchant_id).orderBy('file_id').orderBy('n').execute();
  return { files, chunks };
}

describeEachEngine('dispute evidence files', (service) => {
  it('takes a PDF, a JPEG and a PNG, typed by their content, and gives them back byte for byte', async () => {
    const m = await service().merchant();
    const disputeId = await openDispute(service(), m);
    const pdf = tinyPdf();
    const jpeg = tinyJpeg();
    const png = tinyPng();

    const first = await upload(service(), m, disputeId, [
      ['kind', 'receipt'],
      ['file', { bytes: pdf, name: 'receipt.pdf', type: 'application/pdf' }],
    ]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ dispute_id: disputeId, status: 'NEEDS_RESPONSE' });
    expect(first.body.refresh_token).toEqual(expect.any(String));
    expect(first.body.evidence.files).toEqual([expect.objectContaining({ kind: 'receipt', filename: 'receipt.pdf', content_type: 'application/pdf', size: pdf.length })]);

    // The kind may follow the file; the declared type and the name are not what types it.
    const second = await upload(service(), m, disputeId, [
      ['file', { bytes: jpeg, name: 'delivery photo.pdf', type: 'application/pdf' }],
      ['kind', 'shipping_documentation'],
    ]);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const third = await upload(service(), m, disputeId, [['file', { bytes: png, name: 'chat-ção.bin', type: 'application/octet-stream' }]]);
    expect(third.status, JSON.stringify(third.body)).toBe(200);
    const files = third.body.evidence.files as { file_id: string; kind: string; filename: string; content_type: string; size: number }[];
    expect(files.map((f) => [f.kind, f.filename, f.content_type, f.size])).toEqual([
      ['receipt', 'receipt.pdf', 'application/pdf', pdf.length],
      ['shipping_documentation', 'delivery photo.pdf', 'image/jpeg', jpeg.length],
      ['uncategorized', 'chat-ção.bin', 'image/png', png.length],
    ]);
    expect((await service().get(`/disputes/${disputeId}`, { token: m.token })).body.evidence.files).toEqual(files);

    const rows = (await stored(service(), m)).files;
    for (const [file, bytes] of [
      [files[0]!, pdf],
      [files[1]!, jpeg],
      [files[2]!, png],
    ] as const) {
      const got = await download(service(), m, disputeId, file.file_id);
      expect(got.status).toBe(200);
      expect(got.bytes.equals(bytes), file.filename).toBe(true);
      expect(got.headers.get('content-type')).toBe(file.content_type);
      expect(got.headers.get('content-length')).toBe(String(bytes.length));
      expect(got.headers.get('content-disposition')).toMatch(/^attachment; filename="/);
      expect(rows.find((r) => r.file_id === file.file_id)?.sha256).toBe(sha256(bytes));
    }
    const named = await download(service(), m, disputeId, files[2]!.file_id);
    expect(named.headers.get('content-disposition')).toBe(`attachment; filename="chat-__o.bin"; filename*=UTF-8''chat-%C3%A7%C3%A3o.bin`);
  });

  it('refuses a text file named .pdf and declared application/pdf (415), and stores nothing', async () => {
    const m = await service().merchant();
    const disputeId = await openDispute(service(), m);
    const text = Buffer.from('Order 42 was delivered on 3 March.\n'.repeat(20));
    const refused = await upload(service(), m, disputeId, [['file', { bytes: text, name: 'receipt.pdf', type: 'application/pdf' }]]);
    expect(refused.status).toBe(415);
    expect(refused.body).toMatchObject({ status: 415, path: `/disputes/${disputeId}/evidence` });
    expect(refused.body.errors[0].code).toBe('09.02.0003');
    expect(refused.body.refresh_token).toEqual(expect.any(String));
    expect(await stored(service(), m)).toEqual({ files: [], chunks: [] });
    // A PDF signature further in is no PDF either.
    const late = await upload(service(), m, disputeId, [['file', { bytes: Buffer.concat([Buffer.from(' '), tinyPdf()]), name: 'a.pdf', type: 'application/pdf' }]]);
    expect(late.status).toBe(415);
  });

  it('refuses a file of 5 MB and one byte (413) and stores nothing; 5 MB exactly is taken', async () => {
    const m = await service().merchant();
    const disputeId = await openDispute(service(), m);
    const refused = await upload(service(), m, disputeId, [['file', { bytes: pdfOfSize(EVIDENCE_FILE_MAX_BYTES + 1), name: 'big.pdf', type: 'application/pdf' }]]);
    expect(refused.status).toBe(413);
    expect(refused.body.errors[0].code).toBe('09.02.0004');
    expect(await stored(service(), m)).toEqual({ files: [], chunks: [] });
    const exact = pdfOfSize(EVIDENCE_FILE_MAX_BYTES);
    const taken = await upload(service(), m, disputeId, [['file', { bytes: exact, name: 'exact.pdf', type: 'application/pdf' }]]);
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect((await download(service(), m, disputeId, taken.body.evidence.files[0].file_id)).bytes.equals(exact)).toBe(true);
  });

  it("takes two files of 4.5 MB and refuses a third (10 MB for the dispute's files), storing nothing of it", async () => {
    const m = await service().merchant();
    const disputeId = await openDispute(service(), m);
    const size = 4.5 * MB;
    for (const name of ['one.pdf', 'two.pdf']) {
      const taken = await upload(service(), m, disputeId, [['file', { bytes: pdfOfSize(size), name, type: 'application/pdf' }]]);
      expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    }
    const before = await stored(service(), m);
    expect(before.files).toHaveLength(2);
    expect(before.chunks).toHaveLength(2 * Math.ceil(size / EVIDENCE_CHUNK_BYTES));
    const refused = await upload(service(), m, disputeId, [['file', { bytes: pdfOfSize(size), name: 'three.pdf', type: 'application/pdf' }]]);
    expect(refused.status).toBe(413);
    expect(refused.body.errors[0].code).toBe('09.02.0005');
    expect(await stored(service(), m)).toEqual(before);
    // The service still answers on this connection's successors, and the dispute still takes text.
    const text = await service().post(`/disputes/${disputeId}/evidence`, { uncategorized_text: 'See the two receipts.' }, { token: m.token });
    expect(text.status).toBe(200);
    expect(text.body.evidence.files).toHaveLength(2);
  });

  it('stores a file larger than a chunk in several chunks and reads it back whole', async () => {
    const m = await service().merchant();
    const disputeId = await openDispute(service(), m);
    const bytes = pdfOfSize(MB + 100);
    const taken = await upload(service(), m, disputeId, [['file', { bytes, name: 'scan.pdf', type: 'application/pdf' }]]);
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    const { chunks } = await stored(service(), m);
    expect(chunks.map((c) => [c.n, Number(c.bytes)])).toEqual([
      [0, EVIDENCE_CHUNK_BYTES],
      [1, EVIDENCE_CHUNK_BYTES],
      [2, EVIDENCE_CHUNK_BYTES],
      [3, EVIDENCE_CHUNK_BYTES],
      [4, 100],
    ]);
    const got = await download(service(), m, disputeId, taken.body.evidence.files[0].file_id);
    expect(got.bytes.length).toBe(bytes.length);
    expect(sha256(got.bytes)).toBe(sha256(bytes));
  });

  it('refuses a form without a file, an empty file, an unknown part and an unknown kind, storing nothing', async () => {
    const m = await service().merchant();
    const disputeId = await openDispute(service(), m);
    const pdf = { bytes: tinyPdf(), name: 'r.pdf', type: 'application/pdf' };
    const cases: [string, [string, string | FilePart][], number, string][] = [
      ['no file part', [['kind', 'receipt']], 400, '09.02.0006'],
      ['an empty file', [['file', { bytes: new Uint8Array(0), name: 'empty.pdf', type: 'application/pdf' }]], 400, '09.02.0006'],
      ['file as a text field', [['file', '%PDF-1.4 not a file']], 400, '09.02.0006'],
      ['the file under another name', [['document', pdf]], 400, '00.01.0008'],
      ['an unknown kind', [['kind', 'invoice'], ['file', pdf]], 400, '00.01.0005'],
      ['a kind after the file that is unknown', [['file', pdf], ['kind', 'invoice']], 400, '00.01.0005'],
    ];
    for (const [what, parts, status, code] of cases) {
      const refused = await upload(service(), m, disputeId, parts);
      expect(refused.status, what).toBe(status);
      expect(refused.body.errors[0].code, what).toBe(code);
    }
    expect(await stored(service(), m)).toEqual({ files: [], chunks: [] });
  });

  it('submits a dispute whose only evidence is a file; files are refused after submitting (409)', async () => {
    const m = await service().merchant();
    const disputeId = await openDispute(service(), m);
    expect((await service().post(`/disputes/${disputeId}/submit`, {}, { token: m.token })).body.errors[0].code).toBe('09.02.0002');
    const pdf = { bytes: tinyPdf(), name: 'r.pdf', type: 'application/pdf' };
    expect((await upload(service(), m, disputeId, [['file', pdf]])).status).toBe(200);
    const submitted = await service().post(`/disputes/${disputeId}/submit`, {}, { token: m.token });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body.status).toBe('UNDER_REVIEW');
    const late = await upload(service(), m, disputeId, [['file', { ...pdf, name: 'late.pdf' }]]);
    expect(late.status).toBe(409);
    expect(late.body.errors[0].code).toBe('09.02.0001');
    expect((await stored(service(), m)).files.map((f) => f.filename)).toEqual(['r.pdf']);
  });

  it("answers another merchant's dispute and file as not found (404), on upload and download", async () => {
    const owner = await service().merchant();
    const other = await service().merchant();
    const disputeId = await openDispute(service(), owner);
    const taken = await upload(service(), owner, disputeId, [['file', { bytes: tinyPng(), name: 'p.png', type: 'image/png' }]]);
    const fileId = taken.body.evidence.files[0].file_id;
    const foreign = await upload(service(), other, disputeId, [['file', { bytes: tinyPdf(), name: 'x.pdf', type: 'application/pdf' }]]);
    expect(foreign.status).toBe(404);
    expect(foreign.body.errors[0].code).toBe('09.01.0001');
    const read = await download(service(), other, disputeId, fileId);
    expect(read.status).toBe(404);
    expect(JSON.parse(read.bytes.toString()).errors[0].code).toBe('09.01.0001');
    expect((await download(service(), owner, disputeId, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await download(service(), owner, disputeId, 'not-an-id')).status).toBe(404);
    expect((await stored(service(), other)).files).toEqual([]);
    expect((await stored(service(), owner)).files).toHaveLength(1);
  });

  it('still takes JSON text fields, each at its longest in one body', async () => {
    const m = await service().merchant();
    const disputeId = await openDispute(service(), m);
    const body = Object.fromEntries(EVIDENCE_TEXT_FIELDS.map((field) => [field, 'é'.repeat(EVIDENCE_TEXT_MAX)]));
    const response = await service().post(`/disputes/${disputeId}/evidence`, body, { token: m.token });
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200);
    expect(response.body.evidence.refund_policy).toHaveLength(EVIDENCE_TEXT_MAX);
  });

  it('writes each chunk as the file arrives, holding at most one chunk, and stops reading at the first piece past 5 MB', async () => {
    const m = await service().merchant();
    const disputeId = await openDispute(service(), m);
    let chunkInserts = 0;
    const counting: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (node.kind === 'InsertQueryNode' && node.into?.table.identifier.name === 'dispute_file_chunks') chunkInserts += 1;
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const ctx = { ...service().ctx, db: service().ctx.db.withPlugin(counting) };
    const piece = 64 * 1024;
    let pulled = 0;
    let held = 0;
    // A client that would send forever: only a reader that stops at the limit ever returns.
    async function* endless(): AsyncGenerator<Uint8Array> {
      for (let i = 0; ; i++) {
        held = Math.max(held, i * piece - chunkInserts * EVIDENCE_CHUNK_BYTES);
        pulled = i + 1;
        yield i === 0 ? pdfOfSize(piece) : randomBytes(piece);
      }
    }
    async function* parts(): AsyncGenerator<UploadPart> {
      yield { type: 'file', fieldname: 'file', filename: 'endless.pdf', file: endless() };
    }
    await expect(addEvidenceFile(ctx, m.merchant_id, disputeId, { parts: parts(), cancel: () => undefined })).rejects.toMatchObject({ status: 413, items: [{ code: '09.02.0004' }] });
    expect(pulled).toBe(EVIDENCE_FILE_MAX_BYTES / piece + 1);
    expect(chunkInserts).toBe(EVIDENCE_FILE_MAX_BYTES / EVIDENCE_CHUNK_BYTES);
    expect(held).toBeLessThan(EVIDENCE_CHUNK_BYTES);
    expect(await stored(service(), m)).toEqual({ files: [], chunks: [] });
  });

  it('cancels an upload that stalls, releasing the dispute and storing nothing', async () => {
    const m = await service().merchant();
    const disputeId = await openDispute(service(), m);
    let cancelled = false;
    let stop: (error: Error) => void = () => undefined;
    async function* file(): AsyncGenerator<Uint8Array> {
      yield pdfOfSize(EVIDENCE_CHUNK_BYTES + 10);
      await new Promise((_resolve, reject) => (stop = reject)); // the client sends nothing more
    }
    async function* parts(): AsyncGenerator<UploadPart> {
      yield { type: 'file', fieldname: 'file', filename: 'slow.pdf', file: file() };
    }
    const cancel = () => {
      cancelled = true;
      stop(new Error('request destroyed'));
    };
    await expect(addEvidenceFile(service().ctx, m.merchant_id, disputeId, { parts: parts(), cancel }, { idleMs: 100, totalMs: 5_000 })).rejects.toThrow(/upload stopped sending/);
    expect(cancelled).toBe(true);
    expect(await stored(service(), m)).toEqual({ files: [], chunks: [] });
    const after = await upload(service(), m, disputeId, [['file', { bytes: tinyPdf(), name: 'r.pdf', type: 'application/pdf' }]]);
    expect(after.status).toBe(200);
  });
});
