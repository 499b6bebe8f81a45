import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the tests of boletos registered with a bank share: the connector's settings, its folders, a payer. */

export function boletoEnv(root: string): Record<string, string> {
  return {
    COLIBRI_BOLETO_OUTBOX: join(root, 'outbox'),
    COLIBRI_BOLETO_INBOX: join(root, 'inbox'),
    COLIBRI_BOLETO_BANK: '001',
    COLIBRI_BOLETO_AGREEMENT: '1234567',
    COLIBRI_BOLETO_AGENCY: '1234-0',
    COLIBRI_BOLETO_ACCOUNT: '56789-5',
    COLIBRI_BOLETO_WALLET: '17-019',
    COLIBRI_BOLETO_COMPANY_DOCUMENT: '12.345.678/0001-95',
    COLIBRI_BOLETO_COMPANY_NAME: 'Colibri Pagamentos',
  };
}

/** A boleto's payer at generation: live mode refuses a bank boleto without one (boleto-payer.test.ts). */
export const PAYER_AT_GENERATION = {
  customer: { id: '529.982.247-25', name: 'Ana Souza' },
  billingAddress: { street: 'Avenida Paulista', number: '1000', district: 'Bela Vista', city: 'São Paulo', regionCode: 'SP', postalCode: '01310-100' },
};

export function newFolders(): string {
  const root = mkdtempSync(join(tmpdir(), 'colibri-cnab-'));
  mkdirSync(join(root, 'outbox'));
  mkdirSync(join(root, 'inbox'));
  return root;
}

