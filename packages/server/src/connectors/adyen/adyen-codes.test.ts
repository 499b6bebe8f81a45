import { describe, expect, it } from 'vitest';
import { declined, failed } from '../../processor/outcome-codes';
import { translateNotification, translatePayment } from './adyen-codes';

/** Codes that name what every object inherits: Colibri knows none of them from Adyen. */
const INHERITED = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

describe('Adyen codes', () => {
  it('reads a resultCode or refusalReasonCode named like what every object inherits as one it does not know', () => {
    expect(translatePayment({ resultCode: 'Refused', refusalReasonCode: '12', pspReference: 'P1' })).toEqual(declined('51'));
    for (const code of ['Unheard', ...INHERITED]) {
      expect(translatePayment({ resultCode: code, pspReference: 'P1' }), code).toEqual(failed('UNEXPECTED_RESULT'));
      expect(translatePayment({ resultCode: 'Refused', refusalReasonCode: code, pspReference: 'P1' }), code).toEqual(declined('05'));
    }
  });

  it('settles nothing on a notification eventCode it does not know, and fails an authorisation on a reason it does not know with 05', () => {
    expect(translateNotification({ eventCode: 'AUTHORISATION', success: 'true', pspReference: 'P1' })).toEqual({ status: 'APPROVED', processorId: 'P1' });
    for (const code of ['REPORT_AVAILABLE', ...INHERITED]) {
      expect(translateNotification({ eventCode: code, success: 'true', pspReference: 'P1' }), code).toBeUndefined();
      expect(translateNotification({ eventCode: 'AUTHORISATION', success: 'false', pspReference: 'P1', reason: `${code}:why` }), code).toEqual(declined('05'));
    }
  });
});
