#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so `npm start` and `colibri` need no build step.
import { register } from 'tsx/esm/api';

register();
const { buildCli } = await import('../src/cli.ts');
await buildCli().parseAsync(process.argv);
