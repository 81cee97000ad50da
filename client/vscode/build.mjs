// Bundles the extension (dist/extension.js, what the .vsix ships) with esbuild and, with
// --tests, the TypeScript tests under tests/vscode/ into dist/tests/ for `node --test`.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const withTests = process.argv.includes('--tests');

const common = {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
};

await build({
    ...common,
    entryPoints: [join(root, 'client/vscode/src/extension.ts')],
    outfile: join(root, 'dist/extension.js'),
    external: ['vscode'],
    minify: !withTests,
});

if (withTests) {
    const outdir = join(root, 'dist/tests');
    rmSync(outdir, { recursive: true, force: true });
    const entries = [];
    for (const kind of ['unit', 'e2e']) {
        const dir = join(root, 'tests/vscode', kind);
        for (const name of readdirSync(dir)) {
            if (name.endsWith('.test.ts')) entries.push(join(dir, name));
        }
    }
    await build({
        ...common,
        entryPoints: entries,
        outdir,
        outbase: join(root, 'tests/vscode'),
        // The tests drive a browser and read files at run time; only our own code is bundled.
        external: ['playwright-core', 'vscode'],
    });
    console.log(`built ${entries.length} test files into ${relative(root, outdir)}/`);
}
