import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/errors';
import { normaliseCard } from './create-card';
import type { CreateCardRequest } from './schemas';

// Pure rules against a fixed clock; the API tests move the merchant clock instead.
const NOW = new Date('2031-05-15T12:00:00.000Z');
const BASE: CreateCardRequest = {
  public_person_id: '00000000-0000-4000-8000-000000000000',
  number: '4111111111111111',
  exp_month: 12,
  exp_year: 2033,
  cvv: '123',
  holder_name: 'MARIA SILVA',
};

function failures(body: Partial<CreateCardRequest>, now = NOW): { code: string; description: string }[] {
  try {
    normaliseCard({ ...BASE, ...body }, now);
  } catch (error) {
    if (error instanceof ApiError) return [...error.items];
    throw error;
  }
  return [];
}

describe('normaliseCard', () => {
  it('returns digits, scheme and integer expiry', () => {
    expect(normaliseCard({ ...BASE, number: '4111 1111-1111 1111', exp_month: '07', exp_year: '33', holder_name: ' MARIA ' }, NOW)).toEqual({
      number: '4111111111111111',
      scheme: 'VISA',
      expMonth: 7,
      expYear: 2033,
      cvv: '123',
      holderName: 'MARIA',
    });
  });

  it('keeps a card valid through the last millisecond of its expiry month, in UTC', () => {
    expect(failures({ exp_month: 5, exp_year: 2031 }, new Date('2031-05-31T23:59:59.999Z'))).toEqual([]);
    expect(failures({ exp_month: 5, exp_year: 2031 }, new Date('2031-06-01T00:00:00.000Z'))).toEqual([
      { code: '00.07.0004', description: 'exp_year: the card has expired; its expiry month is over on the merchant clock.' },
    ]);
  });

  it('names the lengths of a scheme whose length is wrong', () => {
    expect(failures({ number: '4222222222222' })).toEqual([{ code: '00.07.0002', description: 'number: a VISA card number has 16, 18 or 19 digits.' }]);
  });

  it('checks the CVV against the scheme, and loosely when the number is invalid', () => {
    expect(failures({ number: '378282246310005', cvv: '123' })).toEqual([
      { code: '00.07.0006', description: 'cvv: must be 4 digits for an AMERICAN_EXPRESS card.' },
    ]);
    expect(failures({ number: '378282246310005', cvv: '1234' })).toEqual([]);
    expect(failures({ number: '4111111111111112', cvv: '1234' })).toEqual([
      { code: '00.07.0002', description: 'number: fails the Luhn check; a digit is probably mistyped.' },
    ]);
    expect(failures({ number: '4111111111111112', cvv: '12' })).toEqual([
      { code: '00.07.0002', description: 'number: fails the Luhn check; a digit is probably mistyped.' },
      { code: '00.07.0006', description: 'cvv: must be 3 or 4 digits.' },
    ]);
  });

  it('refuses a holder name that holds a card number', () => {
    expect(failures({ holder_name: '4111 1111 1111 1111' })).toEqual([
      { code: '00.01.0003', description: 'holder_name: must be the name printed on the card, not a number.' },
    ]);
    expect(failures({ holder_name: 'ACME 3M 2024 LTDA' })).toEqual([]);
  });
});
