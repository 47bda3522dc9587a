# syntax=docker/dockerfile:1
#
# The Sculptor gateway. Node 24 runs the TypeScript sources directly (type
# stripping), so there is no build step: the image holds production
# dependencies, src/ and the sculpts, and nothing else.
#
#   docker build -t sculptor .
#   docker run -p 8080:8080 -e SCULPTOR_SECRET=… sculptor
#
# Sculpts are baked in at /app/sculpts (SCULPTOR_SCULPTS). To serve others,
# mount a folder over it: -v "$PWD/my-sculpts:/app/sculpts:ro".
# Pin the base by digest in production: --build-arg NODE_IMAGE=node:24-slim@sha256:…

ARG NODE_IMAGE=node:24-slim

# --- deps: production node_modules only ---------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- runtime --------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# tini as PID 1: forwards SIGTERM to Node and reaps zombies (Node is not meant to be PID 1).
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    SCULPTOR_SCULPTS=/app/sculpts \
    SCULPTOR_DRAIN_MS=8000
WORKDIR /app
# Owned by root, read-only to the app: the gateway writes nothing to disk.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY sculpts ./sculpts
# The node user (uid 1000) of the official image.
USER node
EXPOSE 8080
# The slim image has no curl: Node's fetch asks /readyz.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
# Exec form, telemetry register first: the SDK starts before anything it instruments.
# --max-semi-space-size=16: V8 otherwise sizes the young generation from the host's memory and
# keeps ~100 MB of it after start-up (docs/PERFORMANCE.md, "Catalog and start-up").
CMD ["node", "--max-semi-space-size=16", "--import", "./src/telemetry/register.ts", "src/cli/main.ts", "serve"]
