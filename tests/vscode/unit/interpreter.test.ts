import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import {
    activeInterpreterPath,
    checkCommand,
    expandVariables,
    installCommand,
    noFixesMessage,
    readBundle,
    readCheck,
    resolveInterpreter,
    serverCommand,
    type Bundle,
    type Interpreter,
    type InterpreterInputs,
    type PythonEnvironmentsApi,
} from '../../../client/vscode/src/interpreter';
import { DOCUMENT_SELECTOR, notebookCells } from '../../../client/vscode/src/selectors';

const base: InterpreterInputs = { setting: '', userHome: '/home/u', workspaceFolder: '/work/proj', platform: 'linux' };

describe('resolveInterpreter: setting, then the Python extension, then PATH', () => {
    test('the tapelsp.interpreter setting wins over the Python extension', async () => {
        let asked = false;
        const chosen = await resolveInterpreter({
            ...base, setting: '/opt/venv/bin/python', pythonExtension: async () => { asked = true; return '/ext/python'; },
        });
        assert.deepEqual(chosen, { command: '/opt/venv/bin/python', source: 'setting' });
        assert.equal(asked, false, 'the Python extension is not consulted when the setting is given');
    });

    test('without the setting, the Python extension\'s active interpreter', async () => {
        const chosen = await resolveInterpreter({ ...base, pythonExtension: async () => '/ext/envs/tf/bin/python' });
        assert.deepEqual(chosen, { command: '/ext/envs/tf/bin/python', source: 'python-extension' });
    });

    test('the Python extension without an answer, or failing, falls through to PATH', async () => {
        for (const pythonExtension of [async () => undefined, async () => '  ', async () => { throw new Error('not ready'); }]) {
            const chosen = await resolveInterpreter({ ...base, pythonExtension });
            assert.deepEqual(chosen, { command: 'python3', source: 'path' });
        }
    });

    test('no setting and no Python extension: python3 on PATH (python on Windows)', async () => {
        assert.deepEqual(await resolveInterpreter(base), { command: 'python3', source: 'path' });
        assert.deepEqual(await resolveInterpreter({ ...base, platform: 'win32' }), { command: 'python', source: 'path' });
    });

    test('variables in the setting are expanded', async () => {
        const chosen = await resolveInterpreter({ ...base, setting: '${workspaceFolder}/.venv/bin/python' });
        assert.equal(chosen.command, '/work/proj/.venv/bin/python');
        assert.equal(expandVariables('~/py/bin/python', base), '/home/u/py/bin/python');
        assert.equal(expandVariables('${userHome}/x', base), '/home/u/x');
        assert.equal(expandVariables('${env:PYROOT}/bin/python', { ...base, env: { PYROOT: '/opt/py' } }), '/opt/py/bin/python');
        assert.equal(expandVariables('${workspaceFolder}/p', { userHome: '/h' }), '${workspaceFolder}/p', 'left as is without a folder');
    });
});

describe('the Python extension API', () => {
    function fakeApi(executable: string | undefined): PythonEnvironmentsApi & { asked: unknown[] } {
        const asked: unknown[] = [];
        return {
            asked,
            getActiveEnvironmentPath: (resource) => { asked.push(resource); return { id: 'env-1', path: '/envs/tf' }; },
            resolveEnvironment: async (env) => {
                assert.deepEqual(env, { id: 'env-1', path: '/envs/tf' });
                return { executable: { uri: executable ? { fsPath: executable } : undefined } };
            },
            onDidChangeActiveEnvironmentPath: () => ({ dispose() {} }),
        };
    }

    test('the active environment is resolved to its executable, for the given resource', async () => {
        const api = fakeApi('/envs/tf/bin/python');
        assert.equal(await activeInterpreterPath(api, 'folder-uri'), '/envs/tf/bin/python');
        assert.deepEqual(api.asked, ['folder-uri']);
    });

    test('an environment without an executable gives no interpreter', async () => {
        assert.equal(await activeInterpreterPath(fakeApi(undefined)), undefined);
    });
});

