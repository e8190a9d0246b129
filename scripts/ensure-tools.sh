#!/usr/bin/env bash
# Installs or builds the programs the test suite uses beyond npm packages, before any test runs:
# * kubectl and the real control plane (kube-bed and its components), built from the Go module in
#   hack/kube and cached per machine (hack/kube/build.sh); test/setup.ts puts them first on PATH;
# * Kubernetes' own e2e test binary and ginkgo, from the Go module in hack/e2e, cached likewise
#   (hack/e2e/build.sh; about 10 minutes the first time on 2 cores), for the upstream Deployment specs;
# * Cluster API's core manager, its in-memory infrastructure provider for kwok and capi-bed, from the
#   Go module in hack/capi, cached likewise (hack/capi/build.sh), for test/e2e/capi.test.ts;
# * Helm, from the Go module in hack/helm, cached likewise (hack/helm/build.sh), for the chart's tests
#   (charts/pacer: helm lint and template, helm install on the real bed);
# * pacer-image, on go-containerregistry from the Go module in hack/image, cached likewise
#   (hack/image/build.sh), which lays out the controller's image without a Docker daemon (make image);
# * Debian's prometheus (promtool for the alert rules in manifests/monitoring/, and the server that
#   scrapes Pacer on the real bed) and python3-kubernetes (the official Python client, driven
#   against both beds), openssl (a test certificate for the client's TLS connection test), and
#   chromium (the dashboard's browser tests drive it headless through playwright-core).
# Without Go or root it says what is missing and the tests that need it skip with that reason;
# under CI=true they fail instead, so a missing Go fails here at once.
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-all}
status=0
hack/kube/build.sh "$what" >/dev/null || status=$?
if [ "$status" -ne 0 ]; then
  if [ "$status" -eq 3 ] && [ "${CI:-}" != true ]; then
    echo "warning: Go is not installed: the tests that need kubectl or the real control plane will skip" >&2
  else
    echo "error: could not build the Kubernetes binaries in hack/kube (exit $status)" >&2
    exit 1
  fi
fi
if [ "$what" = all ] && [ "$status" -eq 0 ]; then
  hack/e2e/build.sh >/dev/null || {
    echo "error: could not build Kubernetes' e2e test binary in hack/e2e" >&2
    exit 1
  }
  hack/capi/build.sh >/dev/null || {
    echo "error: could not build Cluster API's managers in hack/capi" >&2
    exit 1
  }
  hack/helm/build.sh >/dev/null || {
    echo "error: could not build Helm in hack/helm" >&2
    exit 1
  }
  hack/image/build.sh >/dev/null || {
    echo "error: could not build pacer-image in hack/image" >&2
    exit 1
  }
fi

# Debian's packages: each with the check that says it is there.
packages=()
command -v promtool >/dev/null || packages+=(prometheus)
/usr/bin/python3 -c 'import kubernetes' 2>/dev/null || packages+=(python3-kubernetes)
command -v openssl >/dev/null || packages+=(openssl)
command -v chromium >/dev/null || packages+=(chromium)
if [ ${#packages[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's ${packages[*]} (apt-get install)" >&2
    export DEBIAN_FRONTEND=noninteractive
    # A failed install does not stop the suite: the tests that need a package then say it is missing.
    { apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null; } ||
      echo "warning: could not install Debian's ${packages[*]}: the tests that need them will say so" >&2
  else
    echo "warning: Debian's ${packages[*]} not installed (not root): the tests that need them will skip" >&2
  fi
fi
