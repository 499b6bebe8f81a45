/**
 * A minimal writer of MaxMind DB (MMDB) files, for tests that give Colibri a database of their own
 * (COLIBRI_GEOIP_DATABASE). It writes an IPv4 database, 32-bit records, whose records are the
 * GeoIP2 Country shape `{ country: { iso_code } }`: the search tree, the 16-byte separator, the data
 * section and the metadata, as the MaxMind DB File Format Specification 2.0 lays them out.
 */

type Value = string | number | bigint | Value[] | { [key: string]: Value };

/** One value in the data section's encoding (control byte: type in the top three bits, size in the low five). */
function encode(value: Value): Buffer {
  const control = (type: number, size: number): Buffer => {
    if (size >= 29) throw new Error('the fixture writes only short values');
    return type <= 7 ? Buffer.from([(type << 5) | size]) : Buffer.from([size, type - 7]);
  };
  const unsigned = (type: number, n: bigint, bytes: number): Buffer => {
    const body = Buffer.alloc(bytes);
    for (let i = bytes - 1, rest = n; i >= 0; i--, rest >>= 8n) body[i] = Number(rest & 0xffn);
    return Buffer.concat([control(type, bytes), body]);
  };
  if (typeof value === 'string') return Buffer.concat([control(2, Buffer.byteLength(value)), Buffer.from(value)]);
  if (typeof value === 'number') return unsigned(value > 0xffff ? 6 : 5, BigInt(value), value > 0xffff ? 4 : 2);
  if (typeof value === 'bigint') return unsigned(9, value, 8);
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([k, v]) => [encode(k), encode(v)])]);
}

interface Node {
  children: [Node | number | null, Node | number | null];
}

/**
 * An IPv4 MMDB whose networks (`'200.147.0.0/16'`) answer the given ISO country codes.
 * @example writeCountryMmdb({ '200.147.0.0/16': 'PT' })
 */
export function writeCountryMmdb(networks: Record<string, string>): Buffer {
  const data: Buffer[] = [];
  const offsets: number[] = [];
  let dataLength = 0;
  const root: Node = { children: [null, null] };
  for (const [cidr, country] of Object.entries(networks)) {
    const [address, prefixText] = cidr.split('/') as [string, string];
    const bits = address.split('.').reduce((n, octet) => (n << 8) | Number(octet), 0) >>> 0;
    const record = encode({ country: { iso_code: country } });
    offsets.push(dataLength);
    data.push(record);
    dataLength += record.length;
    let node = root;
    const prefix = Number(prefixText);
    for (let depth = 0; depth < prefix; depth++) {
      const bit = (bits >>> (31 - depth)) & 1;
      if (depth === prefix - 1) node.children[bit] = offsets.length - 1;
      else {
        const next = node.children[bit];
        if (typeof next === 'number') throw new Error('the fixture takes no nested networks');
        node = next ?? (node.children[bit] = { children: [null, null] });
      }
    }
  }
  // Nodes numbered in preorder; a record is a node number, node_count for "no data", or a data pointer.
  const nodes: Node[] = [];
  const number = (node: Node) => {
    nodes.push(node);
    for (const child of node.children) if (child && typeof child === 'object') number(child);
  };
  number(root);
  const tree = Buffer.alloc(nodes.length * 8);
  nodes.forEach((node, i) =>
    node.children.forEach((child, side) => {
      const value = child === null ? nodes.length : typeof child === 'number' ? nodes.length + 16 + offsets[child]! : nodes.indexOf(child);
      tree.writeUInt32BE(value, i * 8 + side * 4);
    }),
  );
  const metadata = encode({
    node_count: nodes.length,
    record_size: 32,
    ip_version: 4,
    database_type: 'Colibri-Test-Country',
    languages: ['en'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: BigInt(Math.floor(Date.now() / 1000)),
    description: { en: 'Test database' },
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com'), metadata]);
}
