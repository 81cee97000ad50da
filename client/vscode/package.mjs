// `npm run package`: bundles the extension, stages exactly what the .vsix ships (manifest,
// README, dist/extension.js) in .cache/vsix-stage and runs vsce there, writing tapelsp.vsix in
// the repository root. Staging keeps vsce from walking .venv/, .cache/ and node_modules/ (it
// lists every file before applying .vscodeignore: 45 s here instead of 1 s).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const stage = join(root, '.cache', 'vsix-stage');

execFileSync(process.execPath, [join(root, 'client/vscode/build.mjs')], { stdio: 'inherit' });
rmSync(stage, { recursive: true, force: true });
mkdirSync(join(stage, 'dist'), { recursive: true });
for (const file of ['package.json', 'README.md', '.vscodeignore', 'dist/extension.js']) {
    copyFileSync(join(root, file), join(stage, file));
}
const out = join(root, 'tapelsp.vsix');
execFileSync(process.execPath, [
    join(root, 'node_modules/@vscode/vsce/vsce'), 'package',
    '--no-dependencies', '--skip-license', '--allow-missing-repository', '--out', out,
], { cwd: stage, stdio: 'inherit' });
