#!/usr/bin/env node
// Tiny launcher: the CLI lives in dist/ (built by `tsc -b`).
import '../dist/cli/main.js';
