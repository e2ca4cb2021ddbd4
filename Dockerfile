# One image for every Guildhall process: the API (default command), shard processes
# (`node shards/main.ts`) and migrations (`node src/platform/migrate.ts`).
# Node 24 runs the TypeScript sources directly (type stripping); the one build is the
# operators' console page, bundled in a stage of its own with the dev dependencies.

# Build stage: `npm run build:console` (esbuild, preact) writes dist/console/.
FROM node:24-slim AS console
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# The build script and the page's sources are all it reads.
COPY ops/console/build.ts ./ops/console/build.ts
COPY src/admin/console ./src/admin/console
RUN node ops/console/build.ts

FROM node:24-slim

ENV NODE_ENV=production
WORKDIR /app

# Dependencies first, so that a change to the sources reuses this layer.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY src ./src
COPY shards ./shards
COPY schema ./schema
COPY --from=console /app/dist/console ./dist/console

# Inside a container the processes listen on every interface; the embedded mode
# (no DATABASE_URL) keeps its data under /app/data (mount a volume there).
# NODE_OPTIONS: the Node flags of package.json's start script (young generation size).
ENV HOST=0.0.0.0 \
    NODE_OPTIONS=--max-semi-space-size=32 \
    PORT=8080 \
    DATA_DIR=/app/data \
    SHARD_HOST=0.0.0.0 \
    SHARD_PORT=34431
RUN mkdir -p /app/data && chown node:node /app/data
USER node

EXPOSE 8080 34431
# Exec form, no shell in between: node is PID 1 and gets the SIGTERM of `docker stop`
# itself; it stops gracefully (the gateway says RECONNECT, the HTTP server drains).
# Compose's commands (docker-compose.yml) are exec form for the same reason.
CMD ["node", "src/main.ts"]
