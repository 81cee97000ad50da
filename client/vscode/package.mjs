// `npm run package [-- --target T ...] [-- --all]`: bundles the extension and writes one .vsix per
// VS Code target in the repository root, tapelsp-<target>.vsix. Targets: universal, linux-x64,
// linux-arm64, darwin-arm64, darwin-x64, win32-x64; the default is universal and this machine's
// target, --all builds all six (scripts/package-vscode).
//
// Each target is staged in .cache/vsix-stage/<target>: the manifest, the README, .vscodeignore,
// dist/extension.js and bundled/ (tapelsp with its Python dependencies, filled by bundle.py with
// the pip of TAPELSP_BUNDLE_PYTHON, else .venv/bin/python, else python3). vsce runs there:
// staging keeps it from walking .venv/, .cache/ and node_modules/ (it lists every file before
// applying .vscodeignore: 45 s here instead of 1 s).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const stageRoot = join(root, '.cache', 'vsix-stage');
const ALL = ['universal', 'linux-x64', 'linux-arm64', 'darwin-arm64', 'darwin-x64', 'win32-x64'];

function hostTarget() {
    const target = `${process.platform}-${process.arch}`;
    return ALL.includes(target) ? target : undefined;
}

const argv = process.argv.slice(2);
let targets = [];
for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--all') targets.push(...ALL);
    else if (argv[i] === '--target' && argv[i + 1]) targets.push(argv[++i]);
    else throw new Error(`package.mjs: unknown argument ${argv[i]} (use --target T or --all)`);
}
if (!targets.length) targets = ['universal', ...(hostTarget() ? [hostTarget()] : [])];
targets = [...new Set(targets)];
for (const target of targets) {
    if (!ALL.includes(target)) throw new Error(`package.mjs: unknown target ${target} (one of ${ALL.join(', ')})`);
}

const venvPython = join(root, '.venv', process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
const python = process.env.TAPELSP_BUNDLE_PYTHON || (existsSync(venvPython) ? venvPython : 'python3');

execFileSync(process.execPath, [join(root, 'client/vscode/build.mjs')], { stdio: 'inherit' });
rmSync(stageRoot, { recursive: true, force: true });
execFileSync(python, [join(root, 'client/vscode/bundle.py'), '--stage-root', stageRoot, ...targets], { stdio: 'inherit' });
for (const target of targets) {
    const stage = join(stageRoot, target);
    mkdirSync(join(stage, 'dist'), { recursive: true });
    for (const file of ['package.json', 'README.md', '.vscodeignore', 'dist/extension.js']) {
        copyFileSync(join(root, file), join(stage, file));
    }
    const out = join(root, `tapelsp-${target}.vsix`);
    execFileSync(process.execPath, [
        join(root, 'node_modules/@vscode/vsce/vsce'), 'package',
        ...(target === 'universal' ? [] : ['--target', target]),
        '--no-dependencies', '--skip-license', '--allow-missing-repository', '--out', out,
    ], { cwd: stage, stdio: ['ignore', 'ignore', 'inherit'] });
    console.log(`wrote tapelsp-${target}.vsix (${(statSync(out).size / 1e6).toFixed(1)} MB)`);
}
