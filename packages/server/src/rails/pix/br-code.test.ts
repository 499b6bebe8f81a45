import { describe, it, expect } from 'vitest';
import { parsePix, hasError, PixElementType } from 'pix-utils';
import { computeCRC } from 'pix-utils/dist/main/crc';
import {
  BrCodeError,
  crc16CcittFalse,
  formatBrCodeAmount,
  generateBrCode,
  isValidBrCode,
  normalizeBrCodeText,
  parseBrCode,
} from './br-code';
import type { BrCodeInput } from './br-code';

// The two examples printed in the Central Bank of Brazil's BR Code manual (Manual de Padrões para Iniciação
// do Pix): a static code for a random key, and a dynamic code for a location.
const BCB_STATIC =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR' +
  '5913Fulano de Tal6008BRASILIA62070503***63041D3D';
const BCB_DYNAMIC =
  '00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd441' +
  '5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4';

/** Parses with pix-utils, the independent oracle, and fails the test if it reports an error. */
function oracle(payload: string) {
  const parsed = parsePix(payload);
  if (hasError(parsed)) throw new Error(`pix-utils rejected ${payload}: ${parsed.message}`);
  return parsed;
}

describe('crc16CcittFalse', () => {
  it('gives the catalogued check value for "123456789"', () => {
    expect(crc16CcittFalse('123456789')).toBe('29B1');
  });

  it("reproduces the CRCs of the Central Bank's examples", () => {
    expect(crc16CcittFalse(BCB_STATIC.slice(0, -4))).toBe('1D3D');
    expect(crc16CcittFalse(BCB_DYNAMIC.slice(0, -4))).toBe('64E4');
  });

  it("agrees with pix-utils' table-driven CRC on assorted inputs", () => {
    for (const text of ['', 'A', '6304', 'br.gov.bcb.pix', 'x'.repeat(300), 'Ação']) {
      // pix-utils strips a trailing '6304XXXX' before computing, so keep the inputs free of that shape.
      expect(crc16CcittFalse(text), text).toBe(computeCRC(text));
    }
  });

  it('pads to four hex digits', () => {
    expect(crc16CcittFalse('')).toBe('FFFF');
    expect(crc16CcittFalse('').length).toBe(4);
  });
});

describe("parseBrCode on the Central Bank's examples", () => {
  it('reads the static example', () => {
    const parsed = parseBrCode(BCB_STATIC);
    expect(parsed).toMatchObject({
      kind: 'static',
      key: '123e4567-e12b-12d1-a456-426655440000',
      merchantCategoryCode: '0000',
      currency: '986',
      countryCode: 'BR',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
      txid: '***',
      crc: '1D3D',
    });
    expect(parsed.amount).toBeUndefined();
    expect(parsed.location).toBeUndefined();
    expect(parsed.fields.map((f) => f.id)).toEqual(['00', '26', '52', '53', '58', '59', '60', '62', '63']);
  });

  it('reads the dynamic example', () => {
    expect(parseBrCode(BCB_DYNAMIC)).toMatchObject({
      kind: 'dynamic',
      pointOfInitiationMethod: '12',
      location: 'pix.example.com/8b3da2f39a4140d1a91abd93113bd441',
      merchantName: 'Fulano de Tal',
      txid: '***',
      crc: '64E4',
    });
  });

  it('rejects the examples with any single character changed', () => {
    for (const example of [BCB_STATIC, BCB_DYNAMIC]) {
      for (let i = 0; i < example.length; i += 1) {
        const original = example[i] ?? '';
        const replacement = original === '7' ? '8' : '7';
        const tampered = example.slice(0, i) + replacement + example.slice(i + 1);
        expect(isValidBrCode(tampered), `position ${i}`).toBe(false);
      }
    }
  });
});

