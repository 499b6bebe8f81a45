import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';

/**
 * Where callbacks may go. A notification URL is chosen by whoever creates a payment, so without a
 * check it would let them make Colibri call its own network: the database, the cloud's metadata
 * service, an admin port on localhost. Every address a target host resolves to is classified here,
 * and a callback is refused unless all of them are public unicast addresses, or the host (or the
 * address) is listed in COLIBRI_CALLBACK_ALLOW_HOSTS.
 */

/** Why an address is refused; `public` is the one class callbacks may reach. */
export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared' // carrier-grade NAT, 100.64.0.0/10
  | 'link-local'
  | 'metadata'
  | 'unique-local'
  | 'multicast'
  | 'reserved'
  | 'invalid';

interface Range {
  readonly cidr: string;
  readonly class: Exclude<AddressClass, 'public' | 'invalid'>;
}

/**
 * IPv4 ranges that are not the public internet. Cloud metadata addresses sit inside link-local and
 * shared space already; they are listed first so the refusal names them.
 */
const IPV4_RANGES: readonly Range[] = [
  { cidr: '169.254.169.254/32', class: 'metadata' }, // AWS, GCP, Azure, OpenStack
  { cidr: '169.254.170.2/32', class: 'metadata' }, // AWS ECS task metadata
  { cidr: '100.100.100.200/32', class: 'metadata' }, // Alibaba Cloud
  { cidr: '0.0.0.0/8', class: 'unspecified' },
  { cidr: '10.0.0.0/8', class: 'private' },
  { cidr: '100.64.0.0/10', class: 'shared' },
  { cidr: '127.0.0.0/8', class: 'loopback' },
  { cidr: '169.254.0.0/16', class: 'link-local' },
  { cidr: '172.16.0.0/12', class: 'private' },
  { cidr: '192.0.0.0/24', class: 'reserved' }, // IETF protocol assignments (Oracle's metadata is 192.0.0.192)
  { cidr: '192.0.2.0/24', class: 'reserved' }, // documentation
  { cidr: '192.88.99.0/24', class: 'reserved' }, // 6to4 relay anycast
  { cidr: '192.168.0.0/16', class: 'private' },
  { cidr: '198.18.0.0/15', class: 'reserved' }, // benchmarking
  { cidr: '198.51.100.0/24', class: 'reserved' }, // documentation
  { cidr: '203.0.113.0/24', class: 'reserved' }, // documentation
  { cidr: '224.0.0.0/4', class: 'multicast' },
  { cidr: '240.0.0.0/4', class: 'reserved' }, // future use, and 255.255.255.255 broadcast
];

/** IPv6 ranges that are not the public internet (those that embed an IPv4 address are handled apart). */
const IPV6_RANGES: readonly Range[] = [
  { cidr: 'fd00:ec2::254/128', class: 'metadata' }, // AWS IMDS over IPv6
  { cidr: '::/128', class: 'unspecified' },
  { cidr: '::1/128', class: 'loopback' },
  { cidr: '64:ff9b:1::/48', class: 'reserved' }, // local-use NAT64
  { cidr: '100::/64', class: 'reserved' }, // discard-only
  { cidr: '2001::/23', class: 'reserved' }, // IETF protocol assignments, Teredo among them
  { cidr: '2001:db8::/32', class: 'reserved' }, // documentation
  { cidr: 'fc00::/7', class: 'unique-local' },
  { cidr: 'fe80::/10', class: 'link-local' },
  { cidr: 'fec0::/10', class: 'link-local' }, // deprecated site-local, still routed inside some networks
  { cidr: 'ff00::/8', class: 'multicast' },
];

/**
 * IPv6 prefixes whose addresses carry an IPv4 address that a translator or the stack itself will
 * reach: IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d, RFC 2765's SIIT form),
 * IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::). They are
 * classified by the IPv4 address inside, so ::ffff:127.0.0.1 and ::ffff:0:7f00:1 are loopback.
 */
const EMBEDDED_IPV4: readonly { prefix: bigint; bits: number; shift: number }[] = [
  { prefix: 0xffffn << 32n, bits: 96, shift: 0 },
  { prefix: 0xffffn << 48n, bits: 96, shift: 0 },
  { prefix: 0n, bits: 96, shift: 0 },
  { prefix: 0x0064ff9bn << 96n, bits: 96, shift: 0 },
  { prefix: 0x2002n << 112n, bits: 16, shift: 80 },
];

