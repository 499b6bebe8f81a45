// Loaded with `node --import` (test/build.test.ts): the process then behaves as a production install
// (`npm ci --omit=dev`, as the Dockerfile does), where esbuild is not installed, so importing it fails
// as importing a missing package does.
import { register } from 'node:module';

const hooks = `
export async function resolve(specifier, context, next) {
  if (specifier === 'esbuild' || specifier.startsWith('esbuild/')) {
    const error = new Error("Cannot find package 'esbuild' (a production install has no development dependencies)");
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
