import { randomUUID } from 'node:crypto';
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../../db/database';
import { ownEntry } from '../../lib/own-entry';
import { failed } from '../../processor/outcome-codes';
import type { AuthorizeInput, FollowUpInput, OperationResult, PayoutInput, VerifyCardInput } from '../../processor/processor';
import { barcodeToDigitableLine, buildBarcode } from '../../rails/boleto';
import { validateCnpj } from '../../rails/brazil';
import type { Connector, ConnectorDefinition, ConnectorSettings, DoctorCheck } from '../connector';
import { readOutcome, recordOutcome, settledOrPending } from '../operations';
import { BANKS, layoutFor } from './cnab240-layout';
import { assertLayout } from './cnab240';
import type { Beneficiary } from './remessa';

/** What the connector needs: the beneficiary at the bank and the two folders the operator syncs with it. */
export interface BoletoBankSettings {
  readonly beneficiary: Beneficiary;
  /** Where remessas are written for the bank to collect. */
  readonly outbox: string;
  /** Where the bank's retornos are dropped; each is moved to `processed/` under it once imported. */
  readonly inbox: string;
  readonly sweepMs: number;
  /** Days a boleto's payment stays open after its due date, for the bank's return to arrive. */
  readonly returnGraceDays: number;
}

/** A boleto as the bank will know it. */
export interface BankBoleto {
  readonly nossoNumero: string;
  readonly barcode: string;
  readonly digitableLine: string;
}

/** A file found in the inbox. */
export interface InboxFile {
  readonly name: string;
  readonly content: string;
}

/**
 * Boletos registered with a bank through CNAB 240 files (FEBRABAN's layout; Banco do Brasil's profile):
 * the connector makes each boleto's number, barcode and line in the bank's format, and moves files
 * through the folders; checkout/boleto-bank.ts keeps the registrations, writes remessas and applies
 * retornos. It takes no card, capture, cancel or payout: routing never sends them here. A boleto refund
 * is a transfer to the payer's bank account, which a collection agreement cannot make: it is refused
 * `NOT_SUPPORTED` (docs/connectors.md, "Boleto").
 */
export class BoletoBankConnector implements Connector {
  readonly id = 'cnab';

  constructor(
    readonly settings: BoletoBankSettings,
    private readonly db: Db,
  ) {
    assertLayout(layoutFor(settings.beneficiary.bankCode));
  }

  verifyCard(_input: VerifyCardInput): Promise<OperationResult> {
    return notServed('card verification');
  }

  authorize(_input: AuthorizeInput): Promise<OperationResult> {
    return notServed('card authorisation');
  }

  capture(_input: FollowUpInput): Promise<OperationResult> {
    return notServed('capture (a boleto is paid whole)');
  }

  cancel(_input: FollowUpInput): Promise<OperationResult> {
    return notServed('cancel');
  }

  payout(_input: PayoutInput): Promise<OperationResult> {
    return notServed('payouts');
  }

  async refund(input: FollowUpInput): Promise<OperationResult> {
    const outcome = failed('NOT_SUPPORTED', "a boleto's collection agreement cannot pay money back; refund the payer from the operator's bank (docs/connectors.md, Boleto)");
    return settledOrPending('refund', await recordOutcome(this.db, { connector: this.id, merchantId: input.merchantId, reference: input.reference, providerReference: null, outcome }));
  }

  async status(merchantId: string, reference: string): Promise<OperationResult | null> {
    const known = await readOutcome(this.db, this.id, merchantId, reference);
    return known ? settledOrPending('status', known) : null;
  }

  /**
   * The boleto of a sequence number in Banco do Brasil's format for a 7-digit agreement: nosso número =
   * agreement + the sequence in 10 digits (17 digits, no check digit); free field = six zeros, the
   * nosso número and the wallet.
   * @example connector.boletoOf(42n, '2026-03-10', 15990n).nossoNumero // '12345670000000042'
   */
  boletoOf(sequence: bigint, dueDate: string, amountMinor: bigint): BankBoleto {
    const b = this.settings.beneficiary;
    const nossoNumero = `${b.agreement}${(sequence % 10_000_000_000n).toString().padStart(10, '0')}`;
    const barcode = buildBarcode({ bankCode: b.bankCode, dueDate, amountCents: amountMinor, freeField: `000000${nossoNumero}${b.wallet}` });
    return { nossoNumero, barcode, digitableLine: barcodeToDigitableLine(barcode) };
  }

