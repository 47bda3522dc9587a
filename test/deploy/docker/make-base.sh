#!/usr/bin/env bash
# Makes a stand-in for the official node:24 image from Debian packages, for machines that reach
# Debian's and npm's package registries but no image registry: Debian bookworm (debootstrap,
# minbase) + the Node 24 binary of the project's `node` devDependency + npm + this machine's CA
# bundle + the `node` user (uid 1000), imported as one layer.
#
#   test/deploy/docker/make-base.sh TAG      (DOCKER names the client; default: docker)
#
# The Debian mirror is the one apt uses here (read from its sources, never written in the repo).
set -euo pipefail
tag="$1"
docker="${DOCKER:-docker}"
repo="$(cd "$(dirname "$0")/../../.." && pwd)"
node_bin="$repo/node_modules/node/bin/node"
[ -x "$node_bin" ] || { echo "make-base: $node_bin missing: run npm ci first" >&2; exit 1; }

mirror="$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)"
[ -n "$mirror" ] || mirror="$(awk '$1 == "deb" && $0 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)"
[ -n "$mirror" ] || { echo "make-base: no Debian mirror found in apt's sources" >&2; exit 1; }

root="$(mktemp -d /var/tmp/sculptor-base.XXXXXX)"
chmod 0755 "$root" # becomes the image's /, which every user must be able to enter
cleanup() {
  # debootstrap mounts proc/sys inside the target; a run cut short can leave them.
  for m in $(awk -v r="$root" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r); do umount -l "$m" || true; done
  rm -rf "$root"
}
trap cleanup EXIT

started=$SECONDS
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || { tail -30 "$root.log" >&2; rm -f "$root.log"; exit 1; }
rm -f "$root.log"
echo "make-base: debootstrap bookworm minbase in $((SECONDS - started)) s"

# Node 24 as the official image lays it out: /usr/local/bin/node, npm in /usr/local/lib/node_modules.
install -m 0755 "$node_bin" "$root/usr/local/bin/node"
npm_dir="$(npm root -g)/npm"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"

# The machine's CA bundle (a TLS-inspecting proxy's CA included), where Debian keeps it.
mkdir -p "$root/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"

# The node user and group of the official image.
echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$root/etc/passwd"
echo 'node:x:1000:' >>"$root/etc/group"
mkdir -p "$root/home/node" && chown 1000:1000 "$root/home/node"

# What a container never needs.
rm -rf "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/* \
  "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*

tar -C "$root" --numeric-owner -c . | "$docker" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' - "$tag" >/dev/null
echo "make-base: $tag ($("$docker" image inspect -f '{{.Size}}' "$tag" | awk '{ printf "%.0f MB", $1 / 1e6 }')) in $((SECONDS - started)) s"
