import { describe, expect, it } from 'vitest';
import { callbackGuardFor, classifyAddress, createOutboundGuard, type AddressClass } from './outbound-guard';

const TABLE: readonly [string, AddressClass][] = [
  // IPv4
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['1.1.1.1', 'public'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.1', 'public'],
  ['172.15.255.255', 'public'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'shared'],
  ['100.127.255.255', 'shared'],
  ['100.128.0.1', 'public'],
  ['100.100.100.200', 'metadata'],
  ['169.254.0.1', 'link-local'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['192.0.0.192', 'reserved'],
  ['192.0.2.10', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  // IPv6
  ['2606:4700:4700::1111', 'public'],
  ['2a00:1450:4001:82b::200e', 'public'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fec0::1', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['fd00:ec2::254', 'metadata'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['2001:0:4136:e378::1', 'reserved'], // Teredo
  ['100::1', 'reserved'],
  // IPv4 inside IPv6
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:8.8.8.8', 'public'],
  ['::127.0.0.1', 'loopback'],
  // IPv4-translated (::ffff:0:0:0/96, RFC 2765), the form [::ffff:0:7f00:1] takes
  ['::ffff:0:7f00:1', 'loopback'],
  ['::ffff:0:127.0.0.1', 'loopback'],
  ['::ffff:0:a00:1', 'private'],
  ['::ffff:0:a9fe:a9fe', 'metadata'],
  ['0:0:0:0:ffff:0:c0a8:1', 'private'],
  ['::ffff:0:808:808', 'public'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['2002:a00:1::', 'private'], // 6to4 of 10.0.0.1
  ['2002:808:808::', 'public'], // 6to4 of 8.8.8.8
  // Not addresses
  ['example.com', 'invalid'],
  ['256.1.1.1', 'invalid'],
  ['1:2:3:4:5:6:7:8:9', 'invalid'],
  ['::1::2', 'invalid'],
];

describe('classifyAddress', () => {
  it.each(TABLE)('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe('outbound guard', () => {
  const resolver = async (host: string) => {
    const answers: Record<string, { address: string; family: 4 | 6 }[]> = {
      'shop.example': [{ address: '93.184.216.34', family: 4 }],
      'rebind.example': [{ address: '10.0.0.1', family: 4 }],
      'mixed.example': [
        { address: '93.184.216.34', family: 4 },
        { address: '::1', family: 6 },
      ],
      'internal.example': [{ address: '192.168.0.10', family: 4 }],
    };
    const found = answers[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };

  it('lets public hosts through and refuses hosts with any non-public address', async () => {
    const guard = createOutboundGuard([], resolver);
    await expect(guard.resolve('shop.example')).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
    await expect(guard.resolve('rebind.example')).rejects.toThrow(/refused: rebind\.example resolves to 10\.0\.0\.1, a private address/);
    await expect(guard.resolve('mixed.example')).rejects.toThrow(/::1, a loopback address/);
  });

  it('allows listed hosts, and listed addresses, whatever they resolve to', async () => {
    const guard = createOutboundGuard(['internal.example', '10.0.0.1'], resolver);
    await expect(guard.resolve('INTERNAL.example.')).resolves.toHaveLength(1);
    await expect(guard.resolve('rebind.example')).resolves.toHaveLength(1);
    expect(() => guard.checkLiteral(new URL('http://10.0.0.1/hook'))).not.toThrow();
    expect(() => guard.checkLiteral(new URL('http://127.0.0.1/hook'))).toThrow(/loopback/);
    expect(() => guard.checkLiteral(new URL('http://[::ffff:a9fe:a9fe]/hook'))).toThrow(/metadata/);
    // WHATWG URL parsing turns numeric host forms into dotted ones before the check sees them.
    expect(() => guard.checkLiteral(new URL('http://2130706433/hook'))).toThrow(/127\.0\.0\.1 is a loopback/);
    expect(() => guard.checkLiteral(new URL('http://0x7f.1/hook'))).toThrow(/loopback/);
    expect(() => guard.checkLiteral(new URL('https://shop.example/hook'))).not.toThrow();
  });

  it('refuses IPv4-translated and IPv4-mapped literals by the IPv4 address inside', () => {
    const guard = createOutboundGuard([], resolver);
    for (const url of ['http://[::ffff:0:7f00:1]/cb', 'http://[::ffff:7f00:1]/cb', 'http://[::ffff:127.0.0.1]/cb', 'http://[::ffff:0:a9fe:a9fe]/cb', 'http://[::ffff:0:10.1.2.3]/cb']) {
      expect(() => guard.checkLiteral(new URL(url)), url).toThrow(/refused/);
    }
    expect(() => guard.checkLiteral(new URL('http://[::ffff:0:808:808]/cb'))).not.toThrow();
  });

  it('lets loopback through when asked (sandbox), and nothing else that is not public', async () => {
    const sandbox = callbackGuardFor({ mode: 'sandbox', callbackAllowHosts: [] }, resolver);
    for (const url of ['http://127.0.0.1:4000/cb', 'http://[::1]/cb', 'http://127.9.9.9/cb', 'http://[::ffff:0:7f00:1]/cb']) {
      expect(() => sandbox.checkLiteral(new URL(url)), url).not.toThrow();
    }
    expect(() => sandbox.checkLiteral(new URL('http://10.0.0.1/cb'))).toThrow(/private/);
    expect(() => sandbox.checkLiteral(new URL('http://169.254.169.254/cb'))).toThrow(/metadata/);
    await expect(sandbox.resolve('mixed.example')).resolves.toHaveLength(2);
    await expect(sandbox.resolve('internal.example')).rejects.toThrow(/private/);
    const live = callbackGuardFor({ mode: 'live', callbackAllowHosts: [] }, resolver);
    expect(() => live.checkLiteral(new URL('http://127.0.0.1:4000/cb'))).toThrow(/loopback/);
    await expect(live.resolve('mixed.example')).rejects.toThrow(/loopback/);
  });

  it('resolves once per connection and hands the socket the address it checked', async () => {
    let calls = 0;
    const guard = createOutboundGuard([], async () => {
      calls += 1;
      return calls === 1 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    });
    const answer = await new Promise<unknown>((resolve, reject) =>
      guard.lookup('flip.example', { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
    );
    expect(answer).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(calls).toBe(1);
    const second = await new Promise<Error | null>((resolve) => guard.lookup('flip.example', {}, (error) => resolve(error)));
    expect(second?.message).toMatch(/127\.0\.0\.1, a loopback address/);
  });
});
