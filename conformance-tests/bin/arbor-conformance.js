#!/usr/bin/env node
// Runs the compiled CLI: in the repository build it first (`npx tsc -b` at the root);
// the packed tarball (`npm run tarball`) ships dist/ built.
import { main } from '../dist/cli.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(
      `arbor-conformance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 2;
  },
);
