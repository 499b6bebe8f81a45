import { readFileSync } from 'node:fs';

/** The service version, from the server package's manifest. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
