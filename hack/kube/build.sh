#!/usr/bin/env bash
# Builds the real Kubernetes binaries Pacer tests against (kubectl, kube-apiserver,
# kube-controller-manager, kube-scheduler, etcd, kwok and the test bed's launcher) from the Go module
# in this directory, once per machine: the binaries are kept in a cache directory named after a
# hash of go.mod, go.sum and this script, so a second run builds nothing; the two built from
# sources here (kubectl, kube-bed) are rebuilt when those change.
#
#   hack/kube/build.sh kubectl     # kubectl only (what the simulated cluster's end-to-end tests need)
#   hack/kube/build.sh all         # every binary (the real control plane too)
#   hack/kube/build.sh --bin-dir   # print where the binaries are (or will be), build nothing
#
# The cache is $PACER_CACHE_DIR, else $XDG_CACHE_HOME/pacer, else ~/.cache/pacer. Concurrent runs
# wait for each other (flock). Go must be installed; exits 3 when it is not.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

release=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2; exit }' go.mod)
[ -n "$release" ] || { echo "hack/kube/build.sh: no k8s.io/kubernetes version in go.mod" >&2; exit 1; }
key=$(cat build.sh go.mod go.sum | sha256sum | cut -c1-12)
cache=${PACER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pacer}
bin=$cache/kube-$release-$key/bin

# What each binary is built from: a main package of this module or one of its go.mod tools.
declare -A source=(
  [kubectl]=./cmd/kubectl
  [kube-bed]=./cmd/kube-bed
  [kube-apiserver]=k8s.io/kubernetes/cmd/kube-apiserver
  [kube-controller-manager]=k8s.io/kubernetes/cmd/kube-controller-manager
  [kube-scheduler]=k8s.io/kubernetes/cmd/kube-scheduler
  [etcd]=go.etcd.io/etcd/server/v3
  [kwok]=sigs.k8s.io/kwok/cmd/kwok
)
all=(kubectl kube-bed etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

case "${1:-}" in
  --bin-dir) echo "$bin"; exit 0 ;;
  kubectl) want=(kubectl) ;;
  all) want=("${all[@]}") ;;
  *) echo "usage: hack/kube/build.sh kubectl|all|--bin-dir" >&2; exit 2 ;;
esac

# A binary built from this directory's sources is also rebuilt when they change: its stamp file
# holds the hash of its package's files.
stamp_of() {
  case "${source[$1]}" in
    ./*) find "${source[$1]}" -type f -name '*.go' | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12 ;;
    *) echo module ;;
  esac
}
current() { [ -x "$bin/$1" ] && [ "$(cat "$bin/.$1.stamp" 2>/dev/null)" = "$(stamp_of "$1")" ]; }

missing=()
for b in "${want[@]}"; do current "$b" || missing+=("$b"); done
[ ${#missing[@]} -gt 0 ] || { echo "$bin"; exit 0; }

command -v go >/dev/null || {
  echo "hack/kube/build.sh: go is not installed: it builds kubectl and the real control plane from the Go module proxy (install Go 1.26 or newer)" >&2
  exit 3
}

mkdir -p "$bin"
exec 9>"$cache/.build.lock"
flock 9
# The release's version strings, as upstream's hack/lib/version.sh sets them at link time, so that
# `kubectl version` and the API server's /version report the release rather than v0.0.0-master.
minor=${release#v1.}; minor=${minor%%.*}
date=$(go list -m -f '{{.Time.Format "2006-01-02T15:04:05Z"}}' k8s.io/kubernetes)
ldflags="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $p.gitVersion=$release -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=$date"
done

for b in "${missing[@]}"; do
  current "$b" && continue # built by a concurrent run while this one waited for the lock
  echo "building $b ($release) into $bin" >&2
  start=$SECONDS
  # Static binaries, as upstream builds them; GOTOOLCHAIN=local: never fetch another Go.
  CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=readonly \
    go build -trimpath -ldflags "$ldflags" -o "$bin/.$b.tmp" "${source[$b]}"
  mv "$bin/.$b.tmp" "$bin/$b"
  stamp_of "$b" >"$bin/.$b.stamp"
  echo "built $b in $((SECONDS - start)) s" >&2
done
echo "$bin"
