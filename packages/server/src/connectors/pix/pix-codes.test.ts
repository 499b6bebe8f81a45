import { describe, expect, it } from 'vitest';
import { declined, failed } from '../../processor/outcome-codes';
import type { DevolucaoStatus } from './pix-api';
import { cobState, translateDevolucao, translateProblem } from './pix-codes';

/** Words that name what every object inherits: the API Pix standard has none of them. */
const INHERITED = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

describe('API Pix codes', () => {
  it("reads a charge status it does not know, even one named like what every object inherits, as OPEN", () => {
    expect(cobState('CONCLUIDA')).toBe('PAID');
    for (const status of ['EXPIRADA', ...INHERITED]) expect(cobState(status), status).toBe('OPEN');
  });

  it('reads a devolução status it does not know as an unexpected result', () => {
    expect(translateDevolucao({ status: 'DEVOLVIDO', rtrId: 'D1' })).toEqual({ status: 'APPROVED', processorId: 'D1' });
    for (const status of ['CANCELADO', ...INHERITED]) expect(translateDevolucao({ status: status as DevolucaoStatus, rtrId: 'D1' }), status).toEqual(failed('UNEXPECTED_RESULT'));
  });

  it('reads an error type it does not know by the HTTP status alone', () => {
    expect(translateProblem(400, 'PixDevolucaoInvalida', 'over the amount')).toEqual(declined('REFUND_REJECTED'));
    for (const name of ['ErroDesconhecido', ...INHERITED]) {
      expect(translateProblem(400, name, 'why'), name).toEqual(failed('INVALID_REQUEST', `${name} why`));
      expect(translateProblem(403, name, 'why'), name).toEqual(failed('CONNECTOR_AUTH', `${name} why`));
    }
  });
});
