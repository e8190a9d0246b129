// `kubectl-pacer`: the kubectl plugin (`kubectl pacer ...` once bin/kubectl-pacer.js, or a link to
// it named kubectl-pacer, is on PATH). The commands live in src/plugin/.

import { runPlugin } from '../plugin/program.ts';

const interrupt = new AbortController();
// Ctrl-C ends watches cleanly (a second one kills at once).
process.once('SIGINT', () => {
  interrupt.abort();
  process.once('SIGINT', () => process.exit(130));
});
process.once('SIGTERM', () => interrupt.abort());

const code = await runPlugin(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr },
  interrupt.signal,
);
// Exit once stdout is flushed: idle keep-alive connections must not hold the process open.
process.stdout.write('', () => process.exit(code));
