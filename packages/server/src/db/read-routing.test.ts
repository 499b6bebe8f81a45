import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { connectAndOpen, type ConnectionSource } from './read-routing';

/** A connection that answers its statements until the `failAt`-th, which fails with `error`; `released` records how it was given back. */
function connection(failAt: number | undefined, error: Error) {
  const ran: string[] = [];
  const state = { ran, released: undefined as unknown };
  const client = {
    query: async (text: string) => {
      ran.push(text);
      if (ran.length === failAt) throw error;
      return { rows: [] };
    },
    release: (reason?: unknown) => void (state.released = reason ?? 'returned'),
  } as unknown as pg.PoolClient;
  return { client, state };
}

function sourceOf(...connections: ReturnType<typeof connection>[]): ConnectionSource {
  let next = 0;
  return { connect: async () => connections[next++]!.client } as ConnectionSource;
}

const open = async (c: pg.PoolClient) => {
  await c.query('begin isolation level repeatable read read only');
  await c.query('set local jit = off');
  await c.query('explain select 1');
  return 'opened';
};

describe('connectAndOpen', () => {
  it('opens again on another connection when the first is lost after its begin, and destroys the lost one', async () => {
    const lost = new Error('Connection terminated unexpectedly');
    const first = connection(2, lost);
    const second = connection(undefined, lost);
    const { client, opened } = await connectAndOpen(sourceOf(first, second), open);
    expect(client).toBe(second.client);
    expect(opened).toBe('opened');
    expect(first.state.ran).toEqual(['begin isolation level repeatable read read only', 'set local jit = off']);
    expect(first.state.released).toBe(lost);
    expect(second.state.ran).toHaveLength(3);
    expect(second.state.released).toBeUndefined();
  });

  it('does not open again after a refusal that is not a lost connection, and destroys the connection it leaves in a transaction', async () => {
    const refused = Object.assign(new Error('syntax error at or near "selec"'), { code: '42601' });
    const first = connection(3, refused);
    const second = connection(undefined, refused);
    await expect(connectAndOpen(sourceOf(first, second), open)).rejects.toBe(refused);
    expect(first.state.released).toBe(refused);
    expect(second.state.ran).toEqual([]);
  });

  it('gives up after a second lost connection', async () => {
    const lost = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const [first, second] = [connection(1, lost), connection(2, lost)];
    await expect(connectAndOpen(sourceOf(first, second), open)).rejects.toBe(lost);
    expect([first.state.released, second.state.released]).toEqual([lost, lost]);
  });
});
