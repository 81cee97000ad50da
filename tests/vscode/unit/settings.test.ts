import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import {
    changeAction,
    DEFAULTS,
    readSettings,
    shouldNotify,
    toServerSettings,
    type Getter,
} from '../../../client/vscode/src/settings';

const ROOT = join(__dirname, '..', '..', '..');

function getter(values: Record<string, unknown>): Getter {
    return (key) => values[key];
}

describe('readSettings', () => {
    test('nothing set gives the defaults and no problems', () => {
        const { settings, problems } = readSettings(getter({}));
        assert.deepEqual(settings, DEFAULTS);
        assert.deepEqual(problems, []);
    });

    test('codes are trimmed, upper-cased and de-duplicated; a comma-separated string is accepted', () => {
        const { settings } = readSettings(getter({ select: [' tape ', 'FUNC001', 'TAPE', ''], ignore: 'map002, MAP003' }));
        assert.deepEqual(settings.select, ['TAPE', 'FUNC001']);
        assert.deepEqual(settings.ignore, ['MAP002', 'MAP003']);
    });

    test('severity names and aliases are normalised; bad entries are dropped with a problem each', () => {
        const { settings, problems } = readSettings(getter({
            severity: { tape001: 'Warning', MAP: 'info', FUNC: 'loud', '': 'error', TL: 3 },
        }));
        assert.deepEqual(settings.severity, { TAPE001: 'warning', MAP: 'information' });
        assert.equal(problems.length, 3);
        assert.match(problems.join('\n'), /tapelsp\.severity\.FUNC/);
    });

    test('values of the wrong type fall back to the default and are reported', () => {
        const { settings, problems } = readSettings(getter({
            enable: 'yes', select: 42, 'probe.timeout': -5, showNotifications: 'sometimes', interpreter: 7,
            importStrategy: 'fromPyPI',
        }));
        assert.equal(settings.importStrategy, 'useBundled');
        assert.equal(settings.enable, true);
        assert.deepEqual(settings.select, []);
        assert.equal(settings.probe.timeout, DEFAULTS.probe.timeout);
        assert.equal(settings.showNotifications, DEFAULTS.showNotifications);
        assert.equal(settings.interpreter, '');
        assert.equal(problems.length, 6);
    });

    test('probe settings and the interpreter are read', () => {
        const { settings } = readSettings(getter({ 'probe.enable': true, 'probe.timeout': 15, interpreter: '  /opt/py/bin/python ' }));
        assert.deepEqual(settings.probe, { enable: true, timeout: 15, autoAttach: false });
        assert.equal(readSettings(getter({ 'probe.autoAttach': true })).settings.probe.autoAttach, true);
        assert.equal(settings.interpreter, '/opt/py/bin/python');
        assert.equal(readSettings(getter({ importStrategy: 'fromEnvironment' })).settings.importStrategy, 'fromEnvironment');
    });
});

describe('toServerSettings (initializationOptions and didChangeConfiguration)', () => {
    test('defaults send only the probe and the trust: empty lists must not override pyproject.toml', () => {
        assert.deepEqual(toServerSettings(DEFAULTS, true), {
            probe: { enabled: false, timeout: 60, autoAttach: false }, workspaceTrusted: true, serverCommands: false,
        });
        assert.equal(toServerSettings(DEFAULTS, false).workspaceTrusted, false);
    });

    test('every server setting is sent under the name the server reads', () => {
        const { settings } = readSettings(getter({
            select: ['TAPE', 'FUNC001'], ignore: ['MAP002'], severity: { MAP: 'hint' }, tensorflowVersion: '2.15',
            'probe.enable': true, 'probe.timeout': 30, interpreter: '/x/python', enable: true, showNotifications: 'always',
        }));
        assert.deepEqual(toServerSettings(settings, false), {
            select: ['TAPE', 'FUNC001'],
            ignore: ['MAP002'],
            severity: { MAP: 'hint' },
            tensorflowVersion: '2.15',
            probe: { enabled: true, timeout: 30, autoAttach: false },
            workspaceTrusted: false,
            serverCommands: false,
        });
    });

    test('client-only settings never reach the server', () => {
        const { settings } = readSettings(getter({ interpreter: '/x/python', enable: false, showNotifications: 'off' }));
        const sent = toServerSettings(settings, true) as unknown as Record<string, unknown>;
        for (const key of ['interpreter', 'importStrategy', 'enable', 'showNotifications']) assert.equal(key in sent, false, key);
    });

    test('the keys sent are keys the server knows (server/tapelsp/lsp/editor_settings.py KNOWN_KEYS)', () => {
        const source = readFileSync(join(ROOT, 'server/tapelsp/lsp/editor_settings.py'), 'utf8');
        const match = /KNOWN_KEYS\s*=\s*\(([^)]*)\)/.exec(source);
        assert.ok(match, 'KNOWN_KEYS not found in editor_settings.py');
        const known = [...match[1].matchAll(/"([A-Za-z]+)"/g)].map((m) => m[1]);
        const { settings } = readSettings(getter({ select: ['TAPE'], ignore: ['MAP'], severity: { MAP: 'hint' }, tensorflowVersion: '2.15' }));
        for (const key of Object.keys(toServerSettings(settings, true))) assert.ok(known.includes(key), `${key} is not in ${known}`);
    });

    test('the real server parses what we send without a problem (TAPELSP_PYTHON)', { skip: !process.env.TAPELSP_PYTHON && 'TAPELSP_PYTHON is not set' }, () => {
        const { settings } = readSettings(getter({
            select: ['TAPE', 'FUNC001'], ignore: ['MAP002'], severity: { MAP: 'hint', TAPE001: 'warning' },
            tensorflowVersion: '2.15', 'probe.enable': true, 'probe.timeout': 30, 'probe.autoAttach': true,
        }));
        const script = [
            'import json, sys',
            'from tapelsp.lsp.editor_settings import parse_editor_settings',
            'parsed = parse_editor_settings(json.loads(sys.argv[1]))',
            's = parsed.settings',
            'print(json.dumps({"problems": list(parsed.problems), "select": list(s.select or ()), "ignore": list(s.ignore or ()),',
            '    "severity": [[c, int(v)] for c, v in s.severity], "tf": s.tensorflow_version, "probe": dict(s.probe),',
            '    "trusted": s.workspace_trusted}))',
        ].join('\n');
        const out = execFileSync(process.env.TAPELSP_PYTHON!, ['-c', script, JSON.stringify({ tapelsp: toServerSettings(settings, false) })], { encoding: 'utf8' });
        assert.deepEqual(JSON.parse(out), {
            problems: [],
            select: ['TAPE', 'FUNC001'],
            ignore: ['MAP002'],
            severity: [['MAP', 4], ['TAPE001', 2]],
            tf: '2.15',
            probe: { enabled: true, timeout: 30, autoAttach: true },
            trusted: false,
        });
    });
});

