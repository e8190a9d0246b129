// How every long-running `pacer` command ends: SIGINT or SIGTERM stops it gracefully and exits 0
// (1 if stopping failed); a second signal stops waiting and exits 1 at once.

export function stopOnSignals(stop: () => Promise<void>, opts: { prefix?: string; quiet?: boolean } = {}): void {
  let signals = 0;
  const onSignal = (sig: string): void => {
    if (++signals > 1) process.exit(1);
    if (!opts.quiet) process.stderr.write(`${opts.prefix ?? ''}received ${sig}, stopping\n`);
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
