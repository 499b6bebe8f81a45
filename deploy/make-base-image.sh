#!/usr/bin/env bash
# Makes a base image equivalent to node:20-bookworm-slim where Docker Hub cannot be reached but Debian's
# mirror can: a minimal Debian bookworm (debootstrap) with this machine's Node.js 20 and npm, and its CA
# certificates (so `npm ci` in the build trusts the same registry chain as the machine does).
#
#   sudo deploy/make-base-image.sh                 # → colibri-base:bookworm-node20 (about 2 minutes)
#   BASE_IMAGE=colibri-base:bookworm-node20 deploy/test-image.sh
#   docker build --build-arg BASE_IMAGE=colibri-base:bookworm-node20 -t colibri .
#
# Needs root, debootstrap (apt-get install debootstrap), a running Docker daemon and Node.js 20 on the
# machine. The official image stays the Dockerfile's default.
set -euo pipefail

TAG=${TAG:-colibri-base:bookworm-node20}
MIRROR=${MIRROR:-http://deb.debian.org/debian}

node_bin=$(command -v node)
node_major=$("$node_bin" -p 'process.versions.node.split(".")[0]')
[ "$node_major" = 20 ] || { echo "Node.js 20 is needed on this machine (found $("$node_bin" --version))" >&2; exit 1; }
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")

root=$(mktemp -d /var/tmp/colibri-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase bookworm "$root" "$MIRROR" >/tmp/colibri-base-debootstrap.log 2>&1 ||
  { tail -20 /tmp/colibri-base-debootstrap.log >&2; exit 1; }

# Where the official image has them: /usr/local/bin/node, npm under /usr/local/lib/node_modules.
install -m 755 "$(readlink -f "$node_bin")" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
mkdir -p "$root/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
chroot "$root" /usr/local/bin/node --version >/dev/null
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' - "$TAG" >/dev/null
echo "$TAG: Debian bookworm with Node.js $("$node_bin" --version)"
