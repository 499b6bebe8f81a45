import { describe, expect, it } from 'vitest';
import { detectPixKeyType, PIX_EMAIL_MAX_LENGTH, validatePixKey } from './pix-key';

describe('validatePixKey: inferring the type', () => {
  it('reads 11 digits as a CPF and returns the compact form', () => {
    expect(validatePixKey('52998224725')).toEqual({ ok: true, type: 'CPF', value: '52998224725' });
    expect(validatePixKey('529.982.247-25')).toEqual({ ok: true, type: 'CPF', value: '52998224725' });
  });

  it('reports a CPF-shaped key with wrong check digits or repeated digits as an invalid CPF', () => {
    expect(validatePixKey('52998224726')).toEqual({ ok: false, reason: 'INVALID_CPF' });
    expect(validatePixKey('111.111.111-11')).toEqual({ ok: false, reason: 'INVALID_CPF' });
    // A mobile number without +55 has 11 digits too; DICT requires +55, so it is read (and refused) as a CPF.
    expect(validatePixKey('11987654321')).toEqual({ ok: false, reason: 'INVALID_CPF' });
  });

  it('reads 14 characters as a CNPJ, numeric or alphanumeric', () => {
    expect(validatePixKey('11.222.333/0001-81')).toEqual({ ok: true, type: 'CNPJ', value: '11222333000181' });
    expect(validatePixKey('12.ABC.345/01DE-35')).toEqual({ ok: true, type: 'CNPJ', value: '12ABC34501DE35' });
    expect(validatePixKey('12abc34501de35')).toEqual({ ok: true, type: 'CNPJ', value: '12ABC34501DE35' });
    expect(validatePixKey('11222333000182')).toEqual({ ok: false, reason: 'INVALID_CNPJ' });
    expect(validatePixKey('12ABC34501DEXX')).toEqual({ ok: false, reason: 'INVALID_CNPJ' });
  });

  it('accepts e-mail addresses and lower-cases them, as DICT only stores lower case', () => {
    expect(validatePixKey('fulano@example.com')).toEqual({ ok: true, type: 'EMAIL', value: 'fulano@example.com' });
    expect(validatePixKey('Fulano.De_Tal+pix@Example.COM.br')).toEqual({
      ok: true,
      type: 'EMAIL',
      value: 'fulano.de_tal+pix@example.com.br',
    });
    expect(validatePixKey("o'brien@sub-domain.example.org")).toMatchObject({ ok: true, type: 'EMAIL' });
  });

  it('enforces the 77-character limit on e-mail keys', () => {
    const domain = '@example.com';
    const longest = 'a'.repeat(PIX_EMAIL_MAX_LENGTH - domain.length) + domain;
    expect(longest).toHaveLength(77);
    expect(validatePixKey(longest)).toEqual({ ok: true, type: 'EMAIL', value: longest });
    expect(validatePixKey(`a${longest}`)).toEqual({ ok: false, reason: 'EMAIL_TOO_LONG' });
  });

  it.each([
    'fulano@',
    '@example.com',
    'fulano@@example.com',
    'fu lano@example.com',
    'fulano@-example.com',
    'fulano@example-.com',
    'fulano@example..com',
    'fulano@example.com.',
    'joão@example.com',
    'fulano@exämple.com',
    `fulano@${'a'.repeat(64)}.com`,
  ])('refuses the malformed e-mail %s', (email) => {
    expect(validatePixKey(email)).toEqual({ ok: false, reason: 'INVALID_EMAIL' });
  });

  it('accepts Brazilian mobile numbers in +55 E.164 form', () => {
    for (const phone of ['+5511987654321', '+5521998765432', '+5561912345678', '+5599912345678']) {
      expect(validatePixKey(phone)).toEqual({ ok: true, type: 'PHONE', value: phone });
    }
  });

  it.each([
    ['+5510987654321', 'area code 10'],
    ['+5500987654321', 'area code 00'],
    ['+551187654321', 'an eight-digit landline'],
    ['+5511887654321', 'a nine-digit number not starting with 9'],
    ['+55119876543210', 'too many digits'],
    ['+14155552671', 'another country'],
    ['+55 11 98765-4321', 'spaces and a hyphen'],
    ['+55(11)987654321', 'parentheses'],
  ])('refuses the phone key %s (%s)', (phone) => {
    expect(validatePixKey(phone)).toEqual({ ok: false, reason: 'INVALID_PHONE' });
  });

  it('accepts a random key (UUID v4) in either case and returns it in lower case', () => {
    const evp = '3ce48eec-58b6-4fd5-a8e2-b9e78b9a348f';
    expect(validatePixKey(evp)).toEqual({ ok: true, type: 'EVP', value: evp });
    expect(validatePixKey(evp.toUpperCase())).toEqual({ ok: true, type: 'EVP', value: evp });
    const generated = crypto.randomUUID();
    expect(validatePixKey(generated)).toEqual({ ok: true, type: 'EVP', value: generated });
  });

  it('refuses UUIDs that are not version 4 or not of the RFC 4122 variant', () => {
    // A version 1 UUID, the nil UUID, a version 7 and a v4 layout with variant nibble c.
    for (const uuid of [
      'c232ab00-9414-11ec-b3c8-9f6bdeced846',
      '00000000-0000-0000-0000-000000000000',
      '01890a5d-ac96-774b-bcce-b302099a8057',
      '3ce48eec-58b6-4fd5-c8e2-b9e78b9a348f',
    ]) {
      expect(validatePixKey(uuid)).toEqual({ ok: false, reason: 'INVALID_EVP' });
    }
  });

  it('refuses a UUID without its hyphens, which DICT does not accept', () => {
    expect(validatePixKey('3ce48eec58b64fd5a8e2b9e78b9a348f')).toEqual({ ok: false, reason: 'UNKNOWN_FORMAT' });
  });

  it('ignores surrounding whitespace and refuses an empty key', () => {
    expect(validatePixKey('  +5511987654321\n')).toEqual({ ok: true, type: 'PHONE', value: '+5511987654321' });
    expect(validatePixKey('')).toEqual({ ok: false, reason: 'EMPTY' });
    expect(validatePixKey('   ')).toEqual({ ok: false, reason: 'EMPTY' });
  });

  it('refuses keys that look like none of the kinds', () => {
    for (const key of ['5511987654321', 'hello world', '1234', 'https://example.com', '12345678901234567']) {
      expect(validatePixKey(key)).toEqual({ ok: false, reason: 'UNKNOWN_FORMAT' });
    }
  });
});