describe('command lines', () => {
    const python: Interpreter = { command: '/opt/venv/bin/python', source: 'setting' };
    const bundle: Bundle = {
        libs: '/ext/bundled/libs', wheel: '/ext/bundled/wheels/tapelsp-0.1.0-py3-none-any.whl', target: 'linux-x64',
        tapelsp: '0.1.0', libcst: { version: '1.9.0', pythons: ['3.10', '3.11', '3.12', '3.13'] },
    };

    test('the server is `python -m tapelsp` over stdio, nothing else on the line', () => {
        assert.deepEqual(serverCommand(python), { command: '/opt/venv/bin/python', args: ['-m', 'tapelsp'] });
    });

    test('useBundled: the same line, with bundled/libs first on PYTHONPATH (before what the environment had)', () => {
        assert.deepEqual(serverCommand(python, bundle), {
            command: '/opt/venv/bin/python', args: ['-m', 'tapelsp'], env: { PYTHONPATH: '/ext/bundled/libs' },
        });
        assert.deepEqual(serverCommand(python, bundle, '/mine:/more', 'linux').env, { PYTHONPATH: '/ext/bundled/libs:/mine:/more' });
        assert.deepEqual(serverCommand(python, bundle, 'C:\\mine', 'win32').env, { PYTHONPATH: '/ext/bundled/libs;C:\\mine' });
        assert.deepEqual(checkCommand(python, bundle).env, { PYTHONPATH: '/ext/bundled/libs' });
        assert.equal(checkCommand(python).env, undefined);
    });

    test('the install offer (fromEnvironment) runs pip of the same interpreter on the bundled wheel, never `pip install tapelsp`', () => {
        assert.deepEqual(installCommand(python, bundle),
            { command: '/opt/venv/bin/python', args: ['-m', 'pip', 'install', '/ext/bundled/wheels/tapelsp-0.1.0-py3-none-any.whl'] });
        assert.equal(installCommand(python), undefined, 'without a bundled wheel there is nothing to install: tapelsp is not on PyPI');
        assert.equal(installCommand(python, { ...bundle, wheel: undefined }), undefined);
    });
});

describe('readBundle (bundled/manifest.json)', () => {
    const join = (...parts: string[]) => parts.join('/');

    test('a platform bundle: libs, the wheel, libcst with its Pythons', () => {
        const text = JSON.stringify({
            target: 'darwin-arm64', tapelsp: '0.1.0', wheel: 'wheels/tapelsp-0.1.0-py3-none-any.whl',
            native: { libcst: { version: '1.9.0', pythons: ['3.10', '3.13'] } },
        });
        assert.deepEqual(readBundle(text, '/ext/bundled', join), {
            libs: '/ext/bundled/libs', wheel: '/ext/bundled/wheels/tapelsp-0.1.0-py3-none-any.whl', target: 'darwin-arm64',
            tapelsp: '0.1.0', libcst: { version: '1.9.0', pythons: ['3.10', '3.13'] },
        });
    });

    test('the universal bundle has no libcst; no manifest, or a broken one, is no bundle', () => {
        const universal = readBundle(JSON.stringify({ target: 'universal', tapelsp: '0.1.0', wheel: 'wheels/t.whl', native: {} }), '/b', join);
        assert.equal(universal?.libcst, undefined);
        assert.equal(readBundle(undefined, '/b', join), undefined);
        assert.equal(readBundle('{not json', '/b', join), undefined);
        assert.equal(readBundle('{"target": 3}', '/b', join), undefined);
    });
});

describe('noFixesMessage: what the log says when libcst does not load', () => {
    const check = { python: '/usr/bin/python3', pythonVersion: '3.14.0', noFixes: "ModuleNotFoundError: No module named 'libcst'" };
    const platform: Bundle = { libs: '/l', target: 'linux-x64', tapelsp: '0.1.0', libcst: { version: '1.9.0', pythons: ['3.10', '3.11', '3.12', '3.13'] } };

    test('nothing to say when libcst loads', () => {
        assert.equal(noFixesMessage({ ...check, noFixes: undefined }, platform), undefined);
    });

    test('the universal .vsix, a platform .vsix on a Python it has no libcst for, an environment without libcst', () => {
        const universal = noFixesMessage(check, { ...platform, libcst: undefined, target: 'universal' })!;
        assert.match(universal, /universal \.vsix does not carry libcst/);
        assert.match(universal, /`\/usr\/bin\/python3 -m pip install libcst`/);
        assert.match(universal, /the \.vsix built for your platform/);
        assert.match(noFixesMessage(check, platform)!, /native modules for Python 3\.10, 3\.11, 3\.12, 3\.13, not 3\.14/);
        assert.match(noFixesMessage({ ...check, pythonVersion: '3.12.1' }, undefined)!, /libcst does not load in the interpreter/);
    });
});

