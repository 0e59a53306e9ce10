#!/usr/bin/env node
/**
 * `npm start`: one demo turn of `arbor chat` on the scripted provider (no API
 * key), against a fresh copy of examples/sample-workspace — the checked-in
 * sample is never modified. On a terminal the write asks for approval
 * (a / s / d); without one the turn runs in auto mode, since nobody could answer.
 * Extra arguments are passed to `arbor chat` (e.g. `npm start -- --json`).
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isatty } from 'node:tty';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'arbor-demo-'));
const workspace = join(root, 'thermo');
cpSync(here('./sample-workspace'), workspace, { recursive: true });

// isatty, not process.stdin.isTTY: opening process.stdin here would steal the keys meant for `arbor chat`.
const interactive = isatty(0) && isatty(1);
const mode = interactive ? 'default' : 'auto';
const extra = process.argv.slice(2);
const say = (line) => process.stderr.write(`${line}\n`);

say(`Arbor demo: one scripted turn (no API key needed) in ${mode} mode.`);
say(`Workspace: a copy of examples/sample-workspace at ${workspace}`);
if (interactive)
  say(
    'The write asks for approval: a = allow, s = allow for this session, d = deny. Ctrl-C cancels.',
  );
else say('No terminal to answer approvals: running with --mode auto.');
say('');

const child = spawn(
  process.execPath,
  [
    here('../daemon/bin/arbor.js'),
    'chat',
    '--provider',
    'scripted',
    '--script',
    here('./sample-review.script.json'),
    '--data-dir',
    join(root, 'data'),
    '--workspace',
    workspace,
    '--mode',
    mode,
    ...extra,
    'Review the thermo library and write REVIEW.md',
  ],
  { stdio: 'inherit' },
);
// Ctrl-C belongs to `arbor chat` (it cancels the turn); this launcher only waits.
process.on('SIGINT', () => undefined);
child.on('exit', (code, signal) => {
  say('');
  say(`The demo workspace is at ${workspace} (examples/sample-workspace is unchanged).`);
  process.exitCode = code ?? (signal ? 1 : 0);
});