describe('validatePixKey: with a declared type', () => {
  it('validates only as the declared type', () => {
    expect(validatePixKey('11987654321', 'PHONE')).toEqual({ ok: false, reason: 'INVALID_PHONE' });
    expect(validatePixKey('+5511987654321', 'CPF')).toEqual({ ok: false, reason: 'INVALID_CPF' });
    expect(validatePixKey('fulano@example.com', 'EVP')).toEqual({ ok: false, reason: 'INVALID_EVP' });
    expect(validatePixKey('52998224725', 'CNPJ')).toEqual({ ok: false, reason: 'INVALID_CNPJ' });
    expect(validatePixKey('52998224725', 'EMAIL')).toEqual({ ok: false, reason: 'INVALID_EMAIL' });
  });

  it('returns the same normalised value as inference when the type matches', () => {
    expect(validatePixKey('529.982.247-25', 'CPF')).toEqual({ ok: true, type: 'CPF', value: '52998224725' });
    expect(validatePixKey('Fulano@Example.com', 'EMAIL')).toEqual({
      ok: true,
      type: 'EMAIL',
      value: 'fulano@example.com',
    });
  });
});

describe('detectPixKeyType', () => {
  it('returns the type of each valid kind and null otherwise', () => {
    expect(detectPixKeyType('123.456.789-09')).toBe('CPF');
    expect(detectPixKeyType('12.ABC.345/01DE-35')).toBe('CNPJ');
    expect(detectPixKeyType('fulano@example.com')).toBe('EMAIL');
    expect(detectPixKeyType('+5511987654321')).toBe('PHONE');
    expect(detectPixKeyType('3ce48eec-58b6-4fd5-a8e2-b9e78b9a348f')).toBe('EVP');
    expect(detectPixKeyType('123.456.789-00')).toBeNull();
    expect(detectPixKeyType('not a key')).toBeNull();
  });
});
