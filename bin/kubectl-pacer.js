#!/usr/bin/env node
import { launch } from './launch.js';
await launch('src/cli/kubectl-pacer.ts');
