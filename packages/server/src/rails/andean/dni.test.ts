import { describe, expect, it } from 'vitest';
import { DNI_LENGTH, isValidDni } from './dni';

describe('isValidDni', () => {
  it.each(['45678912', '04567890', '00000001'])('accepts %s', (dni) => {
    expect(isValidDni(dni)).toBe(true);
  });

  // A ninth character is the check character printed on the card, which is not part of the number.
  it.each(['4567891', '456789123', '45678912-3', '4567891A', ' 45678912', ''])('refuses %j', (dni) => {
    expect(isValidDni(dni)).toBe(false);
  });

  it('has eight digits', () => {
    expect(DNI_LENGTH).toBe(8);
  });
});
