/**
 * A benchmark's targets, each printed with the figure measured and PASS or BELOW (docs/performance.md).
 * A target is what an issue asked for; a figure that was not measured in the run (a latency left out of
 * BENCH_LATENCIES) prints NOT RUN rather than passing.
 *
 *   const targets = new Targets('issue 35');
 *   targets.atLeast('settled / pgbench TPC-B (fair), 200 ms', 0.74, 0.8, 'x');
 *   targets.print(); // "BELOW  settled / pgbench TPC-B (fair), 200 ms: 0.74x (target ≥ 0.8x)"
 */
export class Targets {
  private readonly lines: string[] = [];

  constructor(private readonly source: string) {}

  atLeast(figure: string, value: number | undefined, target: number, unit = ''): void {
    this.add(figure, value, target, unit, '≥', value !== undefined && value >= target);
  }

  atMost(figure: string, value: number | undefined, target: number, unit = ''): void {
    this.add(figure, value, target, unit, '≤', value !== undefined && value <= target);
  }

  print(): void {
    console.log(`\ntargets (${this.source}):\n${this.lines.join('\n')}`);
  }

  private add(figure: string, value: number | undefined, target: number, unit: string, sign: string, met: boolean): void {
    const shown = value === undefined || Number.isNaN(value) ? 'not measured' : `${round(value)}${unit}`;
    const verdict = value === undefined || Number.isNaN(value) ? 'NOT RUN' : met ? 'PASS' : 'BELOW';
    this.lines.push(`${verdict.padEnd(7)} ${figure}: ${shown} (target ${sign} ${round(target)}${unit})`);
  }
}

function round(n: number): string {
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2);
}
