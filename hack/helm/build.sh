#!/usr/bin/env bash
# Builds Helm's command-line client (helm.sh/helm/v4's cmd/helm, unchanged) from the Go module in this
# directory, once per machine: it is kept in a cache directory named after a hash of go.mod, go.sum
# and this script, so a second run builds nothing. The chart's tests (charts/pacer) run it:
# `helm lint` and `helm template` in test/unit, `helm install` on the real bed in test/e2e.
#
#   hack/helm/build.sh            # build (or find) helm; prints its directory
#   hack/helm/build.sh --bin-dir  # print where it is (or will be), build nothing
#
# The cache is $PACER_CACHE_DIR, else $XDG_CACHE_HOME/pacer, else ~/.cache/pacer, as for ../kube.
# Concurrent runs wait for each other (flock). Go must be installed; exits 3 when it is not.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

release=$(awk -v m=helm.sh/helm/v4 '{ for (i = 1; i < NF; i++) if ($i == m && $(i + 1) ~ /^v/) { print $(i + 1); exit } }' go.mod)
[ -n "$release" ] || { echo "hack/helm/build.sh: no helm.sh/helm/v4 version in go.mod" >&2; exit 1; }
key=$(cat build.sh go.mod go.sum | sha256sum | cut -c1-12)
cache=${PACER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pacer}
bin=$cache/helm-$release-$key/bin

case "${1:-}" in
  --bin-dir) echo "$bin"; exit 0 ;;
  '') ;;
  *) echo "usage: hack/helm/build.sh [--bin-dir]" >&2; exit 2 ;;
esac

[ -x "$bin/helm" ] && { echo "$bin"; exit 0; }

command -v go >/dev/null || {
  echo "hack/helm/build.sh: go is not installed: it builds Helm from the Go module proxy (install Go 1.26 or newer)" >&2
  exit 3
}

mkdir -p "$bin"
exec 9>"$cache/.build-helm.lock"
flock 9
[ -x "$bin/helm" ] && { echo "$bin"; exit 0; } # built by a concurrent run while this one waited

# Helm's version strings, as its Makefile sets them for a tagged release (`helm version` prints them).
ldflags="-s -w -X helm.sh/helm/v4/internal/version.version=$release -X helm.sh/helm/v4/internal/version.metadata= -X helm.sh/helm/v4/internal/version.gitTreeState=clean"
echo "building helm ($release) into $bin" >&2
start=$SECONDS
CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=readonly \
  go build -trimpath -ldflags "$ldflags" -o "$bin/.helm.tmp" helm.sh/helm/v4/cmd/helm
mv "$bin/.helm.tmp" "$bin/helm"
echo "built helm in $((SECONDS - start)) s" >&2
echo "$bin"
