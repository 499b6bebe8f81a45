import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BlockList, isIP } from 'node:net';
import { Reader } from 'mmdb-lib';

/**
 * The country of an IP address (`customer_info.order_ip_country`), from a MaxMind-format (MMDB) country
 * database read into memory once per process:
 * - the operator's own, at the path `COLIBRI_GEOIP_DATABASE` names (GeoIP2/GeoLite2 Country or City, or
 *   any MMDB whose records carry `country.iso_code` or `country_code`), which overrides
 * - the one Colibri ships: `@ip-location-db/geo-whois-asn-country-mmdb` (public domain, CC0), built from
 *   the regional registries' WHOIS data and routing tables, IPv4 and IPv6 in one file.
 * Addresses that are not on the public internet (private, loopback, link-local, shared, documentation,
 * multicast and reserved ranges, in IPv4, IPv6 and IPv4-mapped IPv6) are never looked up: their answer
 * is null, whatever a database says of them; so is an address the database does not know.
 */

/** Ranges no database can place in a country (IANA special-purpose registries, IPv4 and IPv6). */
const NOT_PUBLIC = (() => {
  const list = new BlockList();
  for (const [network, prefix] of [
    ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
    ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
    ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ] as const) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of [
    ['::', 128], ['::1', 128], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
  ] as const) list.addSubnet(network, prefix, 'ipv6');
  return list;
})();

/** What a country database answers for one address; both common record shapes are read. */
interface CountryRecord {
  country?: { iso_code?: unknown };
  country_code?: unknown;
}

export interface IpCountries {
  /** The ISO 3166-1 alpha-2 country of a public address, or null (not public, unknown, or not an address). */
  countryOf(ip: string | null | undefined): string | null;
  /** Where the database came from: the configured path, or the bundled package. */
  readonly source: string;
}

/** An IPv4 address written as IPv4-mapped IPv6 (`::ffff:200.147.67.142`, as dual-stack sockets report it) is read as IPv4. */
function plainAddress(ip: string): { address: string; family: 'ipv4' | 'ipv6' } | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = mapped ? mapped[1]! : ip;
  const version = isIP(address);
  return version === 4 ? { address, family: 'ipv4' } : version === 6 ? { address, family: 'ipv6' } : null;
}

/** Reads a MaxMind-format database's bytes into a lookup; throws when they are not one. */
export function ipCountriesFrom(database: Buffer, source: string): IpCountries {
  const reader = new Reader(database);
  return {
    source,
    countryOf(ip) {
      if (!ip) return null;
      const plain = plainAddress(ip);
      if (!plain || NOT_PUBLIC.check(plain.address, plain.family)) return null;
      // An IPv4 address in an IPv4-only database, or either kind in a mixed one.
      if (plain.family === 'ipv6' && reader.metadata.ipVersion === 4) return null;
      const record = reader.get(plain.address) as CountryRecord | null;
      const code = record?.country?.iso_code ?? record?.country_code;
      return typeof code === 'string' && /^[A-Z]{2}$/.test(code) ? code : null;
    },
  };
}

/**
 * The bundled database's file, found through the package that ships it, once: every sendPayment asks
 * for the lookup, and resolving the path again each time (stat calls and package.json reads) cost the
 * service about 9 µs per payment (docs/performance.md, fifth session).
 */
function bundledDatabase(): string {
  bundledPath ??= createRequire(import.meta.url).resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');
  return bundledPath;
}

let bundledPath: string | undefined;
const opened = new Map<string, IpCountries>();

/**
 * The process's country lookup for a configured database path (or the bundled database when none),
 * read on first use and kept. A configured file that is missing or not an MMDB fails loudly: the
 * operator asked for it.
 * @example ipCountries(config.geoipDatabase).countryOf('200.147.67.142'); // 'BR'
 */
export function ipCountries(configuredPath: string | undefined): IpCountries {
  const path = configuredPath ?? bundledDatabase();
  let lookup = opened.get(path);
  if (!lookup) {
    try {
      lookup = ipCountriesFrom(readFileSync(path), configuredPath ? path : 'bundled');
    } catch (error) {
      throw new Error(`The IP country database ${path} cannot be read as a MaxMind-format (MMDB) file: ${(error as Error).message}`, { cause: error });
    }
    opened.set(path, lookup);
  }
  return lookup;
}