describe('the manifest', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const properties: Record<string, { default: unknown }> = manifest.contributes.configuration.properties;

    test('declares every setting the extension reads, with the same default', () => {
        const defaults: Record<string, unknown> = {
            'tapelsp.enable': DEFAULTS.enable,
            'tapelsp.interpreter': DEFAULTS.interpreter,
            'tapelsp.importStrategy': DEFAULTS.importStrategy,
            'tapelsp.select': DEFAULTS.select,
            'tapelsp.ignore': DEFAULTS.ignore,
            'tapelsp.severity': DEFAULTS.severity,
            'tapelsp.tensorflowVersion': DEFAULTS.tensorflowVersion,
            'tapelsp.probe.enable': DEFAULTS.probe.enable,
            'tapelsp.probe.timeout': DEFAULTS.probe.timeout,
            'tapelsp.probe.autoAttach': DEFAULTS.probe.autoAttach,
            'tapelsp.showNotifications': DEFAULTS.showNotifications,
        };
        for (const [key, value] of Object.entries(defaults)) {
            assert.ok(key in properties, `${key} missing from package.json`);
            assert.deepEqual(properties[key].default, value, key);
        }
    });

    test('tapelsp.importStrategy: useBundled by default, the two values of the Microsoft extensions, restricted in untrusted workspaces', () => {
        const strategy = manifest.contributes.configuration.properties['tapelsp.importStrategy'];
        assert.equal(DEFAULTS.importStrategy, 'useBundled');
        assert.deepEqual(strategy.enum, ['useBundled', 'fromEnvironment']);
        assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.sort(),
            ['tapelsp.importStrategy', 'tapelsp.interpreter']);
    });

    test('contributes the commands, the fix-all kind and an entry point that the build produces', () => {
        const commands = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
        assert.deepEqual(commands, ['tapelsp.probe', 'tapelsp.restart', 'tapelsp.showLogs']);
        const kinds = manifest.contributes.codeActions.flatMap((c: { actions: { kind: string }[] }) => c.actions.map((a) => a.kind));
        assert.ok(kinds.includes('source.fixAll.tapelsp'));
        assert.equal(manifest.main, './dist/extension.js');
        assert.equal(manifest.name, 'tapelsp');
    });
});

describe('changeAction', () => {
    const only = (...sections: string[]) => (section: string) => sections.some((s) => s === section || s.startsWith(`${section}.`));

    test('interpreter, import strategy and enable restart the server', () => {
        assert.equal(changeAction(only('tapelsp.interpreter')), 'restart');
        assert.equal(changeAction(only('tapelsp.importStrategy')), 'restart');
        assert.equal(changeAction(only('tapelsp.enable')), 'restart');
    });

    test('rule settings are sent to the running server', () => {
        for (const key of ['select', 'ignore', 'severity', 'tensorflowVersion', 'probe.timeout', 'probe.autoAttach']) {
            assert.equal(changeAction(only(`tapelsp.${key}`)), 'notify', key);
        }
    });

    test('client-only and unrelated settings change nothing on the server', () => {
        assert.equal(changeAction(only('tapelsp.showNotifications')), 'none');
        assert.equal(changeAction(only('tapelsp.trace.server')), 'none');
        assert.equal(changeAction(only('editor.fontSize')), 'none');
    });
});

describe('shouldNotify', () => {
    test('levels filter LSP message types', () => {
        const table: Array<[string, number[]]> = [['off', []], ['onError', [1]], ['onWarning', [1, 2]], ['always', [1, 2, 3]]];
        for (const [level, shown] of table) {
            for (const type of [1, 2, 3, 4]) {
                assert.equal(shouldNotify(type, level as never), shown.includes(type), `${level} / ${type}`);
            }
        }
    });
});
