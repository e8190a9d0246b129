#!/usr/bin/env bash
# Installs the system tools the test suite uses beyond npm packages: promtool (Debian's prometheus
# package) for the alert rules in manifests/monitoring/. Needs root for apt-get; without root it
# says what to install, and the promtool tests skip with that reason (they fail when CI=true).
set -euo pipefail
command -v kubectl >/dev/null || echo "warning: kubectl is not on PATH: the end-to-end tests need it" >&2
if ! command -v promtool >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing promtool (apt-get install prometheus)" >&2
    export DEBIAN_FRONTEND=noninteractive
    # A failed install does not stop the suite: the promtool tests then say what is missing.
    { apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends prometheus >/dev/null; } ||
      echo "warning: could not install Debian's prometheus package: the promtool tests will say so" >&2
  else
    echo "warning: promtool is not on PATH (install Debian's prometheus package): the alert rule tests will skip" >&2
  fi
fi