  /** Writes a remessa into the outbox whole: a temporary name first, renamed once written, so the bank never collects half a file. */
  writeOutbox(name: string, content: string): void {
    const temporary = join(this.settings.outbox, `.${name}.${randomUUID()}.tmp`);
    writeFileSync(temporary, content, { encoding: 'latin1', flag: 'wx' });
    renameSync(temporary, join(this.settings.outbox, name));
  }

  /** The files waiting in the inbox (not hidden, not folders), oldest name first. */
  listInbox(): InboxFile[] {
    const names = readdirSync(this.settings.inbox).filter((name) => !name.startsWith('.')).sort();
    const files: InboxFile[] = [];
    for (const name of names) {
      const path = join(this.settings.inbox, name);
      try {
        if (!statSync(path).isFile()) continue;
        files.push({ name, content: readFileSync(path, 'latin1') });
      } catch (error) {
        // Another process imported and moved it meanwhile.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    return files;
  }

  /** Moves an imported (or refused) file out of the way, into `processed/`; one already moved is left alone. */
  archiveInbox(name: string): void {
    const processed = join(this.settings.inbox, 'processed');
    mkdirSync(processed, { recursive: true });
    try {
      renameSync(join(this.settings.inbox, name), join(processed, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/** Whether a connector registers boletos with a bank. */
export function registersBoletos(connector: Connector | null | undefined): connector is BoletoBankConnector {
  return connector instanceof BoletoBankConnector;
}

function notServed(what: string): Promise<OperationResult> {
  return Promise.reject(new Error(`the cnab connector does not serve ${what}; routing never sends it here`));
}

/** `1234-5` or `12345` with `X` allowed as check digit: the number and its digit. */
function numberWithDigit(raw: string | undefined, env: string, digits: number): [string, string] {
  const match = /^(\d{1,12})-?([0-9Xx])$/.exec((raw ?? '').trim());
  if (!match || match[1]!.length > digits) throw new Error(`${env} must be the number (at most ${digits} digits) and its check digit, like 1234-5, got ${JSON.stringify(raw ?? '')}`);
  return [match[1]!, match[2]!.toUpperCase()];
}

function integerOf(raw: string | undefined, env: string, fallback: number, min: number, max: number): number {
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${env} must be an integer between ${min} and ${max}, got ${raw}`);
  return value;
}

export function parseBoletoSettings(settings: ConnectorSettings): BoletoBankSettings {
  const bankCode = settings.bank_code ?? '';
  // Only the table's own profiles: a bank code such as `constructor` is no bank.
  const bank = ownEntry(BANKS, bankCode);
  if (!bank) throw new Error(`COLIBRI_BOLETO_BANK must be a bank Colibri has a CNAB 240 profile for (${Object.keys(BANKS).join(', ')}), got ${JSON.stringify(bankCode)}`);
  const agreement = (settings.agreement ?? '').trim();
  if (!/^\d{7}$/.test(agreement)) throw new Error(`COLIBRI_BOLETO_AGREEMENT must be the 7-digit agreement (convênio) of ${bank.name}, got ${JSON.stringify(agreement)}`);
  const [agency, agencyDigit] = numberWithDigit(settings.agency, 'COLIBRI_BOLETO_AGENCY', 5);
  const [account, accountDigit] = numberWithDigit(settings.account, 'COLIBRI_BOLETO_ACCOUNT', 12);
  const wallet = /^(\d{2})(?:-(\d{3}))?$/.exec((settings.wallet ?? '').trim());
  if (!wallet) throw new Error(`COLIBRI_BOLETO_WALLET must be the wallet (carteira) and its variation, like 17-019, got ${JSON.stringify(settings.wallet ?? '')}`);
  const document = (settings.company_document ?? '').replace(/[.\-/\s]/g, '');
  if (!/^\d{14}$/.test(document) || !validateCnpj(document).ok) throw new Error('COLIBRI_BOLETO_COMPANY_DOCUMENT must be the beneficiary\'s valid CNPJ (14 digits)');
  return {
    beneficiary: {
      bankCode,
      agreement,
      agency,
      agencyDigit,
      account,
      accountDigit,
      wallet: wallet[1]!,
      walletVariation: wallet[2] ?? '019',
      companyDocument: document,
      companyName: settings.company_name ?? '',
    },
    outbox: settings.outbox ?? '',
    inbox: settings.inbox ?? '',
    sweepMs: integerOf(settings.sweep_ms, 'COLIBRI_BOLETO_SWEEP_MS', 60_000, 100, 3_600_000),
    returnGraceDays: integerOf(settings.return_grace_days, 'COLIBRI_BOLETO_RETURN_GRACE_DAYS', 5, 0, 60),
  };
}

/** A folder Colibri must write in: it exists, is a folder, and a file can be created and removed there. */
function folderCheck(name: string, path: string): DoctorCheck {
  try {
    if (!statSync(path).isDirectory()) return { name, ok: false, detail: `${path} is not a folder` };
    accessSync(path, constants.W_OK | constants.R_OK);
    const probe = join(path, `.colibri-doctor-${randomUUID()}`);
    writeFileSync(probe, '');
    rmSync(probe);
    return { name, ok: true, detail: `${path} exists and is writable` };
  } catch (error) {
    return { name, ok: false, detail: `${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
}

/** `colibri doctor`: the settings parse (bank profile, agreement, agency, account, wallet, CNPJ) and both folders are writable. */
export function checkBoletoBank(raw: ConnectorSettings): Promise<DoctorCheck[]> {
  const settings = parseBoletoSettings(raw);
  const b = settings.beneficiary;
  return Promise.resolve([
    { name: 'cnab: bank profile', ok: true, detail: `${b.bankCode} ${BANKS[b.bankCode]!.name}, agreement ${b.agreement}, agency ${b.agency}-${b.agencyDigit}, account ${b.account}-${b.accountDigit}, wallet ${b.wallet}-${b.walletVariation}` },
    folderCheck('cnab: outbox folder', settings.outbox),
    folderCheck('cnab: inbox folder', settings.inbox),
  ]);
}

const setting = (env: string, key: string, description: string, required = true) => ({ env, key, required, secret: false, instanceOnly: true, description });

export const boletoBankConnector: ConnectorDefinition = {
  id: 'cnab',
  title: 'Boletos registered with a bank through FEBRABAN CNAB 240 files',
  methods: ['BOLETO'],
  sandboxOnly: false,
  settings: [
    setting('COLIBRI_BOLETO_OUTBOX', 'outbox', 'Folder where Colibri writes remessas; the operator syncs it to the bank'),
    setting('COLIBRI_BOLETO_INBOX', 'inbox', "Folder where the bank's retornos are dropped; imported ones move to processed/ under it"),
    setting('COLIBRI_BOLETO_BANK', 'bank_code', "The bank's 3-digit code (001: Banco do Brasil)"),
    setting('COLIBRI_BOLETO_AGREEMENT', 'agreement', 'The collection agreement (convênio), 7 digits'),
    setting('COLIBRI_BOLETO_AGENCY', 'agency', "The beneficiary's agency and its check digit, like 1234-5"),
    setting('COLIBRI_BOLETO_ACCOUNT', 'account', "The beneficiary's account and its check digit, like 12345-6"),
    setting('COLIBRI_BOLETO_WALLET', 'wallet', 'The wallet (carteira) and its variation, like 17-019'),
    setting('COLIBRI_BOLETO_COMPANY_DOCUMENT', 'company_document', "The beneficiary's CNPJ"),
    setting('COLIBRI_BOLETO_COMPANY_NAME', 'company_name', "The beneficiary's name, as the bank has it"),
    setting('COLIBRI_BOLETO_SWEEP_MS', 'sweep_ms', 'How often remessas are written and the inbox read, 100 to 3600000 ms (default 60000)', false),
    setting('COLIBRI_BOLETO_RETURN_GRACE_DAYS', 'return_grace_days', "Days a boleto's payment stays open after its due date for the bank's return to arrive, 0 to 60 (default 5)", false),
  ],
  create: (settings, deps) => new BoletoBankConnector(parseBoletoSettings(settings), deps.db),
  doctor: (settings) => checkBoletoBank(settings),
};