describe('readCheck', () => {
    const python: Interpreter = { command: 'python3', source: 'path' };
    const run = (stdout: string, exitCode = 0, stderr = '') => ({ exitCode, stdout, stderr });

    test('ready, missing, too old a tapelsp, too old a Python', () => {
        assert.deepEqual(readCheck(run('{"python": "/usr/bin/python3", "pythonVersion": [3, 11, 2], "tapelsp": "0.1.0", "server": true, ' +
            '"location": "/ext/bundled/libs/tapelsp/__init__.py", "libcst": "1.9.0"}\n'), python),
            { kind: 'ready', python: '/usr/bin/python3', version: '0.1.0', pythonVersion: '3.11.2', location: '/ext/bundled/libs/tapelsp/__init__.py' });
        assert.deepEqual(readCheck(run('{"python": "/p", "pythonVersion": [3, 13, 0], "tapelsp": "0.1.0", "server": true, ' +
            '"libcst": null, "libcstError": "ModuleNotFoundError: No module named \'libcst\'"}'), python),
            { kind: 'ready', python: '/p', version: '0.1.0', pythonVersion: '3.13.0', noFixes: "ModuleNotFoundError: No module named 'libcst'" });
        assert.deepEqual(readCheck(run('{"python": "/p", "pythonVersion": [3, 12, 0], "tapelsp": null, "error": "No module named \'tapelsp\'"}'), python),
            { kind: 'missing', python: '/p', detail: "No module named 'tapelsp'" });
        assert.deepEqual(readCheck(run('{"python": "/p", "pythonVersion": [3, 12, 0], "tapelsp": "0.0.1", "server": false}'), python),
            { kind: 'no-server', python: '/p', version: '0.0.1' });
        assert.deepEqual(readCheck(run('{"python": "/p", "pythonVersion": [3, 8, 10], "tapelsp": null}'), python),
            { kind: 'too-old-python', python: '/p', pythonVersion: '3.8.10' });
    });

    test('an interpreter that cannot be run, or answers nonsense, is broken', () => {
        assert.equal(readCheck({ spawnError: 'no such file', exitCode: null, stdout: '', stderr: '' }, python).kind, 'broken');
        const garbage = readCheck(run('', 1, 'Traceback...\nSyntaxError: invalid syntax'), python);
        assert.equal(garbage.kind, 'broken');
        assert.match((garbage as { detail: string }).detail, /SyntaxError/);
    });

    test('the check script, run by a real Python, tells a fresh venv from one with tapelsp', () => {
        const dir = mkdtempSync(join(tmpdir(), 'tapelsp-check-'));
        try {
            execFileSync('python3', ['-m', 'venv', '--without-pip', join(dir, 'venv')]);
            const bare: Interpreter = { command: join(dir, 'venv', 'bin', 'python'), source: 'setting' };
            const line = checkCommand(bare);
            const result = spawnSync(line.command, line.args, { encoding: 'utf8', cwd: dir });
            const missing = readCheck({ exitCode: result.status, stdout: result.stdout, stderr: result.stderr }, bare);
            assert.equal(missing.kind, 'missing', JSON.stringify(missing));
            assert.equal((missing as { python: string }).python, join(dir, 'venv', 'bin', 'python'));
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });

    test('the check script finds the tapelsp of the test venv (TAPELSP_PYTHON)', { skip: !process.env.TAPELSP_PYTHON && 'TAPELSP_PYTHON is not set' }, () => {
        const venv: Interpreter = { command: process.env.TAPELSP_PYTHON!, source: 'setting' };
        const line = checkCommand(venv);
        const out = execFileSync(line.command, line.args, { encoding: 'utf8', cwd: tmpdir() });
        const ready = readCheck({ exitCode: 0, stdout: out, stderr: '' }, venv);
        assert.equal(ready.kind, 'ready', JSON.stringify(ready));
    });
});

describe('what the client hands to the server', () => {
    test('Python in files, unsaved buffers and notebook cells, nothing else', () => {
        assert.deepEqual(DOCUMENT_SELECTOR.map((filter) => `${filter.scheme}:${filter.language}`).sort(),
            ['file:python', 'untitled:python', 'vscode-notebook-cell:python']);
    });

    test('Jupyter notebooks keep their cells; other notebook types (the interactive window) send none', () => {
        assert.deepEqual(notebookCells('jupyter-notebook', ['a', 'b']), ['a', 'b']);
        assert.deepEqual(notebookCells('interactive', ['a', 'b']), []);
    });
});
