/**
 * `npm run bundle -w daemon`: bundles the CLI into dist/bundle (esbuild,
 * code-split, so each command and the agent load only when used).
 *
 * Plain JavaScript so it runs without a TypeScript loader: `npm run build` and
 * the test setup call it on every run. Usage: node scripts/bundle.mjs [outdir]
 */
import * as esbuild from 'esbuild';

const outdir = process.argv[2] ?? 'dist/bundle';

/**
 * zod's namespace object re-exports every locale (`z.locales`, about 260 KB
 * minified), which esbuild cannot drop from a namespace. It sits on the
 * startup path: parsing it costs cold start more than anything else the
 * daemon loads. Arbor's messages are English only (zod registers `en` itself).
 */
const zodWithoutLocales = {
  name: 'zod-without-locales',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: 'zod-locales', namespace: 'zod-without-locales' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-without-locales' }, () => ({
      contents: 'export {};',
      loader: 'js',
    }));
  },
};

await esbuild.build({
  entryPoints: ['src/cli/main.ts'],
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  outdir,
  entryNames: 'arbor',
  // Native (better-sqlite3) or only ever loaded lazily from node_modules.
  external: ['better-sqlite3', 'openai', '@anthropic-ai/sdk', 'chokidar'],
  logLevel: 'warning',
  plugins: [zodWithoutLocales],
  banner: {
    js: "import { createRequire as __arborRequire } from 'node:module'; const require = __arborRequire(import.meta.url);",
  },
});
