import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { promisify } from 'node:util';

/**
 * A PostgreSQL cluster of deploy/ha/up.sh (etcd, Patroni nodes, HAProxy) for the failover test and
 * bench/failover.ts: started in a folder of its own, its nodes found and killed through their pid files,
 * stopped with deploy/ha/down.sh.
 */

const run = promisify(execFile);
const ROOT = new URL('../../../', import.meta.url).pathname;
export const UP = `${ROOT}deploy/ha/up.sh`;
export const DOWN = `${ROOT}deploy/ha/down.sh`;
export const PG_BIN = process.env.HA_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** What the cluster needs that this machine lacks: empty when it can run. */
export function missingComponents(): string[] {
  const missing: string[] = [];
  for (const tool of ['patroni', 'patronictl', 'etcd', 'haproxy']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) missing.push(tool);
  }
  if (!existsSync(`${PG_BIN}/postgres`)) missing.push(`PostgreSQL 15 server (${PG_BIN})`);
  return missing;
}

/** One node as its Patroni reports it (GET /cluster). */
export interface Member {
  name: string;
  role: 'leader' | 'replica' | 'sync_standby' | string;
  state: string;
  timeline?: number;
  lag?: number | string;
}

export interface HaCluster {
  readonly dir: string;
  readonly nodes: number;
  /** The application's URL on HAProxy's write port (role colibri, database colibri). */
  readonly url: string;
  /** The same on the read port (replicas only). */
  readonly readUrl: string;
  /** The superuser on the write port. */
  readonly superuserUrl: string;
  readonly restPorts: number[];
  members(): Promise<Member[]>;
  /** The node holding the leader key, once one does. */
  leader(timeoutMs?: number): Promise<string>;
  /** Patroni's pid and its postmaster's pid for a node (`node1`). */
  pids(node: string): { patroni: number | undefined; postmaster: number | undefined };
  /** The node's Patroni log (its PostgreSQL logs there too). */
  log(node: string): string;
  /** Runs up.sh again: whatever is not running starts (a killed node rejoins). */
  up(): Promise<void>;
  down(): Promise<void>;
}

/** A base port with `count` free ports above it on 127.0.0.1, away from 5432 and 8080. */
export async function freePortRange(count: number): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 20_000 + Math.floor(Math.random() * 400) * 100;
    let ok = true;
    for (let p = base; p < base + count && ok; p += 1) ok = await free(p);
    if (ok) return base;
  }
  throw new Error(`no ${count} free ports in a row`);
}

function readEnv(dir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(`${dir}/cluster.env`, 'utf8').split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line);
    if (match) env[match[1]!] = match[2]!.replace(/^"|"$/g, '');
  }
  return env;
}

/**
 * Brings a cluster up in `dir` (deploy/ha/up.sh) and answers its handle. It stops by itself (down.sh)
 * when this process ends, should the caller not get to `down()`.
 */
export async function startCluster(dir: string, nodes = 2): Promise<HaCluster> {
  const base = await freePortRange(25);
  await run(UP, ['--dir', dir, '--nodes', String(nodes), '--base-port', String(base), '--watch-pid', String(process.pid)], { timeout: 150_000 }).catch((error: { stderr?: string; stdout?: string }) => {
    throw new Error(`deploy/ha/up.sh failed: ${error.stderr ?? ''}${error.stdout ?? ''}`);
  });
  const env = readEnv(dir);
  const restPorts = (env.HA_REST_PORTS ?? '').trim().split(/\s+/).map(Number);
  const members = async (): Promise<Member[]> => {
    for (const port of restPorts) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/cluster`, { signal: AbortSignal.timeout(2_000) });
        if (response.ok) return ((await response.json()) as { members: Member[] }).members;
      } catch {
        // that node is down: ask the next
      }
    }
    return [];
  };
  const pidFile = (file: string) => {
    try {
      const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    dir,
    nodes,
    url: env.DATABASE_URL!,
    readUrl: env.DATABASE_READ_URL!,
    superuserUrl: env.HA_SUPERUSER_URL!,
    restPorts,
    members,
    async leader(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const leader = (await members()).find((m) => m.role === 'leader' && m.state === 'running');
        if (leader) return leader.name;
        if (Date.now() > deadline) throw new Error(`no leader after ${timeoutMs} ms: ${JSON.stringify(await members())}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    pids: (node) => ({ patroni: pidFile(`${dir}/${node}.pid`), postmaster: pidFile(`${dir}/${node}/data/postmaster.pid`) }),
    log: (node) => readFileSync(`${dir}/log/${node}.log`, 'utf8'),
    async up() {
      await run(UP, ['--dir', dir], { timeout: 150_000 }).catch((error: { stderr?: string; stdout?: string }) => {
        throw new Error(`deploy/ha/up.sh failed: ${error.stderr ?? ''}${error.stdout ?? ''}`);
      });
    },
    async down() {
      await run(DOWN, ['--dir', dir, '--purge'], { timeout: 60_000 });
    },
  };
}
