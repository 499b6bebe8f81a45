// Loaded with `node --import`, with COLIBRI_TEST_HIDDEN_PACKAGES naming packages (comma-separated): the
// process then cannot import them, as when they are not installed. test/build.test.ts hides esbuild, as
// a production install (`npm ci --omit=dev`, as the Dockerfile does) has none; test/developer-cli.test.ts
// hides the service's packages, which the developer's commands must not load.
import { register } from 'node:module';

const hooks = `
let hidden = [];
export async function initialize(data) {
  hidden = data.hidden;
}
export async function resolve(specifier, context, next) {
  const name = hidden.find((p) => specifier === p || specifier.startsWith(p + '/'));
  if (name) {
    const error = new Error("Cannot find package '" + name + "' (hidden by test/fakes/without-packages.mjs)");
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
const hidden = (process.env.COLIBRI_TEST_HIDDEN_PACKAGES ?? '').split(',').filter(Boolean);
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { hidden } });
