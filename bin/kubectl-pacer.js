#!/bin/sh
":" //; f=$0; case $f in */*) ;; *) f=./$f ;; esac; while [ -L "$f" ]; do l=$(readlink "$f"); case $l in /*) f=$l ;; *) f=${f%/*}/$l ;; esac; done; n=${f%/*}/../node_modules/node/bin/node; [ -x "$n" ] || n=node; exec "$n" "$f" "$@"
// The kubectl plugin's launcher: `kubectl pacer ...` runs this file (bin/kubectl-pacer links to it).
// The line above is for the shell, and a string and a comment for Node: run as a program, the
// shell starts the pinned Node 24 of node_modules/ on this same file (following links to it), or
// the node on PATH when there is none, at once, where `#!/usr/bin/env node` would start an older
// node on PATH first only for it to start Node 24 (bin/launch.js). Then the plugin's bundle
// runs, or its sources (docs/plugin.md, "Start-up time").
import { launch } from './launch.js';
await launch('src/cli/kubectl-pacer.ts', { bundle: 'dist/plugin', name: 'kubectl-pacer' });
