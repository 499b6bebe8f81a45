import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A local fake of a bank's collection service over FEBRABAN CNAB 240 files, for tests only. It reads
 * the remessas Colibri writes into the outbox with a reader of its own (positions written out here from
 * FEBRABAN's layout and Banco do Brasil's manual, not Colibri's tables), refusing a file that breaks the
 * layout as a bank's validator would (the test asserts `problems` empty), and keeps the boletos it
 * registered. It writes retornos into the inbox: registration (02), rejection (03 with reasons),
 * payment (06, or 17 after a write-off) with amount, dates and tariff, write-off (09), in any order,
 * any number of times, and can drop the same file twice.
 *
 * Configured `strict`, it checks each registration's payer in segment Q as banks have since 2017 and
 * answers a boleto without one rejected (03) with FEBRABAN's reasons: 45 no name, 46 inscription type
 * or CPF/CNPJ invalid (check digits verified here), 47 no address, 48 CEP invalid. Lenient (the
 * default), it registers boletos without a payer, as a sandbox bank may.
 */

export interface FakeTitle {
  nossoNumero: string;
  documentNumber: string;
  companyReference: string;
  dueDate: string;
  amountMinor: bigint;
  issuedOn: string;
  guarantorName: string;
  writeOffRequested: boolean;
  /** Segment Q's payer as the bank read it (positions 18-153). */
  payer: FakePayer;
  /** Reasons a strict bank rejects the registration for; empty when it accepts it. */
  rejectedFor: string[];
}

export interface FakePayer {
  documentType: string;
  document: string;
  name: string;
  address: string;
  district: string;
  postalCode: string;
  city: string;
  state: string;
}

export interface FakeOccurrence {
  movement: string;
  nossoNumero: string;
  reasons?: string[];
  paidMinor?: bigint;
  tariffMinor?: bigint;
  /** YYYY-MM-DD */
  occurredOn?: string;
  creditedOn?: string;
}

export interface FakeRemessa {
  name: string;
  sequence: number;
  lines: string[];
  registered: string[];
  writeOffs: string[];
}

const n = (value: bigint | number | string, length: number) => String(value).padStart(length, '0');
const a = (value: string, length: number) => value.slice(0, length).padEnd(length, ' ');
const ddmmyyyy = (iso: string | undefined) => (iso ? `${iso.slice(8, 10)}${iso.slice(5, 7)}${iso.slice(0, 4)}` : '00000000');
const iso = (ddmmaaaa: string) => `${ddmmaaaa.slice(4, 8)}-${ddmmaaaa.slice(2, 4)}-${ddmmaaaa.slice(0, 2)}`;
/** 1-based inclusive positions, as the manuals print them. */
const at = (line: string, from: number, to: number) => line.slice(from - 1, to);

export class CnabBankFake {
  readonly titles = new Map<string, FakeTitle>();
  readonly remessas: FakeRemessa[] = [];
  /** What the fake's validator found wrong in a remessa; a test asserts it empty. */
  readonly problems: string[] = [];
  private collected = new Set<string>();
  private returnSequence = 0;

  constructor(
    readonly outbox: string,
    readonly inbox: string,
    readonly bank = { code: '001', agreement: '1234567', agency: '01234', account: '000000056789' },
    readonly options: { strict?: boolean } = {},
  ) {}

  /** Reads the remessas not yet collected from the outbox, as the bank's transfer system would. */
  collect(): FakeRemessa[] {
    const found: FakeRemessa[] = [];
    for (const name of readdirSync(this.outbox).sort()) {
      if (name.startsWith('.') || this.collected.has(name)) continue;
      this.collected.add(name);
      const remessa = this.readRemessa(name, readFileSync(join(this.outbox, name), 'latin1'));
      if (remessa) found.push(remessa);
    }
    this.remessas.push(...found);
    return found;
  }

  private problem(name: string, line: number, text: string): null {
    this.problems.push(`${name} line ${line}: ${text}`);
    return null;
  }

  private readRemessa(name: string, content: string): FakeRemessa | null {
    if (!content.endsWith('\r\n')) return this.problem(name, 0, 'lines must end with CR LF');
    const lines = content.slice(0, -2).split('\r\n');
    for (const [i, line] of lines.entries()) {
      if (line.length !== 240) return this.problem(name, i + 1, `${line.length} characters`);
      if (at(line, 1, 3) !== this.bank.code) return this.problem(name, i + 1, `bank ${at(line, 1, 3)}`);
    }
    const header = lines[0]!;
    if (at(header, 4, 8) !== '00000') return this.problem(name, 1, 'not a file header');
    if (at(header, 143, 143) !== '1') return this.problem(name, 1, 'not a remessa (143 must be 1)');
    if (at(header, 164, 166) !== '083') return this.problem(name, 1, `file layout ${at(header, 164, 166)}, Banco do Brasil reads 083`);
    const agreement = `${n(this.bank.agreement, 9)}0014`;
    if (at(header, 33, 45) !== agreement) return this.problem(name, 1, `agreement ${at(header, 33, 52)}`);
    if (at(header, 53, 57) !== this.bank.agency || at(header, 59, 70) !== this.bank.account) return this.problem(name, 1, 'agency or account');
    const sequence = Number(at(header, 158, 163));
    const batch = lines[1]!;
    if (at(batch, 8, 8) !== '1' || at(batch, 9, 9) !== 'R' || at(batch, 10, 11) !== '01' || at(batch, 14, 16) !== '042') return this.problem(name, 2, 'batch header of a collection remessa, layout 042');
    if (Number(at(batch, 184, 191)) !== sequence) return this.problem(name, 2, 'batch sequence differs from the file header');
    const lot = at(batch, 4, 7);
    let i = 2;
    let record = 0;
    let count = 0;
    let total = 0n;
    const registered: string[] = [];
    const writeOffs: string[] = [];
    while (at(lines[i] ?? '', 8, 8) === '3') {
      const p = lines[i]!;
      if (at(p, 14, 14) !== 'P' || at(p, 4, 7) !== lot || Number(at(p, 9, 13)) !== ++record) return this.problem(name, i + 1, 'expected segment P, numbered in order');
      const nossoNumero = at(p, 38, 57).trim();
      if (!nossoNumero.startsWith(this.bank.agreement) || nossoNumero.length !== 17) return this.problem(name, i + 1, `nosso número ${nossoNumero}`);
      if (!/^\d{15}$/.test(at(p, 86, 100)) || at(p, 228, 229) !== '09') return this.problem(name, i + 1, 'amount or currency');
      const movement = at(p, 16, 17);
      if (movement === '02') {
        const title = this.titles.get(nossoNumero);
        if (title) title.writeOffRequested = true;
        writeOffs.push(nossoNumero);
        i += 1;
        continue;
      }
      if (movement !== '01') return this.problem(name, i + 1, `movement ${movement}`);
      const q = lines[i + 1] ?? '';
      const r = lines[i + 2] ?? '';
      if (at(q, 14, 14) !== 'Q' || Number(at(q, 9, 13)) !== ++record || at(q, 16, 17) !== '01') return this.problem(name, i + 2, 'expected segment Q');
      if (at(r, 14, 14) !== 'R' || Number(at(r, 9, 13)) !== ++record || at(r, 16, 17) !== '01') return this.problem(name, i + 3, 'expected segment R');
      const amountMinor = BigInt(at(p, 86, 100));
      const payer: FakePayer = {
        documentType: at(q, 18, 18),
        document: at(q, 19, 33),
        name: at(q, 34, 73).trim(),
        address: at(q, 74, 113).trim(),
        district: at(q, 114, 128).trim(),
        postalCode: `${at(q, 129, 133)}${at(q, 134, 136)}`,
        city: at(q, 137, 151).trim(),
        state: at(q, 152, 153).trim(),
      };
      count += 1;
      total += amountMinor;
      this.titles.set(nossoNumero, {
        nossoNumero,
        documentNumber: at(p, 63, 77).trim(),
        companyReference: at(p, 196, 220).trim(),
        dueDate: iso(at(p, 78, 85)),
        amountMinor,
        issuedOn: iso(at(p, 110, 117)),
        guarantorName: at(q, 170, 209).trim(),
        writeOffRequested: false,
        payer,
        rejectedFor: this.options.strict ? payerReasons(payer) : [],
      });
      registered.push(nossoNumero);
      i += 3;
    }
    const trailer = lines[i] ?? '';
    if (at(trailer, 8, 8) !== '5' || Number(at(trailer, 18, 23)) !== record + 2) return this.problem(name, i + 1, `batch trailer counts ${at(trailer, 18, 23)}, the batch has ${record + 2}`);
    if (Number(at(trailer, 24, 29)) !== count || BigInt(at(trailer, 30, 46)) !== total) return this.problem(name, i + 1, 'batch trailer totals');
    const last = lines[i + 1] ?? '';
    if (at(last, 4, 8) !== '99999' || Number(at(last, 18, 23)) !== 1 || Number(at(last, 24, 29)) !== lines.length) return this.problem(name, i + 2, 'file trailer counts');
    if (i + 2 !== lines.length) return this.problem(name, i + 3, 'lines after the file trailer');
    return { name, sequence, lines, registered, writeOffs };
  }

  /** A retorno's content: file header, one batch of T and U pairs, trailers; its own sequence unless given. */
  retornoContent(occurrences: readonly FakeOccurrence[], options: { sequence?: number; on?: string; agreement?: string } = {}): string {
    const sequence = options.sequence ?? ++this.returnSequence;
    const on = ddmmyyyy(options.on ?? new Date().toISOString().slice(0, 10));
    const b = { ...this.bank, agreement: options.agreement ?? this.bank.agreement };
    const account = `${b.agency}0${b.account}5 `;
    const agreement = a(`${n(b.agreement, 9)}001417019`, 20);
    const lines = [
      `${b.code}00000${' '.repeat(9)}212345678000195${agreement}${account}${a('COLIBRI PAGAMENTOS', 30)}${a('BANCO DO BRASIL S.A.', 30)}${' '.repeat(10)}2${on}120000${n(sequence, 6)}08300000${' '.repeat(69)}`,
      `${b.code}00011T01  042 2${n('12345678000195', 15)}${agreement}${account}${a('COLIBRI PAGAMENTOS', 30)}${' '.repeat(80)}${n(sequence, 8)}${on}00000000${' '.repeat(33)}`,
    ];
    let record = 0;
    for (const o of occurrences) {
      const title = this.titles.get(o.nossoNumero);
      const reasons = a((o.reasons ?? []).join(''), 10);
      lines.push(`${b.code}00013${n(++record, 5)}T ${o.movement}${account}${a(o.nossoNumero, 20)}7${a(title?.documentNumber ?? '', 15)}${ddmmyyyy(title?.dueDate)}${n(title?.amountMinor ?? 0n, 15)}${b.code}${b.agency}0${a(title?.companyReference ?? '', 25)}09${'0'.repeat(16)}${' '.repeat(40)}${'0'.repeat(10)}${n(o.tariffMinor ?? 0n, 15)}${reasons}${' '.repeat(17)}`);
      const paid = o.paidMinor ?? 0n;
      const net = paid - (o.tariffMinor ?? 0n);
      lines.push(`${b.code}00013${n(++record, 5)}U ${o.movement}${'0'.repeat(60)}${n(paid, 15)}${n(net > 0n ? net : 0n, 15)}${'0'.repeat(30)}${ddmmyyyy(o.occurredOn ?? (options.on ?? new Date().toISOString().slice(0, 10)))}${ddmmyyyy(o.creditedOn)}${' '.repeat(4)}${'0'.repeat(23)}${' '.repeat(30)}000${'0'.repeat(20)}${' '.repeat(7)}`);
    }
    lines.push(`${b.code}00015${' '.repeat(9)}${n(record + 2, 6)}${n(0, 6)}${n(0, 17)}${'0'.repeat(69)}${' '.repeat(8)}${' '.repeat(117)}`);
    lines.push(`${b.code}99999${' '.repeat(9)}000001${n(lines.length + 1, 6)}000000${' '.repeat(205)}`);
    for (const [i, line] of lines.entries()) if (line.length !== 240) throw new Error(`fake retorno line ${i + 1} has ${line.length} characters`);
    return `${lines.join('\r\n')}\r\n`;
  }

  /** Drops a retorno into the inbox (written aside, then moved in, as a sync tool does); returns its name. */
  drop(content: string, name = `retorno-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.ret`): string {
    mkdirSync(this.inbox, { recursive: true });
    const temporary = join(this.inbox, `.${name}.part`);
    writeFileSync(temporary, content, 'latin1');
    renameSync(temporary, join(this.inbox, name));
    return name;
  }

  /** The bank's answer to the registrations of a remessa: registered (02), or, strict, rejected (03) with the payer's reasons. */
  answers(remessa: FakeRemessa): FakeOccurrence[] {
    return remessa.registered.map((nossoNumero) => {
      const reasons = this.titles.get(nossoNumero)?.rejectedFor ?? [];
      return reasons.length > 0 ? { movement: '03', nossoNumero, reasons } : { movement: '02', nossoNumero, tariffMinor: 0n };
    });
  }

  /** Every title of the remessas collected so far that the bank has not answered yet: registered (02). */
  registrations(nossoNumeros: readonly string[]): FakeOccurrence[] {
    return nossoNumeros.map((nossoNumero) => ({ movement: '02', nossoNumero, tariffMinor: 0n }));
  }

  payment(nossoNumero: string, options: { paidMinor?: bigint; on: string; creditedOn?: string; tariffMinor?: bigint; afterWriteOff?: boolean }): FakeOccurrence {
    const title = this.titles.get(nossoNumero);
    return { movement: options.afterWriteOff ? '17' : '06', nossoNumero, paidMinor: options.paidMinor ?? title?.amountMinor ?? 0n, tariffMinor: options.tariffMinor ?? 0n, occurredOn: options.on, creditedOn: options.creditedOn ?? options.on, reasons: ['04'] };
  }
}

/** Mod-11 check digit of CPF and CNPJ (a CNPJ's letters count as their code minus 48). */
function mod11(chars: string, weights: readonly number[]): number {
  const sum = weights.reduce((total, weight, i) => total + (chars.charCodeAt(i) - 48) * weight, 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

function validDocument(type: string, fifteen: string): boolean {
  if (type === '1') {
    if (!/^0000\d{11}$/.test(fifteen)) return false;
    const cpf = fifteen.slice(4);
    if (/^(\d)\1{10}$/.test(cpf)) return false;
    return mod11(cpf, [10, 9, 8, 7, 6, 5, 4, 3, 2]) === Number(cpf[9]) && mod11(cpf, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]) === Number(cpf[10]);
  }
  if (type === '2') {
    if (!/^0\d{14}$/.test(fifteen)) return false;
    const cnpj = fifteen.slice(1);
    if (/^(\d)\1{13}$/.test(cnpj)) return false;
    return mod11(cnpj, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]) === Number(cnpj[12]) && mod11(cnpj, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]) === Number(cnpj[13]);
  }
  return false;
}

/** What a strict bank finds wrong with a payer (FEBRABAN note C047-A: 45 name, 46 inscription, 47 address, 48 CEP). */
function payerReasons(payer: FakePayer): string[] {
  const reasons: string[] = [];
  if (payer.name === '') reasons.push('45');
  if (!validDocument(payer.documentType, payer.document)) reasons.push('46');
  if (payer.address === '' || payer.city === '' || payer.state === '') reasons.push('47');
  if (!/^\d{8}$/.test(payer.postalCode) || payer.postalCode === '00000000') reasons.push('48');
  return reasons;
}
