// The types of bin/launch.js, for the TypeScript that imports it (bench/plugin.bench.ts, tests).

/** The oldest Node that runs Pacer, as [major, minor]. */
export declare const MIN_NODE: number[];

/** Whether a bundle may run: its file, or why not. */
export type BundleState = { file: string; why?: undefined } | { file?: undefined; why: string };

/** The bundle in `dir` (relative to `base`, the repository by default) when it is current. */
export declare function bundleState(dir: string, base?: string): BundleState;

/** Runs `entry`, or its bundle in `opts.bundle` while that is current. */
export declare function launch(entry: string, opts?: { bundle?: string; name?: string }): Promise<void>;
