# The Sculptor gateway. Node 24 runs the TypeScript sources directly (type
# stripping), so there is no build step: the image holds Node, tini, production
# dependencies, src/ and the sculpts, and nothing else (no shell, no package
# manager: a distroless-style runtime assembled from the Node image's own files).
#
#   docker build -t sculptor .
#   docker run -p 8080:8080 -e SCULPTOR_SECRET=… sculptor
#
# Sculpts are baked in at /app/sculpts (SCULPTOR_SCULPTS). To serve others,
# mount a folder over it: -v "$PWD/my-sculpts:/app/sculpts:ro".
# Pin the base by digest in production: --build-arg NODE_IMAGE=node:24-slim@sha256:…
#
# Behind a registry mirror or a TLS-inspecting proxy (deploy/README.md, "Building behind a mirror"):
#   docker build --build-arg npm_config_registry="$(npm config get registry)" \
#     --secret id=ca-bundle,src=/etc/ssl/certs/ca-certificates.crt -t sculptor .
# HTTP_PROXY/HTTPS_PROXY/NO_PROXY are Docker's predefined build arguments and pass through as usual.
# No `# syntax=` line: the builder's built-in Dockerfile frontend is used, so building needs no
# image from a registry other than NODE_IMAGE.

ARG NODE_IMAGE=node:24-slim

# --- deps: production node_modules only ---------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The registry (a mirror) and extra CAs to trust are build inputs, not part of any layer: the CA
# bundle is a build secret mounted for this step only.
ARG npm_config_registry
RUN --mount=type=secret,id=ca-bundle \
  if [ -s /run/secrets/ca-bundle ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca-bundle; fi \
  && if [ -z "${npm_config_registry:-}" ]; then unset npm_config_registry; fi \
  && npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- os: the few files of the base the runtime needs ------------------------------
# node, the shared libraries it links (ldd), a static tini, and passwd/group entries for the node
# user (uid 1000) — copied into /rootfs, which becomes the runtime's whole operating system.
FROM ${NODE_IMAGE} AS os
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /rootfs/usr/local/bin /rootfs/usr/bin /rootfs/etc /rootfs/tmp /rootfs/app \
  && chmod 1777 /rootfs/tmp \
  && cp /usr/local/bin/node /rootfs/usr/local/bin/node \
  && cp /usr/bin/tini-static /rootfs/usr/bin/tini \
  && for lib in $(ldd /usr/local/bin/node | grep -o '/[^ ]*'); do cp --parents -L "$lib" /rootfs/; done \
  && grep -E '^(root|node):' /etc/passwd > /rootfs/etc/passwd \
  && grep -E '^(root|node):' /etc/group > /rootfs/etc/group \
  && /rootfs/usr/local/bin/node --version

# --- runtime --------------------------------------------------------------------
FROM scratch AS runtime
COPY --from=os /rootfs /
ENV PATH=/usr/local/bin:/usr/bin:/bin \
    NODE_ENV=production \
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
# The node user (uid 1000) of the Node image.
USER node
EXPOSE 8080
# There is no curl nor shell: Node's fetch asks /readyz.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
# tini as PID 1: forwards SIGTERM to Node and reaps zombies (Node is not meant to be PID 1).
ENTRYPOINT ["/usr/bin/tini", "--"]
# Exec form, telemetry register first: the SDK starts before anything it instruments.
# --max-semi-space-size=16: V8 otherwise sizes the young generation from the host's memory and
# keeps ~100 MB of it after start-up (docs/PERFORMANCE.md, "Catalog and start-up").
# --no-allocation-site-pretenuring: a call's objects stay in the young generation, however long
# other calls' objects lived (docs/PERFORMANCE.md, "Measured facts the code relies on").
CMD ["node", "--max-semi-space-size=16", "--no-allocation-site-pretenuring", "--import", "./src/telemetry/register.ts", "src/cli/main.ts", "serve"]
