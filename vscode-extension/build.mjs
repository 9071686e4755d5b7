// Bundles the extension and the extension-host test suite with esbuild
// (only `vscode` stays external, so nothing needs node_modules at run time).
import * as esbuild from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  sourcemap: true,
  logLevel: 'info',
};

await esbuild.build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', minify: process.argv.includes('--minify') });
await esbuild.build({ ...common, entryPoints: ['test/suite/index.ts'], outfile: 'dist/test/suite/index.js' });
