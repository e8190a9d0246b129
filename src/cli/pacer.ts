// `pacer`: the controller, the dashboard in the cluster, the main job on the simulated cluster, `plan`, `plans` and `sim`.

import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { controllerCommand } from './controller.ts';
import { dashboardCommand } from './dashboard.ts';
import { planCommand } from './dryrun.ts';
import { plansCommand } from './plansimulate.ts';
import { simCommand } from './sim.ts';
import { upCommand } from './up.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('pacer')
  .description('Pacer: Kubernetes Deployment semantics for pacer.dev Deployments, rolled out at a controlled pace')
  .version(pkg.version)
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));

const up = upCommand();
program.addCommand(up, { isDefault: true });
program.addCommand(controllerCommand());
program.addCommand(dashboardCommand());
program.addCommand(planCommand());
program.addCommand(plansCommand());
program.addCommand(simCommand());

await program.parseAsync(process.argv);