describe('generateBrCode', () => {
  it("lays out the static example's fields exactly as the manual does", () => {
    const payload = generateBrCode({
      key: '123e4567-e12b-12d1-a456-426655440000',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
    });
    // Only the name differs: this generator upper-cases it, so the CRC differs too and comes from pix-utils.
    const expectedBody = BCB_STATIC.slice(0, -4).replace('Fulano de Tal', 'FULANO DE TAL');
    expect(payload).toBe(expectedBody + computeCRC(expectedBody));
  });

  it("lays out the dynamic example's fields exactly as the manual does", () => {
    const payload = generateBrCode({
      location: 'pix.example.com/8b3da2f39a4140d1a91abd93113bd441',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
    });
    const expectedBody = BCB_DYNAMIC.slice(0, -4).replace('Fulano de Tal', 'FULANO DE TAL');
    expect(payload).toBe(expectedBody + computeCRC(expectedBody));
  });

  it('writes the amount and txid where the manual puts them', () => {
    const payload = generateBrCode({
      key: 'fulano@example.com',
      merchantName: 'Fulano de Tal',
      merchantCity: 'Brasília',
      amount: '10.5',
      txid: 'PEDIDO123',
    });
    expect(payload).toContain('5303986540510.505802BR');
    expect(payload).toContain('62130509PEDIDO1236304');
    const parsed = oracle(payload);
    expect(parsed.type).toBe(PixElementType.STATIC);
  });

  it('produces static codes that pix-utils parses back field for field', () => {
    const cases: Array<{ input: BrCodeInput; name: string; city: string }> = [
      { input: { key: '12345678909', merchantName: 'Ana', merchantCity: 'Recife', amount: '0.01' }, name: 'ANA', city: 'RECIFE' },
      {
        input: { key: '+5511987654321', merchantName: 'Padaria Pão de Açúcar', merchantCity: 'São Paulo', txid: 'abcDEF123' },
        name: 'PADARIA PAO DE ACUCAR',
        city: 'SAO PAULO',
      },
      {
        input: {
          key: 'loja@exemplo.com.br',
          merchantName: 'José da Silva Comércio e Filhos Ltda',
          merchantCity: 'São João del-Rei',
          amount: '1234567890.99',
          txid: 'A'.repeat(25),
        },
        name: 'JOSE DA SILVA COMERCIO E',
        city: 'SAO JOAO DEL-RE',
      },
    ];
    for (const { input, name, city } of cases) {
      const payload = generateBrCode(input);
      const parsed = oracle(payload);
      if (parsed.type !== PixElementType.STATIC) throw new Error('expected a static code');
      expect(parsed.pixKey).toBe(input.key);
      expect(parsed.merchantName).toBe(name);
      expect(parsed.merchantCity).toBe(city);
      expect(parsed.txid).toBe(input.txid ?? '***');
      // pix-utils reports the amount as a number (0 when absent): compare it against our decimal string.
      expect(parsed.transactionAmount).toBe(input.amount === undefined ? 0 : Number(input.amount));
      expect(parseBrCode(payload).amount).toBe(input.amount);
    }
  });

  it('produces dynamic codes that pix-utils parses back, with an amount when given one', () => {
    const payload = generateBrCode({
      location: 'qr.psp.example/v2/cobv/9d36b84fc70b478fb95c12729b90ca25',
      merchantName: 'Colibri Pagamentos',
      merchantCity: 'Florianópolis',
      amount: '99.90',
    });
    const parsed = oracle(payload);
    if (parsed.type !== PixElementType.DYNAMIC) throw new Error('expected a dynamic code');
    expect(parsed.url).toBe('qr.psp.example/v2/cobv/9d36b84fc70b478fb95c12729b90ca25');
    expect(parsed.merchantCity).toBe('FLORIANOPOLIS');
    expect(parseBrCode(payload)).toMatchObject({ kind: 'dynamic', amount: '99.90', pointOfInitiationMethod: '12', txid: '***' });
  });

  it('lets the caller choose the point of initiation method', () => {
    const reusable = generateBrCode({ location: 'a.example/b', merchantName: 'X', merchantCity: 'Y', pointOfInitiation: 'reusable' });
    // '2511a.example/b' plus the 18-character GUI object makes a 33-character template.
    expect(reusable.startsWith('000201010211263300')).toBe(true);
    const once = generateBrCode({ key: 'k@example.com', merchantName: 'X', merchantCity: 'Y', pointOfInitiation: 'single-use' });
    expect(once.startsWith('000201010212')).toBe(true);
    oracle(reusable);
    oracle(once);
  });

  it('survives many random inputs, always parsed by pix-utils with a valid CRC', () => {
    // A small deterministic generator keeps the test reproducible.
    let seed = 20250222;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    const pick = (length: number, chars = alphabet) =>
      Array.from({ length }, () => chars[next(chars.length)]).join('');
    for (let i = 0; i < 300; i += 1) {
      const dynamic = next(2) === 0;
      const amount = next(3) === 0 ? undefined : `${next(100000)}.${String(next(100)).padStart(2, '0')}`;
      const common = {
        merchantName: pick(1 + next(40), `${alphabet} áéíóúçãõ`),
        merchantCity: pick(1 + next(20), `${alphabet} âêô`),
        ...(amount === undefined || amount === '0.00' ? {} : { amount }),
      };
      const input: BrCodeInput = dynamic
        ? { ...common, location: `pix.example.com/${pick(1 + next(60))}` }
        : { ...common, key: `${pick(1 + next(60))}@x.io`, ...(next(2) ? { txid: pick(1 + next(25)) } : {}) };
      let payload: string;
      try {
        payload = generateBrCode(input);
      } catch (error) {
        // Names made only of spaces normalise to nothing; that is the one expected refusal.
        expect(error).toBeInstanceOf(BrCodeError);
        continue;
      }
      const parsed = oracle(payload);
      expect(parsed.type).toBe(dynamic ? PixElementType.DYNAMIC : PixElementType.STATIC);
      expect(payload.slice(-4)).toBe(computeCRC(payload));
      expect(parseBrCode(payload).amount).toBe(common.amount);
    }
  });

  it('normalises amounts to two decimals and refuses malformed ones', () => {
    const amountOf = (amount: string) =>
      parseBrCode(generateBrCode({ key: 'k@example.com', merchantName: 'X', merchantCity: 'Y', amount })).amount;
    expect(amountOf('10')).toBe('10.00');
    expect(amountOf('10.5')).toBe('10.50');
    expect(amountOf('0.01')).toBe('0.01');
    for (const bad of ['0', '0.00', '-1.00', '10.505', '1e3', '10,50', ' 10', '01.00', '.50', '10.', '12345678901.00']) {
      expect(
        () => generateBrCode({ key: 'k@example.com', merchantName: 'X', merchantCity: 'Y', amount: bad }),
        bad,
      ).toThrow(BrCodeError);
    }
  });

  it('checks the txid, the key and the location', () => {
    const base = { merchantName: 'X', merchantCity: 'Y' };
    expect(() => generateBrCode({ ...base, key: 'k@example.com', txid: 'pedido-1' })).toThrow(BrCodeError);
    expect(() => generateBrCode({ ...base, key: 'k@example.com', txid: 'A'.repeat(26) })).toThrow(BrCodeError);
    expect(() => generateBrCode({ ...base, key: 'k@example.com', txid: '' })).toThrow(BrCodeError);
    expect(() => generateBrCode({ ...base, key: 'a'.repeat(78) })).toThrow(BrCodeError);
    expect(() => generateBrCode({ ...base, key: 'has space@x.com' })).toThrow(BrCodeError);
    expect(() => generateBrCode({ ...base, key: '' })).toThrow(BrCodeError);
    expect(() => generateBrCode({ ...base, location: 'https://pix.example.com/x' })).toThrow(BrCodeError);
    // A 77-character key fills the merchant account template to its 99-character limit exactly.
    const longest = generateBrCode({ ...base, key: 'a'.repeat(77) });
    expect(longest).toContain('2699');
    oracle(longest);
  });

  it('refuses inputs that mix the static and dynamic forms', () => {
    const mixed = { merchantName: 'X', merchantCity: 'Y', key: 'k@example.com', location: 'a.example/b' };
    expect(() => generateBrCode(mixed as unknown as BrCodeInput)).toThrow(BrCodeError);
    const dynamicWithTxid = { merchantName: 'X', merchantCity: 'Y', location: 'a.example/b', txid: 'ABC' };
    expect(() => generateBrCode(dynamicWithTxid as unknown as BrCodeInput)).toThrow(BrCodeError);
    expect(() => generateBrCode({ merchantName: 'X', merchantCity: 'Y' } as unknown as BrCodeInput)).toThrow(BrCodeError);
  });

  it('refuses names and cities with nothing printable left', () => {
    expect(() => generateBrCode({ key: 'k@example.com', merchantName: '   ', merchantCity: 'Y' })).toThrow(BrCodeError);
    expect(() => generateBrCode({ key: 'k@example.com', merchantName: 'X', merchantCity: '北京' })).toThrow(BrCodeError);
  });
});

