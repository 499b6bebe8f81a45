# Colibri's image: the service built once (`npm run build`), run with production dependencies only, as
# an unprivileged user. docs/operations.md shows how to run it; deploy/compose.yaml runs a whole
# deployment (PostgreSQL, migrations, two API processes, a worker and HAProxy). No `# syntax=` line:
# the builder's own Dockerfile frontend reads every instruction used here, so a build needs no image
# but the base.

# The base of every stage: Node.js 20 on Debian bookworm. deploy/make-base-image.sh makes an equivalent
# one where Docker Hub cannot be reached (`--build-arg BASE_IMAGE=colibri-base:bookworm-node20`).
ARG BASE_IMAGE=node:20-bookworm-slim

# --- build: every dependency, then the bundle in packages/server/dist and the 3DS library ---
FROM ${BASE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/server/package.json packages/server/
COPY packages/client-3ds/package.json packages/client-3ds/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY packages ./packages
RUN npm run build

# --- production dependencies only, installed apart so no build tool reaches the image ---
FROM ${BASE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/server/package.json packages/server/
COPY packages/client-3ds/package.json packages/client-3ds/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime: node, production node_modules, the build; no sources, no compiler ---
FROM ${BASE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    COLIBRI_DATA_DIR=/var/lib/colibri
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=deps /app/package.json ./
COPY --from=build /app/packages/server/package.json packages/server/
COPY --from=build /app/packages/server/bin packages/server/bin
COPY --from=build /app/packages/server/scripts packages/server/scripts
COPY --from=build /app/packages/server/dist packages/server/dist
COPY --from=build /app/packages/client-3ds/package.json packages/client-3ds/
COPY --from=build /app/packages/client-3ds/dist packages/client-3ds/dist
# The image's own user (uid 10001), owning only the data directory (PGlite, generated keys).
RUN groupadd --system --gid 10001 colibri \
 && useradd --system --uid 10001 --gid colibri --home-dir /var/lib/colibri --shell /usr/sbin/nologin colibri \
 && mkdir -p /var/lib/colibri && chown colibri:colibri /var/lib/colibri && chmod 700 /var/lib/colibri
USER colibri:colibri
EXPOSE 8080
VOLUME ["/var/lib/colibri"]
# /healthz answers while the process serves; Node's fetch avoids shipping curl. A `worker` container
# has no HTTP and turns this off (deploy/compose.yaml).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The image's first process is node itself, so SIGTERM reaches Colibri, which drains and exits 0.
# Migrations are a step of their own: `docker run … colibri migrate` before starting new versions.
ENTRYPOINT ["node", "packages/server/bin/colibri.js"]
CMD ["serve"]
