// Bundles the extension (and, with --tests, the unit tests) with esbuild.
//   node esbuild.mjs               development bundle with source map
//   node esbuild.mjs --production  minified bundle, no source map (used by vsce)
//   node esbuild.mjs --watch       rebuild on change
//   node esbuild.mjs --tests       bundle test/*.test.ts into dist/test/
// Besides the extension, the report webview's script (src/triage/report/webview.ts, with Chart.js) is
// bundled for the browser into dist/reportWebview.js, which the webview loads as a local resource.
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'warning',
};

async function main() {
  if (tests) {
    const entryPoints = readdirSync('test')
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => join('test', f));
    await esbuild.build({
      ...common,
      entryPoints,
      outdir: 'dist/test',
      sourcemap: 'inline',
      // The tests run against the real TextMate engine and read package.json / grammars from disk.
      external: ['vscode', 'vscode-textmate', 'vscode-oniguruma'],
    });
    return;
  }
  const options = {
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
    minify: production,
    sourcemap: !production,
    sourcesContent: false,
    metafile: true,
  };
  const webview = {
    bundle: true,
    platform: 'browser',
    target: 'chrome114',
    format: 'iife',
    logLevel: 'warning',
    entryPoints: ['src/triage/report/webview.ts'],
    outfile: 'dist/reportWebview.js',
    minify: production,
    sourcemap: !production,
    sourcesContent: false,
    metafile: true,
  };
  if (watch) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
    await (await esbuild.context(webview)).watch();
    console.log('[esbuild] watching…');
    return;
  }
  const t0 = Date.now();
  const [result, view] = await Promise.all([esbuild.build(options), esbuild.build(webview)]);
  const bytes = result.metafile.outputs['dist/extension.js']?.bytes ?? 0;
  const viewBytes = view.metafile.outputs['dist/reportWebview.js']?.bytes ?? 0;
  console.log(
    `[esbuild] dist/extension.js ${(bytes / 1024).toFixed(0)} KB, dist/reportWebview.js ${(viewBytes / 1024).toFixed(0)} KB in ${Date.now() - t0} ms${production ? ' (production)' : ''}`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
