import { Registry } from 'prom-client';

/**
 * Series measured inside this process by code that has no Fastify app at hand (the processor wrapper,
 * used by HTTP routes and background jobs alike). /metrics serves them beside the app's own registry.
 * One per process: several apps in one process (tests) share it, as they share the processor.
 */
export const processRegistry = new Registry();
