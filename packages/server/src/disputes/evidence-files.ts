import type { Db } from '../db/database';

/**
 * A stored evidence file's bytes, its chunks joined in order.
 * @example const pdf = await fileContent(db, merchantId, fileId);
 */
export async function fileContent(db: Db, merchantId: string, fileId: string): Promise<Buffer> {
  const chunks = await db.selectFrom('dispute_file_chunks').select('data').where('merchant_id', '=', merchantId).where('file_id', '=', fileId).orderBy('n').execute();
  return Buffer.concat(chunks.map((c) => Buffer.from(c.data)));
}