describe('formatBrCodeAmount', () => {
  it('writes cents as a two-decimal string', () => {
    expect(formatBrCodeAmount(1050n)).toBe('10.50');
    expect(formatBrCodeAmount(7)).toBe('0.07');
    expect(formatBrCodeAmount(100)).toBe('1.00');
    expect(formatBrCodeAmount(123456789099n)).toBe('1234567890.99');
  });

  it('refuses zero, negatives, fractions and amounts too long for ID 54', () => {
    expect(() => formatBrCodeAmount(0)).toThrow(BrCodeError);
    expect(() => formatBrCodeAmount(-5n)).toThrow(BrCodeError);
    expect(() => formatBrCodeAmount(10.5)).toThrow(BrCodeError);
    expect(() => formatBrCodeAmount(1234567890099n)).toThrow(BrCodeError);
  });
});

describe('normalizeBrCodeText', () => {
  it('strips accents, upper-cases, collapses spaces and cuts', () => {
    expect(normalizeBrCodeText('  São   Paulo ', 15)).toBe('SAO PAULO');
    expect(normalizeBrCodeText('Ação Cêntrica', 25)).toBe('ACAO CENTRICA');
    expect(normalizeBrCodeText('Jørgen', 25)).toBe('JRGEN');
    expect(normalizeBrCodeText('abcdefghij klmnop', 11)).toBe('ABCDEFGHIJ');
  });
});

