import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/errors';
import { normalisePerson, normalisePhone } from './create-person';

const BASE = { name: 'Maria Silva', email: 'maria@example.com', tax_id: '529.982.247-25', tax_id_type: 'CPF' as const };

describe('normalisePhone', () => {
  it.each([
    ['+55 (11) 98765-4321', '+5511987654321'],
    ['+5511987654321', '+5511987654321'],
    ['  +1 415.555.2671 ', '+14155552671'],
    ['+44 20 7946 0958', '+442079460958'],
    ['+12345678', '+12345678'],
    ['+123456789012345', '+123456789012345'],
  ])('accepts %j as %s', (input, expected) => {
    expect(normalisePhone(input)).toBe(expected);
  });

  it.each([
    '11987654321', // no "+": the country cannot be known
    '+0 11 98765-4321', // country codes never start with 0
    '+1234567', // 7 digits
    '+1234567890123456', // 16 digits, beyond E.164
    '+55 11 98765-4321 ext 2',
    '++5511987654321',
    '+55/11/987654321',
    '55+11987654321',
  ])('refuses %j', (input) => {
    expect(normalisePhone(input)).toBeNull();
  });
});

describe('normalisePerson', () => {
  it('trims the name, compacts the tax id and normalises the phone', () => {
    expect(normalisePerson({ ...BASE, name: '  Maria Silva ', phone: '+55 11 98765-4321' })).toEqual({
      name: 'Maria Silva',
      email: 'maria@example.com',
      taxIdType: 'CPF',
      taxId: '52998224725',
      phone: '+5511987654321',
    });
    expect(normalisePerson({ ...BASE, tax_id: '12.abc.345/01de-35', tax_id_type: 'CNPJ' }).taxId).toBe('12ABC34501DE35');
  });

  it('reports every failing field at once, in request order', () => {
    let thrown: unknown;
    try {
      normalisePerson({ ...BASE, name: '   ', tax_id: '529.982.247-26', phone: '987654321' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).items).toEqual([
      { code: '00.01.0007', description: 'name: must not be blank.' },
      { code: '00.07.0001', description: 'tax_id: the check digits do not match; this is not a valid CPF.' },
      { code: '00.01.0003', description: expect.stringMatching(/^phone: must be an E\.164 number/) },
    ]);
  });
});
