import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ipCountries, ipCountriesFrom } from '../src/lib/ip-country';
import { writeCountryMmdb } from './fakes/mmdb-writer';
import { customerWithCard, paymentBody, settled, waitForStatus } from './fixtures';
import { describeEachEngine, ENGINES, startTestService } from './harness';
import { reportColumn } from './report-fixtures';

/**
 * `customer_info.order_ip_country`: the country of the payer's address, from the bundled database or
 * from a MaxMind-format file the operator configures (COLIBRI_GEOIP_DATABASE), on both engines.
 * Addresses: 200.147.67.142 (a Brazilian portal's block), 201.144.0.1 (a Mexican carrier's block),
 * 2804:14c::1 (a Brazilian IPv6 block), and private, loopback and documentation addresses.
 */
const BRAZILIAN = '200.147.67.142';
const MEXICAN = '201.144.0.1';
const folder = mkdtempSync(join(tmpdir(), 'colibri-geoip-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the IP country lookup', () => {
  const bundled = ipCountries(undefined);

  it('places public IPv4 and IPv6 addresses with the bundled database', () => {
    expect(bundled.source).toBe('bundled');
    expect(bundled.countryOf(BRAZILIAN)).toBe('BR');
    expect(bundled.countryOf(MEXICAN)).toBe('MX');
    expect(bundled.countryOf('2804:14c::1')).toBe('BR');
    // As a dual-stack socket reports an IPv4 client.
    expect(bundled.countryOf(`::ffff:${BRAZILIAN}`)).toBe('BR');
  });

  it('answers null for private, loopback, link-local, documentation and malformed addresses, whatever the database says', () => {
    // The bundled database does place 192.168.1.1 somewhere; Colibri never asks it.
    for (const ip of ['10.1.2.3', '172.16.0.9', '192.168.1.1', '127.0.0.1', '169.254.1.1', '100.64.0.1', '192.0.2.10', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '2001:db8::1', '::ffff:10.0.0.1', '', 'not-an-ip', null, undefined]) {
      expect(bundled.countryOf(ip), String(ip)).toBeNull();
    }
  });

  it('reads a MaxMind-format database with GeoIP2 records, and answers null for what it does not know', () => {
    const own = ipCountriesFrom(writeCountryMmdb({ '200.147.0.0/16': 'PT', '201.144.0.0/13': 'ES' }), 'test');
    expect(own.countryOf(BRAZILIAN)).toBe('PT');
    expect(own.countryOf(MEXICAN)).toBe('ES');
    expect(own.countryOf('8.8.8.8')).toBeNull();
    // An IPv4-only database knows no IPv6 address.
    expect(own.countryOf('2804:14c::1')).toBeNull();
  });

  it('refuses a configured file that is not a MaxMind database, naming it', () => {
    const path = join(folder, 'broken.mmdb');
    writeFileSync(path, 'not a database');
    expect(() => ipCountries(path)).toThrow(/broken\.mmdb cannot be read as a MaxMind-format/);
  });
});

describeEachEngine('order_ip_country', (service) => {
  const pay = async (ip: string) => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids, { ip_address: ip }), { token: m.token });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const details = await waitForStatus(service(), m, sent.body.payment_token, settled);
    return { m, details };
  };

  it('is BR for a Brazilian address, MX for a Mexican one and null for a private one, in details and reports', async () => {
    for (const [ip, country] of [[BRAZILIAN, 'BR'], [MEXICAN, 'MX'], ['192.168.0.10', null], ['::1', null]] as const) {
      const { m, details } = await pay(ip);
      expect(details.customer_info.order_ip).toBe(ip);
      expect(details.customer_info.order_ip_country).toBe(country);
      // The report fields of the same names (ids 25 and 26).
      const created = await service().post('/reports/myreports/report', {
        name: 'Countries', folder: 'Tests', report_type: 'PAYIN', report_type_name: 'Pay-ins', enable: true, offset: null, limit: null,
        fields: [reportColumn(0, 25, 'ip'), reportColumn(1, 26, 'country')],
        filters: [], group_by: [''], order_by: [],
      }, { token: m.token });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const rows = await service().get(`/reports/myreports/report/${created.body.id}/export?format=json`, { token: m.token });
      expect(rows.body).toEqual([{ ip, country }]);
    }
  });
});

describe.each(ENGINES)('a configured database overrides the bundled one [%s]', (engine) => {
  it('answers from the operator\'s file', async () => {
    const path = join(folder, `own-${engine}.mmdb`);
    writeFileSync(path, writeCountryMmdb({ '200.147.0.0/16': 'PT' }));
    const service = await startTestService(engine, { env: { COLIBRI_GEOIP_DATABASE: path } });
    try {
      const m = await service.merchant();
      const ids = await customerWithCard(service, m);
      const sent = await service.post('/checkout/sendPayment', paymentBody(m, ids, { ip_address: BRAZILIAN }), { token: m.token });
      const other = await service.post('/checkout/sendPayment', paymentBody(m, ids, { ip_address: MEXICAN }), { token: m.token });
      expect((await waitForStatus(service, m, sent.body.payment_token, settled)).customer_info.order_ip_country).toBe('PT');
      // The configured file does not know this address: the bundled database is not asked instead.
      expect((await waitForStatus(service, m, other.body.payment_token, settled)).customer_info.order_ip_country).toBeNull();
    } finally {
      await service.close();
    }
  });
});
