// End to end: the packaged .vsix of this platform in a real VS Code (code-server) driven through
// headless Chromium, its bundled language server run by a venv with nothing installed in it.
//
// Needs (scripts/test provides them): TAPELSP_VSIX (the .vsix of this platform, default
// tapelsp-<platform>.vsix in the repository root), TAPELSP_PYTHON (a Python with tapelsp and
// TensorFlow installed: the CLI's fixes to compare with, the probe's TensorFlow, and the
// `fromEnvironment` import strategy), and what harness.ts needs. Screenshots go to
// test-artifacts/vscode/.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Page } from 'playwright-core';

import { bareVenv, cliFixed, cliRun, environmentOf, missingTools, ROOT, Session, sleep, WAIT } from './harness';

const PYTHON = process.env.TAPELSP_PYTHON ?? '';
const VSIX = process.env.TAPELSP_VSIX ?? join(ROOT, `tapelsp-${process.platform}-${process.arch}.vsix`);
const missing = missingTools([[PYTHON, 'TAPELSP_PYTHON'], [VSIX, 'the .vsix']]);
const EXAMPLES = ['second_derivative.py', 'dqn_agent.py', 'higher_order.ipynb'];

describe('tapelsp in code-server', { skip: missing.length ? `missing: ${missing.join(', ')}` : false }, () => {
    const originals: Record<string, string> = {};
    let venvs = '';
    let bare = '';
    let page: Page;
    const session = new Session({
        vsix: VSIX,
        name: 'platform',
        files: {
            ...Object.fromEntries(EXAMPLES.map((name) => [name, `examples/${name}`])),
            'on_save.py': 'examples/second_derivative.py',
            'probe_me.py': 'examples/second_derivative.py',
        },
        // Safe fixes on save, as the README tells users to set it. The quick-fix steps check the
        // editor's text before they save, so this cannot stand in for a quick fix that did nothing.
        workspaceSettings: { '[python]': { 'editor.codeActionsOnSave': { 'source.fixAll.tapelsp': 'explicit' } } },
        userSettings: {},
    });
    const step = (name: string, body: () => Promise<void>) => session.step(name, body);
    const shot = (name: string) => session.shot(name);
    const activeEditor = () => session.activeEditor();
    const statusItem = () => session.statusItem();
    const openFromExplorer = (name: string) => session.openFromExplorer(name);
    const waitForProblem = (text: string, present = true) => session.waitForProblem(text, present);
    const quickFix = (code: string, title: string, where: RegExp, screenshot: string) => session.quickFix(code, title, where, screenshot);
    const saveAndRead = (name: string) => session.saveAndRead(name);
    const runCommand = (title: string) => session.runCommand(title);
    const setUserSetting = (key: string, value: string) => session.setUserSetting(key, value);
    const setUserCheckbox = (key: string, value: boolean) => session.setUserCheckbox(key, value);
    /** The process's PYTHONPATH starts with the installed extension's bundled/libs. */
    const bundledPath = (pid: number) => (environmentOf(pid, 'PYTHONPATH') ?? '')
        .startsWith(join(session.extensionsDir, 'tapelsp.tapelsp-0.1.0', 'bundled', 'libs'));
    /** Waits for the one language server process run by `python`; returns its pid. */
    async function serverOf(python: string, bundled: boolean, not?: number): Promise<number> {
        for (;;) {
            const servers = session.servers(python);
            if (servers.length === 1 && servers[0].pid !== not && bundledPath(servers[0].pid) === bundled) return servers[0].pid;
            await sleep(250);
        }
    }

    before(async () => {
        for (const name of EXAMPLES) originals[name] = readFileSync(join(ROOT, 'examples', name), 'utf8');
        venvs = mkdtempSync(join(tmpdir(), 'tapelsp-venvs-'));
        // The interpreter the extension is pointed at: a venv with nothing installed, not even pip.
        bare = bareVenv(join(venvs, 'bare'));
        session.options.userSettings['tapelsp.interpreter'] = bare;
        await session.start();
        page = session.page;
    });

    after(async () => {
        await session.stop();
        if (venvs) rmSync(venvs, { recursive: true, force: true });
    });

    step('the language server is `<bare venv>/bin/python -m tapelsp`, the bundled tapelsp first on its PYTHONPATH; no notification', async () => {
        await openFromExplorer('second_derivative.py');
        await serverOf(bare, true);
        await statusItem().locator('.codicon-check').waitFor({ timeout: WAIT });
        await statusItem().hover();
        await page.locator('.monaco-hover', { hasText: `Interpreter: ${bare}` }).filter({ hasText: 'bundled' }).first().waitFor({ timeout: WAIT });
        await page.mouse.move(5, 5);
        assert.equal(await page.locator('.notification-toast').count(), 0, 'no notification (no offer to install tapelsp)');
    });

    step('a shadowed tape shows a squiggle, a hover and TAPE001 in the Problems panel', async () => {
        await openFromExplorer('second_derivative.py');
        const squiggle = activeEditor().locator('.squiggly-error').first();
        await squiggle.waitFor({ timeout: WAIT });
        const status = page.locator('.statusbar-item', { hasText: 'tapelsp' }).first();
        await status.waitFor({ timeout: WAIT });
        await shot('01-second_derivative-squiggles');

        const box = await squiggle.boundingBox();
        assert.ok(box);
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        const hover = page.locator('.monaco-hover').filter({ hasText: 'TAPE001' }).first();
        await hover.waitFor({ timeout: WAIT });
        assert.match(await hover.innerText(), /rebinds `tape`/);
        await shot('02-second_derivative-hover');
        await page.mouse.move(5, 5);

        const rows = await waitForProblem('TAPE001');
        const tape = rows.find((row) => row.includes('TAPE001'))!;
        assert.match(tape, /tapelsp/);
        assert.match(tape, /\[Ln 8, Col 10\]/);
        assert.ok(rows.some((row) => row.includes('TAPE002')), rows.join('\n'));
        await shot('03-problems-panel');
    });

    step('Ctrl+. on the TAPE001 squiggle applies the rename fix, and TAPE001 is gone', async () => {
        const expected = cliFixed(PYTHON, originals['second_derivative.py'], 'TAPE001');
        await openFromExplorer('second_derivative.py');
        await quickFix('TAPE001', expected.title, /^Ln 8, Col \d+/, '04-tape001-quick-fix-menu');
        await activeEditor().locator('.view-lines', { hasText: 'as inner_tape:' }).waitFor({ timeout: WAIT });
        const saved = await saveAndRead('second_derivative.py');
        assert.equal(saved, expected.text);
        assert.match(saved, /with tf\.GradientTape\(\) as inner_tape:/);
        await waitForProblem('TAPE001', false);
        await shot('05-tape001-fixed');
    });

    step('a tf.Variable created in a tf.function: FUNC001, fixed by hoisting it into __init__', async () => {
        const expected = cliFixed(PYTHON, originals['dqn_agent.py'], 'FUNC001');
        await openFromExplorer('dqn_agent.py');
        await activeEditor().locator('.squiggly-error').first().waitFor({ timeout: WAIT });
        const rows = await waitForProblem('FUNC001');
        assert.match(rows.find((row) => row.includes('FUNC001'))!, /\[Ln 14, Col 16\]/);
        await shot('06-dqn_agent-func001');
        await quickFix('FUNC001', expected.title, /^Ln 14, Col \d+/, '07-func001-quick-fix-menu');
        await activeEditor().locator('.view-lines', { hasText: 'self.step.assign_add(1)' }).waitFor({ timeout: WAIT });
        const saved = await saveAndRead('dqn_agent.py');
        assert.equal(saved, expected.text);
        assert.match(saved, /self\.step = tf\.Variable\(0, dtype=tf\.int64\)/);
        await waitForProblem('FUNC001', false);
        await shot('08-func001-fixed');
    });

    step('source.fixAll.tapelsp in editor.codeActionsOnSave applies the safe fixes when the file is saved', async () => {
        await openFromExplorer('on_save.py');
        await activeEditor().locator('.squiggly-error').first().waitFor({ timeout: WAIT });
        await waitForProblem('on_save.py');
        await activeEditor().locator('.view-lines').first().click({ position: { x: 5, y: 5 } });
        await page.keyboard.press('Control+End');
        await page.keyboard.type('# saved with fix-all');
        await page.locator('.tabs-container .tab.active.dirty[aria-label*="on_save.py"]').first().waitFor({ timeout: WAIT });
        const typed = `${readFileSync(join(ROOT, 'examples', 'second_derivative.py'), 'utf8')}# saved with fix-all`;
        const expected = cliRun(PYTHON, typed, ['--fix']).text;
        assert.notEqual(expected, typed, 'the CLI has a safe fix for this file');
        const saved = await saveAndRead('on_save.py');
        assert.equal(saved, expected);
        await waitForProblem('on_save.py', false);
        await shot('09-fix-all-on-save');
    });

    step('a notebook: the shadowed tape in its third cell is squiggled and listed, named as cell 3', async () => {
        await openFromExplorer('higher_order.ipynb');
        const cellSquiggle = page.locator('.notebook-editor .cell-editor-container .squiggly-error').first();
        await cellSquiggle.waitFor({ timeout: WAIT });
        await cellSquiggle.scrollIntoViewIfNeeded();
        const rows = await waitForProblem('TAPE001');
        const tape = rows.find((row) => row.includes('TAPE001'))!;
        assert.match(tape, /\[Ln 3, Col 10\]/);
        // Cells are numbered as in the file, the markdown cell included, as `tapelsp --check` says.
        assert.match(tape, /the tape opened on line 1 of cell 3/);
        await shot('10-notebook-cell-finding');
    });

    step('tapelsp.probe with the probe enabled in the settings: findings confirmed by TensorFlow in the Problems panel', async () => {
        // The probe runs the file under the interpreter's TensorFlow: the test venv's (the bundled
        // tapelsp still runs the server there).
        await setUserSetting('tapelsp.interpreter', PYTHON);
        for (;;) {
            const servers = session.servers(PYTHON);
            if (servers.length === 1 && bundledPath(servers[0].pid)) break;
            await sleep(250);
        }
        await statusItem().locator('.codicon-check').waitFor({ timeout: WAIT });
        await openFromExplorer('probe_me.py');
        await waitForProblem('probe_me.py');
        // Off by default: the command offers the setting and runs nothing.
        await runCommand('tapelsp: Probe With TensorFlow');
        await page.locator('.notification-toast', { hasText: 'enable tapelsp.probe.enable' }).first().waitFor({ timeout: WAIT });
        await page.keyboard.press('Escape');

        await setUserCheckbox('tapelsp.probe.enable', true);
        await openFromExplorer('probe_me.py');
        await runCommand('tapelsp: Probe With TensorFlow');
        const done = page.locator('.notification-toast', { hasText: 'probed probe_me.py' }).first();
        await done.waitFor({ timeout: WAIT });
        assert.match(await done.innerText(), /2 confirmed/);
        const rows = await waitForProblem('confirmed at runtime');
        const tape = rows.find((row) => row.includes('TAPE001'))!;
        assert.match(tape, /tapelsp \(runtime\)/);
        assert.match(tape, /confirmed at runtime: TensorFlow said on line 12/);
        await page.locator('.notification-toast.notification-fade-in-done').first().waitFor({ timeout: WAIT });
        await shot('11-probe-confirmed');
        // The next edit brings back the static findings: the runtime marks were about the old text.
        await activeEditor().locator('.view-lines').first().click({ position: { x: 5, y: 5 } });
        await page.keyboard.press('Control+End');
        await page.keyboard.type('# edited');
        await waitForProblem('confirmed at runtime', false);
        await waitForProblem('TAPE001');
    });

    step('tapelsp: Show Logs opens the tapelsp channel with the LSP trace', async () => {
        await runCommand('tapelsp: Show Logs');
        const output = page.locator('.panel .output-view, .panel .output').first();
        await output.waitFor({ timeout: WAIT });
        const channel = page.locator('.panel select.monaco-select-box').first();
        await channel.waitFor({ timeout: WAIT });
        assert.equal(await channel.evaluate((select) => {
            const box = select as unknown as { options: Array<{ text: string }>; selectedIndex: number };
            return box.options[box.selectedIndex]?.text;
        }), 'tapelsp');
        // The newest lines are in view: the trace of the requests just made.
        const lines = output.locator('.view-lines').first();
        await lines.filter({ hasText: "Sending request 'textDocument/" }).waitFor({ timeout: WAIT });
        await lines.filter({ hasText: "Received response 'textDocument/" }).waitFor({ timeout: WAIT });
        await shot('12-show-logs');
    });

    step('tapelsp: Restart Server replaces the server process', async () => {
        const servers = () => session.servers(PYTHON).map((p) => p.pid);
        const before = servers();
        assert.equal(before.length, 1, `one server before the restart: ${before}`);
        await runCommand('tapelsp: Restart Server');
        for (;;) {
            const now = servers();
            if (now.length === 1 && now[0] !== before[0]) break;
            await sleep(250);
        }
        await statusItem().locator('.codicon-check').waitFor({ timeout: WAIT });
    });

    step('fromEnvironment: the tapelsp installed in the interpreter runs; where it is missing, the offer is the bundled wheel, or the bundled tapelsp', async () => {
        await session.setUserChoice('tapelsp.importStrategy', 'fromEnvironment', 'useBundled');
        // The test venv has tapelsp installed: it runs, without the bundled libraries.
        await serverOf(PYTHON, false);
        await statusItem().locator('.codicon-check').waitFor({ timeout: WAIT });
        await openFromExplorer('higher_order.ipynb');
        await waitForProblem('TAPE001');

        await setUserSetting('tapelsp.interpreter', bare);
        const offer = page.locator('.notification-toast', { hasText: `tapelsp is not installed in ${bare}` }).first();
        await offer.waitFor({ timeout: WAIT });
        const text = await offer.innerText();
        assert.match(text, /from the wheel bundled with the extension \(python -m pip install tapelsp-0\.1\.0-py3-none-any\.whl\)/);
        assert.doesNotMatch(text, /pip install tapelsp\b(?!-)/, 'never `pip install tapelsp` (it is not on PyPI)');
        for (const button of ['Install tapelsp', 'Use Bundled tapelsp', 'Choose Interpreter']) {
            await offer.locator('.monaco-button', { hasText: button }).first().waitFor({ timeout: WAIT });
        }
        await page.locator('.notification-toast.notification-fade-in-done').first().waitFor({ timeout: WAIT });
        await statusItem().locator('.codicon-error').waitFor({ timeout: WAIT });
        // The stopped server's findings are cleared rather than left stale.
        await waitForProblem('TAPE001', false);
        await shot('13-from-environment-missing-offer');
        await statusItem().hover();
        await page.locator('.monaco-hover', { hasText: `tapelsp is not installed in ${bare}` }).first().waitFor({ timeout: WAIT });
        await page.mouse.move(5, 5);

        // "Use Bundled tapelsp" puts the setting back, and the bundled tapelsp runs in the bare venv again.
        await offer.locator('.monaco-button', { hasText: 'Use Bundled tapelsp' }).first().click();
        await serverOf(bare, true);
        while (session.userSetting('tapelsp.importStrategy') !== 'useBundled') await sleep(200);
        await statusItem().locator('.codicon-check').waitFor({ timeout: WAIT });
        await waitForProblem('TAPE001');
        await shot('14-back-to-the-bundled-tapelsp');
    });

    step('fromEnvironment, "Install tapelsp": pip installs the bundled wheel into a venv, and its tapelsp runs', async () => {
        const withPip = bareVenv(join(venvs, 'with-pip'), true);
        await setUserSetting('tapelsp.interpreter', withPip);
        await serverOf(withPip, true);
        await session.setUserChoice('tapelsp.importStrategy', 'fromEnvironment', 'useBundled');
        const offer = page.locator('.notification-toast', { hasText: `tapelsp is not installed in ${withPip}` }).first();
        await offer.waitFor({ timeout: WAIT });
        await offer.locator('.monaco-button', { hasText: 'Install tapelsp' }).first().click();
        // pip installs the wheel (its dependencies from PyPI), then the server starts from the venv.
        await serverOf(withPip, false);
        await statusItem().locator('.codicon-check').waitFor({ timeout: 5 * WAIT });
        const rows = await waitForProblem('TAPE001');
        assert.ok(rows.some((row) => row.includes('TAPE001')));
        await shot('15-installed-from-the-bundled-wheel');
    });
});
