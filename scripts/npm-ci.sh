#!/usr/bin/env bash
# `npm ci` for `make install` (and so `make run`, `make test`), on whatever Node runs npm.
#
# Pacer runs on Node >= 22.19 (package.json's engines; its TypeScript is run by Node's type
# stripping, and undici, under @kubernetes/client-node, asks for 22.19). A clone brings its own:
# the `node` devDependency installs Node 24 into node_modules/.bin, which npm scripts, npx and
# bin/launch.js use. So the machine only needs an npm that can run this install (Node 20 or newer).
# Run by an npm on an older Node, `npm ci` warns with five EBADENGINE lines for each package whose
# engines that Node does not meet (Pacer itself, undici, dependency-cruiser, ...: 25 lines on Node
# 20), although none of them will run on it. Those warnings are folded into one line that says
# why; every other line of npm's is shown as npm printed it, and npm's exit status is kept.
set -uo pipefail
cd "$(dirname "$0")/.."

err=$(mktemp)
trap 'rm -f "$err"' EXIT
npm ci --no-audit --no-fund 2>"$err"
status=$?
grep -v '^npm warn EBADENGINE' "$err" >&2
packages=$(grep -c '^npm warn EBADENGINE Unsupported engine' "$err")
if [ "$packages" -gt 0 ]; then
  echo "npm ran on Node $(node --version 2>/dev/null || echo '?'): $packages packages (Pacer among them) ask for a newer Node than this one; they run on the Node 24 this install put in node_modules/.bin (npm's EBADENGINE warnings folded into this line; \`npm ci\` shows them)" >&2
fi
exit "$status"
