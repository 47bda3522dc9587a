#!/usr/bin/env bash
# The image, built and run on a real Docker engine, for CI (.ci/run) and by hand:
#
#   sudo test/deploy/docker/run.sh          (root: it may install packages and start dockerd)
#   SCULPTOR_DOCKER_FRESH=1 …               also remake the cached base image
#
# 1. Installs Debian's docker.io, debootstrap and docker-compose when missing, and starts a Docker
#    daemon when none answers (vfs storage, no iptables, no bridge: containers use --network host).
# 2. Makes the stand-in base image (make-base.sh: Debian minbase + Node 24 + CA bundle), unless its
#    tag already exists on this machine, and a Redis stand-in on it.
# 3. Builds Sculptor's image from the Dockerfile with NODE_IMAGE pointing at that base, npm's
#    registry as configured here (read now, never written in the repo) and the CA bundle as a
#    build secret; prints its size and what each layer costs.
# 4. check-container.ts: the container, hardened, healthy, answering, draining on SIGTERM.
# 5. check-compose.ts: docker-compose.yml's gateway, Redis and replay server.
#
# Every wait is bounded; on failure the daemon's and the containers' logs are printed (the compose
# services' by check-compose.ts, before it takes them down); the containers and the built images
# are removed on exit, and, when the daemon was started here, its build cache and the daemon
# itself (the base image is kept: it is the cache).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../../.." && pwd)"
here="$repo/test/deploy/docker"
cd "$repo"
t0=$SECONDS
say() { echo "docker-check: $* (+$((SECONDS - t0)) s)"; }

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  say "installed ${missing[*]}"
fi
# Debian's client: its built-in BuildKit builds with secrets, which a newer client without the
# buildx plugin cannot (it falls back to the legacy builder).
if [ -x /usr/bin/docker ]; then DOCKER=/usr/bin/docker; else DOCKER=docker; fi
export DOCKER DOCKER_BUILDKIT=1 COMPOSE_DOCKER_CLI_BUILD=1 DOCKER_COMPOSE=docker-compose

run_id="sculptorci$$" # container names and the compose project start with it
work="$(mktemp -d /tmp/$run_id.XXXXXX)"
image="sculptor-ci/sculptor:$$"
redis_image="sculptor-ci/redis:$$"
node_version="$("$repo/node_modules/.bin/node" -p process.versions.node)"
base="sculptor-base/node:$node_version-bookworm"
daemon_pid=""
failed=1

cleanup() {
  set +e
  if [ "$failed" = 1 ]; then
    echo "docker-check: FAILED — logs follow" >&2
    for c in $("$DOCKER" ps -aq --filter "name=$run_id" 2>/dev/null); do
      echo "--- container $("$DOCKER" inspect -f '{{.Name}} {{.State.Status}} exit={{.State.ExitCode}}' "$c") ---" >&2
      "$DOCKER" logs --tail 80 "$c" >&2 2>&1
    done
    [ -f "$work/dockerd.log" ] && { echo "--- dockerd ---" >&2; tail -80 "$work/dockerd.log" >&2; }
  fi
  ids="$("$DOCKER" ps -aq --filter "name=$run_id" 2>/dev/null)"
  [ -n "$ids" ] && "$DOCKER" rm -f $ids >/dev/null 2>&1
  "$DOCKER" image rm -f "$image" "$redis_image" >/dev/null 2>&1
  if [ -n "$daemon_pid" ]; then
    # The build cache is all ours only on a daemon started here; on one that was already running
    # it is shared with whatever else builds there, so it is left alone.
    "$DOCKER" builder prune -af >/dev/null 2>&1
    kill -TERM "$daemon_pid" 2>/dev/null
    for _ in $(seq 1 150); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$daemon_pid" 2>/dev/null && { echo "dockerd did not stop in 15 s: killed" >&2; kill -KILL "$daemon_pid"; }
    # Whatever the daemon still had mounted (its containers' shm, netns) goes with it.
    for m in $(awk '$2 ~ "^/(var/lib|run)/docker" { print $2 }' /proc/mounts | sort -r); do umount -l "$m"; done
  fi
  rm -rf "$work"
  say "cleaned up"
}
trap cleanup EXIT

# --- 1. the daemon ------------------------------------------------------------------
if "$DOCKER" info >/dev/null 2>&1; then
  say "using the Docker daemon already running"
else
  dockerd --storage-driver=vfs --iptables=false --bridge=none >"$work/dockerd.log" 2>&1 &
  daemon_pid=$!
  for _ in $(seq 1 300); do "$DOCKER" info >/dev/null 2>&1 && break; kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
  "$DOCKER" info >/dev/null 2>&1 || { echo "dockerd did not answer within 30 s" >&2; exit 1; }
  say "started dockerd (pid $daemon_pid, vfs, no bridge)"
fi

# --- 2. the base images ----------------------------------------------------------------
if [ "${SCULPTOR_DOCKER_FRESH:-}" != 1 ] && "$DOCKER" image inspect "$base" >/dev/null 2>&1; then
  say "base $base: cached on this machine"
else
  timeout 600 "$here/make-base.sh" "$base" 2>&1 | grep -v '^npm warn'
  say "base $base made"
fi
build_started=$SECONDS
timeout 300 "$DOCKER" build --network host -q --build-arg BASE="$base" -t "$redis_image" - <"$here/redis.Dockerfile" >/dev/null
say "redis stand-in built in $((SECONDS - build_started)) s"

# --- 3. Sculptor's image ------------------------------------------------------------------
ca="${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}"
secret=()
[ -s "$ca" ] && secret=(--secret "id=ca-bundle,src=$ca")
build_started=$SECONDS
timeout 600 "$DOCKER" build --network host --progress plain \
  --build-arg NODE_IMAGE="$base" \
  --build-arg npm_config_registry="$(npm config get registry 2>/dev/null)" \
  "${secret[@]}" -t "$image" . >"$work/build.log" 2>&1 || { tail -60 "$work/build.log" >&2; exit 1; }
build_s=$((SECONDS - build_started))
size_mb="$("$DOCKER" image inspect -f '{{.Size}}' "$image" | awk '{ printf "%.0f", $1 / 1e6 }')"
say "built $image in $build_s s: $size_mb MB"
echo "docker-check: layers (size, instruction):"
"$DOCKER" history --format '{{.Size}}	{{.CreatedBy}}' "$image" | awk -F '\t' '$1 != "0B" { printf "  %8s  %s\n", $1, substr($2, 1, 90) }'

# --- 4. the container ------------------------------------------------------------------------
node_bin="$repo/node_modules/.bin/node"
timeout 180 "$node_bin" "$here/check-container.ts" --image "$image" --name "$run_id"
say "container checks passed"

# --- 5. the compose stack -------------------------------------------------------------------
timeout 300 "$node_bin" "$here/check-compose.ts" --gateway "$image" --redis "$redis_image" --project "$run_id"
say "compose checks passed"

echo "FIGURES image size_mb=$size_mb build_s=$build_s total_s=$((SECONDS - t0))"
failed=0
