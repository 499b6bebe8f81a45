// What a process allocates, by the function that allocated it, collected objects included: preloaded
// into the service's processes with
//
//   BENCH_NODE_ARGS='--import ./bench/allocation-sampling.mjs' BENCH_TOPOLOGY=split npx tsx bench/payments.ts
//
// it starts V8's sampling heap profiler through the inspector with the flags that keep the samples of
// objects the collector has freed, and writes <dir>/<pid>.heapprofile (BENCH_ALLOCATIONS_DIR, default
// /tmp/allocations) after BENCH_ALLOCATIONS_MS (default 25,000) or at exit, whichever comes first. Node's
// own --heap-prof keeps only what is still alive when the process ends, which cannot say what keeps the
// collector busy. The file opens in Chrome's DevTools (Memory tab). docs/performance.md has what it found.
import inspector from 'node:inspector';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const directory = process.env.BENCH_ALLOCATIONS_DIR ?? '/tmp/allocations';
const session = new inspector.Session();
session.connect();
session.post('HeapProfiler.enable');
// One sample per 16 KB allocated on average: enough samples over a run of seconds, little overhead.
session.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });

let written = false;
function write() {
  if (written) return;
  written = true;
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error) {
      process.stderr.write(`allocation sampling: ${error.message}\n`);
      return;
    }
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, `${process.pid}.heapprofile`), JSON.stringify(result.profile));
  });
}
setTimeout(write, Number(process.env.BENCH_ALLOCATIONS_MS ?? 25_000)).unref();
process.on('exit', write);
