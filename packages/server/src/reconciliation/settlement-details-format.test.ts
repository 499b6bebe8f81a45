import { describe, expect, it } from 'vitest';
import { readSettlementLine, ReportFormatError, settlementHeaderLine, settlementLayout, settlementLine, SETTLEMENT_DETAILS_COLUMNS } from './settlement-details-format';

describe('readSettlementLine', () => {
  const header = settlementHeaderLine().trimEnd().split(',');
  const layout = settlementLayout(header, 1);
  const zoneColumn = SETTLEMENT_DETAILS_COLUMNS.findIndex((c) => c.name === 'TimeZone');
  const fields = settlementLine({
    companyAccount: 'Colibri',
    merchantAccount: 'ColibriBR',
    pspReference: 'PSP0000000000001',
    merchantReference: 'ORDER-1',
    paymentMethod: 'visa',
    creationDate: new Date('2026-03-02T13:04:05Z'),
    type: 'Settled',
    modificationReference: 'MOD0000000000001',
    currency: 'BRL',
    grossMinor: 1000n,
    credit: true,
    fees: { commission: 0n, markup: 0n, schemeFees: 0n, interchange: 0n },
    modificationMerchantReference: 'ORDER-1',
    batchNumber: 7,
  })
    .trimEnd()
    .split(',');
  const withZone = (zone: string) => fields.map((value, i) => (i === zoneColumn ? zone : value));

  it("reads the line's date in its TimeZone", () => {
    expect(readSettlementLine({ line: 2, fields: withZone('BRT') }, layout)).toMatchObject({ creationDate: new Date('2026-03-02T16:04:05Z'), zoneOffsetHours: -3 });
  });

  it('refuses a TimeZone it does not know, even one named like what every object inherits', () => {
    for (const zone of ['XST', 'constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const read = () => readSettlementLine({ line: 2, fields: withZone(zone) }, layout);
      expect(read, zone).toThrow(ReportFormatError);
      expect(read, zone).toThrow(`line 2, column ${zoneColumn + 1} (TimeZone): "${zone}" is not a time zone Colibri knows`);
    }
  });
});
