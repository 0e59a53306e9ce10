/**
 * Entry point of the extension-host suites (VS Code's `extensionTestsPath`):
 * VS Code calls `run()` inside the extension host once the workbench is up.
 *
 * test/e2e/run.mjs (code-server) and test/electron/run.mjs (@vscode/test-electron)
 * bundle this file and every `*.test.ts` next to it into CommonJS files in one
 * directory, and tell the bundle where things are through the environment:
 *   ARBOR_HOST_MOCHA    absolute path of mocha's entry module (the repo's mocha)
 *   ARBOR_HOST_RESULTS  where to write the JSON verdict ({passed, failed, summary})
 *   ARBOR_HOST_GREP     optional: only tests whose title matches
 * The JSON file is the verdict the runners trust: code-server's own log always
 * reports exit code 0.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface MochaRunner {
  on(event: 'pass', fn: (test: { fullTitle(): string }) => void): void;
  on(event: 'fail', fn: (test: { fullTitle(): string }, error: unknown) => void): void;
}
interface MochaInstance {
  addFile(file: string): void;
  loadFilesAsync(): Promise<void>;
  run(done: (failures: number) => void): MochaRunner;
}
type MochaConstructor = new (options: Record<string, unknown>) => MochaInstance;

export async function run(): Promise<void> {
  const mochaPath = process.env['ARBOR_HOST_MOCHA'];
  if (!mochaPath) throw new Error('ARBOR_HOST_MOCHA is not set: run the suites through a runner.');
  const imported = (await import(pathToFileURL(mochaPath).href)) as {
    default: MochaConstructor;
  };
  const Mocha = imported.default;
  const grep = process.env['ARBOR_HOST_GREP'];
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    reporter: 'spec',
    timeout: 60_000,
    ...(grep && { grep }),
  });
  for (const file of readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.cjs'))
    .sort()) {
    mocha.addFile(join(__dirname, file));
  }
  await mocha.loadFilesAsync();
  const results: {
    passed: string[];
    failed: { title: string; error: string }[];
    summary?: string;
  } = { passed: [], failed: [] };
  const failures = await new Promise<number>((resolve) => {
    const runner = mocha.run(resolve);
    runner.on('pass', (t) => results.passed.push(t.fullTitle()));
    runner.on('fail', (t, error) =>
      results.failed.push({
        title: t.fullTitle(),
        error: String((error as Error)?.message ?? error),
      }),
    );
  });
  results.summary = `${results.passed.length} passed, ${results.failed.length} failed`;
  console.log(`extension-host suites: ${results.summary}`);
  const out = process.env['ARBOR_HOST_RESULTS'];
  if (out) writeFileSync(out, JSON.stringify(results, null, 2));
  if (failures > 0 || results.passed.length === 0) {
    throw new Error(`${failures} extension-host test(s) failed`);
  }
}
