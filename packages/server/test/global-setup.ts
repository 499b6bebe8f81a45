import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Before any test file runs: bring the built service (dist/, `npm run build`) up to date once. Tests that
 * start `colibri` as a child process run dist/, which each start rebuilds when the sources changed; with
 * several test files at once, those builds would otherwise run side by side in every file's first child.
 */
export default function setup(): void {
  const cli = fileURLToPath(new URL('../bin/colibri.js', import.meta.url));
  execFileSync(process.execPath, [cli, '--help'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
