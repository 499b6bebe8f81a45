import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PixPspFake } from './fakes/pix-psp-fake';
import { createTestCa, pemFolder } from './fakes/test-pki';

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


/**
 * A PIX PSP beside the bank, with its mutual-TLS files: live mode offers a multi-method session only with a
 * connector for each method, and the hybrid boleto carries the PSP's charge. `env` configures the PIX connector.
 */
export async function startPixPsp(): Promise<{ psp: PixPspFake; env: Record<string, string>; stop(): Promise<void> }> {
  const pspCa = createTestCa('Test PSP CA');
  const client = pspCa.issue('colibri', 'client');
  const folder = pemFolder();
  const files = { cert: folder.write('client.crt', client.cert), key: folder.write('client.key', client.key), ca: folder.write('psp-ca.crt', pspCa.cert) };
  const psp = await new PixPspFake({ server: pspCa.issue('127.0.0.1', 'server'), clientCa: pspCa.cert }).start();
  return {
    psp,
    env: psp.env(files),
    stop: async () => {
      await psp.stop();
      folder.remove();
    },
  };
}
