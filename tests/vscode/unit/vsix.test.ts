// What the built .vsix files carry, and that what they carry runs: the bundled tapelsp in a
// bare venv (no package installed) of every Python 3.10-3.13 found on this machine.
//
// Reads tapelsp-universal.vsix and tapelsp-<this platform>.vsix from TAPELSP_VSIX_DIR (default:
// the repository root, where `npm run package` writes them; scripts/test builds both first), and
// checks the contents of the other platforms' as well when they are there (scripts/package-vscode).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { checkCommand, readBundle, readCheck, serverCommand, type Bundle, type Interpreter } from '../../../client/vscode/src/interpreter';
import { Zip } from './zip';

const ROOT = join(__dirname, '..', '..', '..');
const DIR = process.env.TAPELSP_VSIX_DIR ?? ROOT;
const HOST = `${process.platform}-${process.arch}`;
const PYTHON_VERSIONS = ['3.10', '3.11', '3.12', '3.13'];
const PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'darwin-x64', 'win32-x64'];

/** The names pyproject.toml's [project] dependencies give (what the bundle must carry). */
function projectDependencies(): string[] {
    const text = readFileSync(join(ROOT, 'pyproject.toml'), 'utf8');
    const match = /^dependencies\s*=\s*\[([^\]]*)\]/m.exec(text);
    assert.ok(match, 'no dependencies in pyproject.toml');
    return [...match[1].matchAll(/"([A-Za-z0-9_.-]+)/g)].map((m) => normal(m[1]));
}

function normal(name: string): string {
    return name.replace(/[-_.]+/g, '-').toLowerCase();
}

/** One interpreter per Python 3.10-3.13 found: `python3.N` on PATH, else pyenv's. */
function pythons(): Map<string, string> {
    const found = new Map<string, string>();
    const pyenv = process.env.PYENV_ROOT ?? join(homedir(), '.pyenv');
    for (const version of PYTHON_VERSIONS) {
        const candidates = [`python${version}`];
        if (existsSync(join(pyenv, 'versions'))) {
            for (const name of readdirSync(join(pyenv, 'versions')).sort()) {
                if (name.startsWith(`${version}.`)) candidates.push(join(pyenv, 'versions', name, 'bin', `python${version}`));
            }
        }
        for (const candidate of candidates) {
            const run = spawnSync(candidate, ['-c', 'import sys, venv; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
            if (run.status === 0 && run.stdout.trim() === version) {
                found.set(version, candidate);
                break;
            }
        }
    }
    return found;
}

const vsixes = ['universal', HOST].map((target) => ({ target, path: join(DIR, `tapelsp-${target}.vsix`) }));
const missing = vsixes.filter((v) => !existsSync(v.path)).map((v) => v.path);
const others = PLATFORMS.filter((target) => target !== HOST && existsSync(join(DIR, `tapelsp-${target}.vsix`)))
    .map((target) => ({ target, path: join(DIR, `tapelsp-${target}.vsix`) }));

describe('the .vsix files', { skip: missing.length ? `not built: ${missing.join(', ')} (npm run package)` : false }, () => {
    let scratch = '';
    const unpacked = new Map<string, { zip: Zip; names: string[]; bundle: Bundle; manifest: Record<string, any> }>();

    before(() => {
        scratch = mkdtempSync(join(tmpdir(), 'tapelsp-vsix-'));
        for (const { target, path } of [...vsixes, ...others]) {
            const zip = new Zip(path);
            const names = zip.names();
            const into = join(scratch, target);
            for (const entry of zip.entries) {
                if (!entry.name.startsWith('extension/bundled/')) continue;
                const file = join(into, entry.name);
                mkdirSync(dirname(file), { recursive: true });
                writeFileSync(file, zip.read(entry));
            }
            const bundledDir = join(into, 'extension', 'bundled');
            const manifestText = readFileSync(join(bundledDir, 'manifest.json'), 'utf8');
            const bundle = readBundle(manifestText, bundledDir, join);
            assert.ok(bundle, `${target}: bundled/manifest.json does not describe a bundle`);
            unpacked.set(target, { zip, names, bundle, manifest: JSON.parse(manifestText) });
        }
    });

    after(() => {
        if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    for (const { target } of [...vsixes, ...others]) {
        test(`${target}: the extension, tapelsp and every dependency of pyproject.toml are in bundled/libs`, () => {
            const { names, manifest, zip } = unpacked.get(target)!;
            for (const name of ['extension/package.json', 'extension/dist/extension.js', 'extension/readme.md',
                'extension/bundled/manifest.json', 'extension/bundled/libs/tapelsp/__init__.py',
                'extension/bundled/libs/tapelsp/__main__.py', 'extension/bundled/libs/tapelsp/lsp/server.py',
                'extension/bundled/libs/tapelsp/rules/__init__.py', 'extension/bundled/libs/pygls/__init__.py',
                'extension/bundled/libs/lsprotocol/types.py', 'extension/bundled/libs/cattrs/__init__.py',
                'extension/bundled/libs/attrs/__init__.py', 'extension/bundled/libs/typing_extensions.py']) {
                assert.ok(names.includes(name), `${target}: no ${name}`);
            }
            assert.equal(manifest.target, target);
            assert.ok(names.includes(`extension/bundled/${manifest.wheel}`), `${target}: no ${manifest.wheel}`);
            assert.match(manifest.wheel, /^wheels\/tapelsp-[^-]+-py3-none-any\.whl$/);
            const bundled = new Set([...Object.keys(manifest.packages), ...Object.keys(manifest.native)].map(normal));
            const notBundled = new Set(Object.keys(manifest.notBundled).map(normal));
            for (const dependency of projectDependencies()) {
                if (target === 'universal' && dependency === 'libcst') {
                    assert.ok(notBundled.has('libcst'), 'universal: libcst is listed as not bundled');
                    continue;
                }
                assert.ok(bundled.has(dependency), `${target}: ${dependency} (pyproject.toml) is not bundled`);
            }
            for (const name of Object.keys(manifest.packages)) {
                const prefix = `extension/bundled/libs/${name.replace(/-/g, '_')}-${manifest.packages[name]}.dist-info/`;
                assert.ok(names.some((n) => n.toLowerCase().startsWith(prefix.toLowerCase())), `${target}: no ${prefix}`);
            }
            // vsce tags a platform's .vsix with its target; the universal one has none.
            const identity = /<Identity [^>]*>/.exec(zip.text('extension.vsixmanifest'))![0];
            if (target === 'universal') assert.doesNotMatch(identity, /TargetPlatform/);
            else assert.match(identity, new RegExp(`TargetPlatform="${target}"`));
        });

        test(`${target}: no TensorFlow, no tests, no byte code, no sources or tools of the repository`, () => {
            const { names } = unpacked.get(target)!;
            // jedi's stubs of third-party packages (tensorflow's among them) are left out; its
            // standard-library stubs stay (jedi reads builtins there).
            assert.ok(names.some((name) => name.startsWith('extension/bundled/libs/jedi/third_party/typeshed/stdlib/builtins.pyi')),
                `${target}: jedi's typeshed/stdlib is missing`);
            assert.deepEqual(names.filter((name) => /\/jedi\/third_party\/(typeshed\/stubs|django-stubs)\//.test(name)), []);
            const unwanted = names.filter((name) => /(^|\/)(tensorflow|tensorflow_probability|tf_keras|keras|tests|node_modules|\.venv|__pycache__)(\/|$)/i.test(name)
                || /\.pyc$/.test(name) || /^extension\/(client|server|tests|scripts|bench|examples|docs|src)\//.test(name)
                || /\.ts$/.test(name));
            assert.deepEqual(unwanted, []);
            const outside = names.filter((name) => !/^extension\/(package\.json|readme\.md|dist\/extension\.js|bundled\/)/.test(name)
                && !['extension.vsixmanifest', '[Content_Types].xml'].includes(name));
            assert.deepEqual(outside, []);
        });
    }

    for (const { target } of [vsixes[1], ...others]) {
        test(`${target}: libcst with a native module for each of Python ${PYTHON_VERSIONS.join(', ')}`, () => {
            const platform = unpacked.get(target)!;
            assert.deepEqual(platform.manifest.native.libcst.pythons, PYTHON_VERSIONS);
            assert.deepEqual(platform.bundle.libcst?.pythons, PYTHON_VERSIONS);
            const arch = { 'linux-x64': 'x86_64-linux-gnu', 'linux-arm64': 'aarch64-linux-gnu', 'darwin-arm64': 'darwin',
                'darwin-x64': 'darwin', 'win32-x64': 'win_amd64' }[target]!;
            for (const version of PYTHON_VERSIONS) {
                const tag = version.replace('.', '');
                assert.ok(platform.names.some((n) => n.startsWith('extension/bundled/libs/libcst/native.')
                    && (n.includes(`cpython-${tag}-`) || n.includes(`cp${tag}-`)) && n.includes(arch)),
                `${target}: no libcst native module for Python ${version}`);
            }
        });
    }

    test('universal: no libcst at all', () => {
        const universal = unpacked.get('universal')!;
        assert.equal(universal.bundle.libcst, undefined);
        assert.deepEqual(universal.names.filter((n) => n.includes('/libcst')), []);
    });

    const found = pythons();
    for (const version of PYTHON_VERSIONS) {
        test(`Python ${version} in a bare venv runs the bundled tapelsp: the check, a finding, and a fix only where libcst is bundled`,
            { skip: found.has(version) ? false : `no Python ${version} on this machine` }, () => {
                const venv = join(scratch, `venv-${version}`);
                execFileSync(found.get(version)!, ['-m', 'venv', '--without-pip', venv]);
                const bare: Interpreter = { command: join(venv, 'bin', 'python'), source: 'setting' };
                assert.notEqual(spawnSync(bare.command, ['-c', 'import tapelsp'], { encoding: 'utf8', cwd: scratch }).status, 0,
                    'the venv has no tapelsp of its own');
                for (const { target } of vsixes) {
                    const { bundle } = unpacked.get(target)!;
                    const line = checkCommand(bare, bundle, undefined, process.platform);
                    const run = spawnSync(line.command, line.args, { encoding: 'utf8', cwd: scratch, env: { ...process.env, ...line.env } });
                    const check = readCheck({ exitCode: run.status, stdout: run.stdout, stderr: run.stderr }, bare);
                    assert.equal(check.kind, 'ready', `${target}: ${JSON.stringify(check)}`);
                    if (check.kind !== 'ready') continue;
                    assert.ok(check.location?.startsWith(bundle.libs), `${target}: tapelsp from ${check.location}`);
                    assert.equal(check.pythonVersion.split('.').slice(0, 2).join('.'), version);
                    assert.equal(check.noFixes !== undefined, target === 'universal', `${target}: ${check.noFixes}`);

                    const file = join(scratch, `example-${version}-${target}.py`);
                    writeFileSync(file, readFileSync(join(ROOT, 'examples', 'second_derivative.py')));
                    const server = serverCommand(bare, bundle, undefined, process.platform);
                    const cli = spawnSync(server.command, [...server.args, '--check', '--no-cache', '--exit-zero', '--output-format', 'json', file],
                        { encoding: 'utf8', cwd: scratch, env: { ...process.env, ...server.env } });
                    assert.equal(cli.status, 0, cli.stderr);
                    const tape = JSON.parse(cli.stdout).find((f: { code: string }) => f.code === 'TAPE001');
                    assert.ok(tape, `${target}: no TAPE001 in ${cli.stdout}`);
                    assert.equal(Boolean(tape.fix), target !== 'universal', `${target}: fix ${JSON.stringify(tape.fix)}`);
                }
            });
    }
});
