// Preloaded into a `colibri` child (NODE_OPTIONS=--require=…) by lifecycle.test.ts: right after the process
// announces that it runs ("is running at", "worker running"), it writes whether SIGTERM has a handler yet.
// A supervisor may stop a process as soon as it reads that line, and without a handler the signal ends it at once.
const write = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) => {
  const written = write(chunk, ...rest);
  if (/is running at|worker running/.test(String(chunk))) write(`SIGTERM handled when ready: ${process.listenerCount('SIGTERM') > 0}\n`);
  return written;
};
