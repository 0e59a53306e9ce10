#!/usr/bin/env node
// Launcher. `npm run build` bundles the CLI (esbuild, code-split so the agent
// and its providers load only on the first turn): on Node 20, resolving and
// loading hundreds of small modules dominates cold start. Node 22.1+ also
// caches compiled code between runs. The unbundled output of `tsc -b` is the
// fallback while developing.
import { existsSync } from 'node:fs';
import module from 'node:module';

module.enableCompileCache?.();
const bundle = new URL('../dist/bundle/arbor.js', import.meta.url);
await import(existsSync(bundle) ? bundle.href : '../dist/cli/main.js');