describe('parseBrCode rejections', () => {
  const withCrc = (body: string) => body + crc16CcittFalse(body);

  it('rejects a wrong CRC, in any case', () => {
    expect(() => parseBrCode(`${BCB_STATIC.slice(0, -4)}1D3E`)).toThrow(/CRC mismatch/);
    expect(parseBrCode(`${BCB_STATIC.slice(0, -4)}1d3d`).crc).toBe('1d3d');
  });

  it('rejects structural problems even with a matching CRC', () => {
    const body = BCB_STATIC.slice(0, -4);
    expect(() => parseBrCode(withCrc(body.replace('5303986', '5303840')))).toThrow(/986/);
    expect(() => parseBrCode(withCrc(body.replace('5802BR', '5802US')))).toThrow(/BR/);
    expect(() => parseBrCode(withCrc(body.replace('br.gov.bcb.pix', 'br.gov.bcb.pax')))).toThrow(/GUI/);
    expect(() => parseBrCode(withCrc(body.replace('000201', '000202')))).toThrow(/000201/);
    expect(() => parseBrCode(withCrc(body.replace('5913Fulano de Tal', '')))).toThrow(/merchant name/);
    expect(() => parseBrCode(withCrc(body.replace('5802BR', '5802BR5802BR')))).toThrow(/more than once/);
    expect(() => parseBrCode(withCrc(body.replace('5303986', '5303986540510,50')))).toThrow(/amount/);
    expect(() => parseBrCode(withCrc(body.replace('5303986', '53039865400')))).toThrow(/length/);
    expect(() => parseBrCode(withCrc(body.replace('000201', '000201010213')))).toThrow(/initiation/);
    expect(() => parseBrCode(BCB_STATIC.slice(0, 40))).toThrow(BrCodeError);
    expect(() => parseBrCode('')).toThrow(BrCodeError);
    expect(() => parseBrCode(`${BCB_STATIC}\n`)).toThrow(BrCodeError);
  });

  it('accepts names that other issuers left with accents, counting characters', () => {
    const accented = withCrc(BCB_STATIC.slice(0, -4).replace('6008BRASILIA', '6008BRASÍLIA'));
    expect(parseBrCode(accented).merchantCity).toBe('BRASÍLIA');
    const fromOracle = oracle(accented);
    if (fromOracle.type !== PixElementType.STATIC) throw new Error('expected a static code');
    expect(fromOracle.merchantCity).toBe('BRASÍLIA');
  });

  it('accepts the upper-case GUI some issuers write, and extra templates', () => {
    const upper = withCrc(BCB_STATIC.slice(0, -4).replace('br.gov.bcb.pix', 'BR.GOV.BCB.PIX'));
    expect(parseBrCode(upper).key).toBe('123e4567-e12b-12d1-a456-426655440000');
    const extra = withCrc(
      BCB_STATIC.slice(0, -8) + '80300014br.gov.bcb.pix2508a.test/r' + '6304',
    );
    expect(parseBrCode(extra).fields.find((f) => f.id === '80')?.children?.map((c) => c.id)).toEqual(['00', '25']);
  });

  it('rejects a template holding both a key and a location, or neither', () => {
    const t = (id: string, value: string) => id + String(value.length).padStart(2, '0') + value;
    const rest = t('52', '0000') + t('53', '986') + t('58', 'BR') + t('59', 'X') + t('60', 'Y') + t('62', t('05', '***'));
    const both = t('00', '01') + t('26', t('00', 'br.gov.bcb.pix') + t('01', 'k@example.com') + t('25', 'a.example/b'));
    expect(() => parseBrCode(withCrc(`${both}${rest}6304`))).toThrow(/exactly one/);
    const neither = t('00', '01') + t('26', t('00', 'br.gov.bcb.pix') + t('02', 'hello'));
    expect(() => parseBrCode(withCrc(`${neither}${rest}6304`))).toThrow(/exactly one/);
    const fine = t('00', '01') + t('26', t('00', 'br.gov.bcb.pix') + t('01', 'k@example.com') + t('02', 'hello'));
    expect(parseBrCode(withCrc(`${fine}${rest}6304`))).toMatchObject({ key: 'k@example.com', additionalInfo: 'hello' });
    oracle(withCrc(`${fine}${rest}6304`));
  });
});
