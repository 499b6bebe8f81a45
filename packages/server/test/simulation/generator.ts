import type { Prng } from './prng';

/**
 * The seeded generator: what happens next, drawn from the seed's PRNG given how many merchants,
 * payments and due jobs there are. Indexes are resolved modulo what exists when the step runs.
 */
export type Command =
  | { kind: 'pay'; merchant: number; cents: number; delayCapture: boolean; declined: boolean }
  | {
      kind: 'capture';
      payment: number;
      share: 'whole' | 'part' | 'over';
      fraction: number;
      /** Sent with an Idempotency-Key; `crash`: the service dies after committing it and before keeping its answer, and the merchant retries. */
      keyed: boolean;
      crash: boolean;
    }
  | { kind: 'cancel'; payment: number }
  | { kind: 'refund'; payment: number; share: 'whole' | 'part' | 'declined'; fraction: number }
  | { kind: 'details'; payment: number };

export type JobMode = 'normal' | 'leave-undeleted' | 'kill-before-processor' | 'kill-after-processor' | 'twice';

export type Step =
  | Command
  | { kind: 'clock'; merchant: number; hours: number }
  | { kind: 'wait'; seconds: number }
  | { kind: 'fault'; merchant: number; operation: 'authorize' | 'capture' | 'cancel' | 'refund' | 'status'; fault: 'TIMEOUT' | 'UNAVAILABLE'; times: number }
  | { kind: 'heal'; merchant: number }
  | { kind: 'drop-connections' }
  | { kind: 'sweep' }
  | { kind: 'job'; pick: number; mode: JobMode; nested: { phase: 'before' | 'after'; command: Command | { kind: 'drop-connections' } } | undefined };

export interface WorldSize {
  merchants: number;
  payments: number;
  dueJobs: number;
}

export function command(prng: Prng, world: WorldSize): Command {
  if (world.payments === 0) return pay(prng, world);
  const kind = prng.weighted({ pay: 10, capture: 14, cancel: 6, refund: 7, details: 4 });
  const payment = prng.int(0, world.payments - 1);
  switch (kind) {
    case 'pay':
      return pay(prng, world);
    case 'capture': {
      const keyed = prng.chance(0.3);
      return { kind, payment, share: prng.weighted({ whole: 5, part: 4, over: 1 }), fraction: prng.next(), keyed, crash: keyed && prng.chance(0.15) };
    }
    case 'cancel':
      return { kind, payment };
    case 'refund':
      return { kind, payment, share: prng.weighted({ whole: 3, part: 5, declined: 2 }), fraction: prng.next() };
    case 'details':
      return { kind, payment };
  }
}

function pay(prng: Prng, world: WorldSize): Command {
  return { kind: 'pay', merchant: prng.int(0, world.merchants - 1), cents: prng.int(10, 2000) * 100 + prng.int(0, 99), delayCapture: prng.chance(0.65), declined: prng.chance(0.08) };
}

export function step(prng: Prng, world: WorldSize): Step {
  const weights = {
    command: world.payments === 0 ? 40 : 30,
    job: world.dueJobs > 0 ? 40 : 4,
    clock: 5,
    wait: 5,
    fault: 8,
    heal: 2,
    'drop-connections': 2,
    sweep: 2,
  };
  const kind = prng.weighted(weights);
  const merchant = prng.int(0, world.merchants - 1);
  switch (kind) {
    case 'command':
      return command(prng, world);
    case 'job': {
      const mode = prng.weighted<JobMode>({ normal: 50, 'leave-undeleted': 18, 'kill-before-processor': 5, 'kill-after-processor': 12, twice: 10 });
      const nested = prng.chance(0.25)
        ? { phase: prng.pick(['before', 'after'] as const), command: prng.chance(0.1) ? { kind: 'drop-connections' as const } : command(prng, world) }
        : undefined;
      return { kind, pick: prng.int(0, 7), mode, nested };
    }
    case 'clock':
      return { kind, merchant, hours: prng.pick([1, 6, 24, 48, 72, 120]) };
    case 'wait':
      return { kind, seconds: prng.pick([1, 5, 15, 60, 600, 1800, 3600]) };
    case 'fault':
      return {
        kind,
        merchant,
        operation: prng.weighted({ authorize: 3, capture: 3, cancel: 2, refund: 2, status: 2 }),
        fault: prng.pick(['TIMEOUT', 'UNAVAILABLE'] as const),
        times: prng.int(1, 4),
      };
    case 'heal':
      return { kind, merchant };
    case 'drop-connections':
      return { kind };
    case 'sweep':
      return { kind };
  }
}

/** One line per step, for the trace printed with a failing seed. */
export function describe(step: Step): string {
  const { kind, ...rest } = step;
  const args = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
    .join(' ');
  return args ? `${kind} ${args}` : kind;
}
