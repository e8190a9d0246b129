#!/usr/bin/env bash
# Builds cmd/pacer-image (on github.com/google/go-containerregistry, from the Go module proxy), the
# tool `make image` lays out Pacer's controller image with when no Docker daemon is at hand, once per
# machine: it is kept in a cache directory named after a hash of go.mod, go.sum, this script and
# cmd/'s sources, so a second run builds nothing.
#
#   hack/image/build.sh            # build (or find) pacer-image; prints its directory
#   hack/image/build.sh --bin-dir  # print where it is (or will be), build nothing
#
# The cache is $PACER_CACHE_DIR, else $XDG_CACHE_HOME/pacer, else ~/.cache/pacer, as for ../kube.
# Concurrent runs wait for each other (flock). Go must be installed; exits 3 when it is not.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

release=$(awk -v m=github.com/google/go-containerregistry '{ for (i = 1; i < NF; i++) if ($i == m && $(i + 1) ~ /^v/) { print $(i + 1); exit } }' go.mod)
[ -n "$release" ] || { echo "hack/image/build.sh: no github.com/google/go-containerregistry version in go.mod" >&2; exit 1; }
key=$(cat build.sh go.mod go.sum $(find cmd -name '*.go' | sort) | sha256sum | cut -c1-12)
cache=${PACER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pacer}
bin=$cache/image-ggcr-$release-$key/bin

case "${1:-}" in
  --bin-dir) echo "$bin"; exit 0 ;;
  '') ;;
  *) echo "usage: hack/image/build.sh [--bin-dir]" >&2; exit 2 ;;
esac

[ -x "$bin/pacer-image" ] && { echo "$bin"; exit 0; }

command -v go >/dev/null || {
  echo "hack/image/build.sh: go is not installed: it builds pacer-image from the Go module proxy (install Go 1.26 or newer)" >&2
  exit 3
}

mkdir -p "$bin"
exec 9>"$cache/.build-image.lock"
flock 9
[ -x "$bin/pacer-image" ] && { echo "$bin"; exit 0; } # built by a concurrent run while this one waited

echo "building pacer-image (go-containerregistry $release) into $bin" >&2
start=$SECONDS
CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=readonly \
  go build -trimpath -ldflags "-s -w" -o "$bin/.pacer-image.tmp" ./cmd/pacer-image
mv "$bin/.pacer-image.tmp" "$bin/pacer-image"
echo "built pacer-image in $((SECONDS - start)) s" >&2
echo "$bin"
