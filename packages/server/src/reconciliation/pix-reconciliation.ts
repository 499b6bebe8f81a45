import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import type { ImportResult } from './import-report';

/** PIX received, from the PSP's API Pix: placeholder until the PSP's list is read. */
export async function importPixReceipts(_ctx: AppContext, _input: { from: string | undefined; to: string | undefined; importedBy: string | null }): Promise<ImportResult> {
  throw new ApiError('RECONCILIATION_PIX_NOT_CONFIGURED');
}