function parseIpv4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseIpv6(text: string): bigint | null {
  let address = text.replace(/^\[|\]$/g, '');
  const zone = address.indexOf('%');
  if (zone >= 0) address = address.slice(0, zone);
  // A dotted IPv4 tail (::ffff:10.0.0.1) stands for the last two groups.
  const lastColon = address.lastIndexOf(':');
  const tail = address.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIpv4(tail);
    if (v4 === null) return null;
    address = `${address.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] === '' ? [] : (halves[0] ?? '').split(':');
  const rest = halves.length === 2 ? (halves[1] === '' ? [] : (halves[1] ?? '').split(':')) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? head.length !== 8 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return null;
    value = (value << 16n) | BigInt(`0x${group}`);
  }
  return value;
}

function compile(ranges: readonly Range[], width: 32 | 128) {
  return ranges.map((range) => {
    const [base = '', bits = ''] = range.cidr.split('/');
    const prefixBits = Number(bits);
    const value = width === 32 ? parseIpv4(base) : parseIpv6(base);
    if (value === null) throw new Error(`bad range ${range.cidr}`);
    const mask = prefixBits === 0 ? 0n : ((1n << BigInt(prefixBits)) - 1n) << BigInt(width - prefixBits);
    return { network: value & mask, mask, class: range.class };
  });
}

const V4 = compile(IPV4_RANGES, 32);
const V6 = compile(IPV6_RANGES, 128);
const ALL_128 = (1n << 128n) - 1n;

function classifyIpv4(value: bigint): AddressClass {
  return V4.find((r) => (value & r.mask) === r.network)?.class ?? 'public';
}

/**
 * Classifies one IP address (IPv4 or IPv6, with or without brackets or a zone).
 * @example classifyAddress('10.1.2.3') // 'private'
 * @example classifyAddress('::ffff:169.254.169.254') // 'metadata'
 * @example classifyAddress('93.184.216.34') // 'public'
 */
export function classifyAddress(address: string): AddressClass {
  const v4 = parseIpv4(address);
  if (v4 !== null) return classifyIpv4(v4);
  const v6 = parseIpv6(address);
  if (v6 === null) return 'invalid';
  const listed = V6.find((r) => (v6 & r.mask) === r.network);
  if (listed) return listed.class;
  for (const embedded of EMBEDDED_IPV4) {
    const mask = (ALL_128 >> BigInt(128 - embedded.bits)) << BigInt(128 - embedded.bits);
    if ((v6 & mask) === embedded.prefix) return classifyIpv4((v6 >> BigInt(embedded.shift)) & 0xffffffffn);
  }
  return 'public';
}

/** Hosts in URLs and in the allow list compare lowercased and without IPv6 brackets or a trailing dot. */
export function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/** A refused callback target; the message says which address and why, for the attempt log. */
export class CallbackTargetRefused extends Error {
  readonly code = 'ECALLBACKREFUSED';
  constructor(host: string, address: string, addressClass: AddressClass) {
    const what = host === address ? `${host} is` : `${host} resolves to ${address},`;
    const article = addressClass === 'unspecified' || addressClass === 'invalid' ? 'an' : 'a';
    super(`refused: ${what} ${article} ${addressClass} address (not listed in COLIBRI_CALLBACK_ALLOW_HOSTS)`);
    this.name = 'CallbackTargetRefused';
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export interface OutboundGuard {
  /** Checks the host and addresses; throws CallbackTargetRefused. @example await guard.resolve('shop.example') */
  resolve(hostname: string): Promise<ResolvedAddress[]>;
  /** Checks a URL whose host is an IP literal (those never reach a DNS lookup). @example guard.checkLiteral(new URL(url)) */
  checkLiteral(url: URL): void;
  /** For `net.connect`'s `lookup` option: resolves once, checks, and connects to what it checked. */
  readonly lookup: LookupFunction;
}

/**
 * The guard of the delivery worker for a configuration: the allow list, plus loopback in sandbox
 * mode, where developers run their callback receivers on their own machine (CONTRACTS.md,
 * "callback targets"). Live mode reaches loopback only through the allow list.
 * @example const guard = callbackGuardFor(ctx.config);
 */
export function callbackGuardFor(config: { mode: 'sandbox' | 'live'; callbackAllowHosts: readonly string[] }, resolver: Resolver = systemResolver): OutboundGuard {
  return createOutboundGuard(config.callbackAllowHosts, resolver, { allowLoopback: config.mode === 'sandbox' });
}

/**
 * Builds the guard for the configured allow list. The lookup it returns is given to the HTTP agent
 * as the socket's resolver, so the address that is checked is the address that is connected to:
 * a DNS answer that changes between a check and the connection (DNS rebinding) cannot slip through,
 * because there is no second lookup.
 * @example
 * const guard = createOutboundGuard(['127.0.0.1', 'localhost']);
 * new Agent({ connect: { lookup: guard.lookup } });
 */
export function createOutboundGuard(
  allowHosts: readonly string[],
  resolver: Resolver = systemResolver,
  options: { allowLoopback?: boolean } = {},
): OutboundGuard {
  const allowed = new Set(allowHosts.map(normalizeHost));
  const check = (host: string, address: string) => {
    if (allowed.has(host) || allowed.has(normalizeHost(address))) return;
    const addressClass = classifyAddress(address);
    if (addressClass === 'public' || (addressClass === 'loopback' && options.allowLoopback === true)) return;
    throw new CallbackTargetRefused(host, address, addressClass);
  };

  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    const host = normalizeHost(hostname);
    const addresses = await resolver(host);
    if (addresses.length === 0) throw new Error(`dns: ${host} has no addresses`);
    // Every address must pass: a host that answers with one public and one private address could
    // otherwise be steered to the private one by whichever the connection happens to try.
    for (const a of addresses) check(host, a.address);
    return addresses;
  };

  const lookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        const picked = wanted.length > 0 ? wanted : addresses;
        const first = picked[0] as ResolvedAddress;
        if (options.all) callback(null, picked);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };

  return {
    resolve,
    lookup,
    checkLiteral(url) {
      const host = normalizeHost(url.hostname);
      if (isIP(host) !== 0) check(host, host);
    },
  };
}
