// End to end: the packaged .vsix in a real VS Code (code-server) driven through headless
// Chromium, against the real language server in the test venv.
//
// Needs (scripts/test provides them): TAPELSP_PYTHON (a Python with tapelsp installed),
// TAPELSP_CODE_SERVER (the code-server launcher, run by the Node on PATH, which must be
// Node 24), TAPELSP_VSIX (the built extension), CHROMIUM (default /usr/bin/chromium).
// Screenshots go to test-artifacts/vscode/.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

const ROOT = join(__dirname, '..', '..', '..');
const ARTIFACTS = join(ROOT, 'test-artifacts', 'vscode');
const PYTHON = process.env.TAPELSP_PYTHON ?? '';
const CODE_SERVER = process.env.TAPELSP_CODE_SERVER ?? join(ROOT, '.cache/code-server/node_modules/.bin/code-server');
const VSIX = process.env.TAPELSP_VSIX ?? join(ROOT, 'tapelsp.vsix');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
// Waiting for VS Code to do something (never an assertion on how long it took).
const WAIT = 90_000;

const missing = [
    [PYTHON, 'TAPELSP_PYTHON'], [CODE_SERVER, 'code-server'], [VSIX, 'the .vsix'], [CHROMIUM, 'chromium'],
].filter(([path]) => !path || !existsSync(path)).map(([, what]) => what);

/** The CLI's own fix of one rule, applied to a copy: what the quick fix must produce. */
function cliFixed(source: string, code: string): { text: string; title: string } {
    const report = cliRun(source, ['--output-format', 'json', '--unsafe-fixes', '--select', code]);
    const finding = JSON.parse(report.output).find((f: { code: string }) => f.code === code);
    assert.ok(finding?.fix, `the CLI has no ${code} fix for this file`);
    return { text: cliRun(source, ['--fix', '--unsafe-fixes', '--select', code]).text, title: finding.fix.message };
}

/** `tapelsp --check ARGS` on a copy of `source`: what it printed and the copy afterwards. */
function cliRun(source: string, args: string[]): { output: string; text: string } {
    const dir = mkdtempSync(join(tmpdir(), 'tapelsp-expected-'));
    try {
        const file = join(dir, 'copy.py');
        writeFileSync(file, source);
        const output = execFileSync(PYTHON, ['-m', 'tapelsp', '--check', '--exit-zero', ...args, file], { encoding: 'utf8' });
        return { output, text: readFileSync(file, 'utf8') };
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const address = server.address();
            server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
        });
    });
}

/** pid, pgid and command line of every process. */
function processes(): Array<{ pid: number; pgid: number; args: string }> {
    const out = execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' });
    return out.split('\n').filter((line) => line.trim()).map((line) => {
        const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line)!;
        return { pid: Number(match[1]), pgid: Number(match[2]), args: match[3] };
    });
}

/** The extension's output channel as VS Code logged it, next to the screenshots. */
function copyLogs(dir: string): void {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) copyLogs(path);
        else if (/tapelsp/i.test(entry.name)) copyFileSync(path, join(ARTIFACTS, `output-${entry.name}`));
    }
}

async function sleep(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
}

describe('tapelsp in code-server', { skip: missing.length ? `missing: ${missing.join(', ')}` : false }, () => {
    let scratch = '';
    let workspace = '';
    let codeServer: ChildProcess | undefined;
    let codeServerLog = '';
    let browser: Browser | undefined;
    let page: Page;
    const originals: Record<string, string> = {};
    let settingsFile = '';

    async function runCommand(title: string): Promise<void> {
        await page.keyboard.press('Escape');
        await page.keyboard.press('F1');
        const input = page.locator('.quick-input-widget input').first();
        await input.waitFor({ timeout: WAIT });
        await input.fill(`>${title}`);
        await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: WAIT });
        await page.keyboard.press('Enter');
    }

    /** Changes a user setting in the Settings editor, as a user does (typed into its box). */
    async function setUserSetting(key: string, value: string): Promise<void> {
        await runCommand('Preferences: Open User Settings');
        const editor = page.locator('.settings-editor').first();
        await editor.waitFor({ timeout: WAIT });
        await page.keyboard.type(key);
        const input = editor.locator(`[data-key="${key}"] input`).first();
        await input.waitFor({ timeout: WAIT });
        await input.fill(value);
        await input.press('Tab');
        for (;;) {
            let saved: Record<string, unknown> = {};
            try {
                saved = JSON.parse(readFileSync(settingsFile, 'utf8'));
            } catch {
                // being written
            }
            if (saved[key] === value) break;
            await sleep(200);
        }
        await page.keyboard.press('Control+W');
        await editor.waitFor({ state: 'hidden', timeout: WAIT });
    }

    /** Ticks or clears a boolean user setting in the Settings editor. */
    async function setUserCheckbox(key: string, value: boolean): Promise<void> {
        await runCommand('Preferences: Open User Settings');
        const editor = page.locator('.settings-editor').first();
        await editor.waitFor({ timeout: WAIT });
        await page.keyboard.type(key);
        const box = editor.locator(`[data-key="${key}"] .setting-value-checkbox`).first();
        await box.waitFor({ timeout: WAIT });
        if ((await box.getAttribute('aria-checked')) !== String(value)) await box.click();
        for (;;) {
            let saved: Record<string, unknown> = {};
            try {
                saved = JSON.parse(readFileSync(settingsFile, 'utf8'));
            } catch {
                // being written
            }
            if ((saved[key] ?? false) === value) break;
            await sleep(200);
        }
        await page.keyboard.press('Control+W');
        await editor.waitFor({ state: 'hidden', timeout: WAIT });
    }

    function statusItem(): Locator {
        return page.locator('.statusbar-item', { hasText: 'tapelsp' }).first();
    }

    /** A test step that leaves a screenshot of the page as it was when it failed. */
    function step(name: string, body: () => Promise<void>): void {
        test(name, async () => {
            try {
                await body();
            } catch (error) {
                const slug = name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 60);
                await shot(`FAILED-${slug}`).catch(() => undefined);
                throw error;
            }
        });
    }

    async function shot(name: string): Promise<void> {
        await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
    }

    /** The editor of the active editor group. */
    function activeEditor(): Locator {
        return page.locator('.editor-group-container.active .monaco-editor').first();
    }

    async function openFromExplorer(name: string): Promise<void> {
        // A menu or widget left open by a failed step must not block this one.
        await page.keyboard.press('Escape');
        await page.keyboard.press('Escape');
        const row = page.locator(`.explorer-folders-view .monaco-list-row[aria-label*="${name}"]`).first();
        await row.waitFor({ timeout: WAIT });
        await row.click();
        await page.locator(`.tabs-container .tab.active[aria-label*="${name}"]`).first().waitFor({ timeout: WAIT });
    }

    async function problems(): Promise<string[]> {
        return page.locator('.markers-panel .monaco-list-row').evaluateAll((rows) => rows.map((row) => row.textContent ?? ''));
    }

    async function showProblems(): Promise<void> {
        if (!(await page.locator('.markers-panel').isVisible())) await page.keyboard.press('Control+Shift+M');
        await page.locator('.markers-panel').waitFor({ timeout: WAIT });
    }

    /** Waits until the Problems panel lists a row containing `text` (or none, with `present` false). */
    async function waitForProblem(text: string, present = true): Promise<string[]> {
        await showProblems();
        for (;;) {
            const rows = await problems();
            if (rows.some((row) => row.includes(text)) === present) return rows;
            await sleep(250);
        }
    }

    /**
     * Puts the cursor on the finding's squiggle through its Problems row (VS Code selects the
     * squiggle's range; the status bar then says `where`, e.g. "Ln 8, Col 35 (25 selected)"), presses Control+. in the editor and picks the action
     * titled `title` from the light bulb menu.
     */
    async function quickFix(code: string, title: string, where: RegExp, screenshot: string): Promise<void> {
        await showProblems();
        const row = page.locator('.markers-panel .monaco-list-row', { hasText: code }).first();
        await row.click();
        // Enter opens the marker in its editor with the focus there, cursor at the squiggle's start.
        await page.keyboard.press('Enter');
        await page.locator('.statusbar-item', { hasText: where }).first().waitFor({ timeout: WAIT });
        await page.locator('.editor-group-container.active .monaco-editor.focused').first().waitFor({ timeout: WAIT });
        const menu = page.locator('.action-widget:not(.action-list-submenu-panel)').first();
        // Pressed again if the first press came before the editor took it (as a user would).
        for (let attempt = 1; ; attempt++) {
            await page.keyboard.press('Control+.');
            try {
                await menu.waitFor({ timeout: 10_000 });
                break;
            } catch (error) {
                if (attempt === 5) throw error;
            }
        }
        const item = menu.locator('.monaco-list-row', { hasText: title }).first();
        await item.waitFor({ timeout: WAIT });
        await shot(screenshot);
        await item.click();
        await menu.waitFor({ state: 'hidden', timeout: WAIT });
    }

    async function saveAndRead(name: string): Promise<string> {
        await activeEditor().locator('textarea').first().focus();
        await page.keyboard.press('Control+S');
        // The tab stops being dirty once the file is written.
        await page.locator(`.tabs-container .tab.active:not(.dirty)[aria-label*="${name}"]`).first().waitFor({ timeout: WAIT });
        return readFileSync(join(workspace, name), 'utf8');
    }

    before(async () => {
        rmSync(ARTIFACTS, { recursive: true, force: true });
        mkdirSync(ARTIFACTS, { recursive: true });
        scratch = mkdtempSync(join(tmpdir(), 'tapelsp-e2e-'));
        workspace = join(scratch, 'workspace');
        mkdirSync(workspace);
        for (const name of ['second_derivative.py', 'dqn_agent.py', 'higher_order.ipynb']) {
            copyFileSync(join(ROOT, 'examples', name), join(workspace, name));
            originals[name] = readFileSync(join(workspace, name), 'utf8');
        }
        // Safe fixes on save, as the README tells users to set it. The quick-fix steps check the
        // editor's text before they save, so this cannot stand in for a quick fix that did nothing.
        mkdirSync(join(workspace, '.vscode'));
        writeFileSync(join(workspace, '.vscode', 'settings.json'),
            JSON.stringify({ '[python]': { 'editor.codeActionsOnSave': { 'source.fixAll.tapelsp': 'explicit' } } }, null, 2));
        copyFileSync(join(ROOT, 'examples', 'second_derivative.py'), join(workspace, 'on_save.py'));
        copyFileSync(join(ROOT, 'examples', 'second_derivative.py'), join(workspace, 'probe_me.py'));
        const userData = join(scratch, 'user-data');
        const extensions = join(scratch, 'extensions');
        mkdirSync(join(userData, 'User'), { recursive: true });
        settingsFile = join(userData, 'User', 'settings.json');
        writeFileSync(settingsFile, JSON.stringify({
            'chat.disableAIFeatures': true,
            'workbench.startupEditor': 'none',
            'workbench.tips.enabled': false,
            'workbench.enableExperiments': false,
            'update.mode': 'none',
            'extensions.autoUpdate': false,
            'extensions.autoCheckUpdates': false,
            'telemetry.telemetryLevel': 'off',
            'security.workspace.trust.enabled': false,
            'editor.minimap.enabled': false,
            'workbench.secondarySideBar.defaultVisibility': 'hidden',
            'files.autoSave': 'off',
            'tapelsp.interpreter': PYTHON,
        }, null, 2));
        const port = await freePort();
        const config = join(scratch, 'config.yaml');
        writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
        const env = {
            ...process.env,
            // code-server needs Node 24: the Node running this test comes first.
            PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
            XDG_CONFIG_HOME: join(scratch, 'xdg-config'),
            XDG_DATA_HOME: join(scratch, 'xdg-data'),
        };
        const common = ['--config', config, '--user-data-dir', userData, '--extensions-dir', extensions];
        execFileSync(CODE_SERVER, [...common, '--install-extension', VSIX], { env, stdio: 'pipe' });

        // detached: the child calls setsid(), so it leads a new process group and everything it
        // starts (extension host, language server, its workers) can be stopped together.
        codeServer = spawn(CODE_SERVER, [...common, '--disable-telemetry', '--disable-update-check',
            '--disable-workspace-trust', '--reconnection-grace-time', '5', '--ignore-last-opened', workspace],
        { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
        codeServer.stdout!.on('data', (chunk) => { codeServerLog += chunk; });
        codeServer.stderr!.on('data', (chunk) => { codeServerLog += chunk; });
        const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
        for (;;) {
            if (codeServer.exitCode !== null) throw new Error(`code-server exited:\n${codeServerLog}`);
            try {
                if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
            } catch {
                // not listening yet
            }
            await sleep(250);
        }
        browser = await chromium.launch({
            executablePath: CHROMIUM,
            args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
                '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
        });
        page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(url);
        await page.locator('.monaco-workbench').waitFor({ timeout: WAIT });
    });

    after(async () => {
        if (browser) await browser.close().catch(() => undefined);
        const pgid = codeServer?.pid;
        if (pgid) {
            try {
                process.kill(-pgid, 'SIGTERM');
            } catch {
                // already gone
            }
            for (let i = 0; i < 40 && processes().some((p) => p.pgid === pgid); i++) await sleep(250);
            const left = processes().filter((p) => p.pgid === pgid);
            if (left.length) {
                try {
                    process.kill(-pgid, 'SIGKILL');
                } catch {
                    // raced
                }
            }
            writeFileSync(join(ARTIFACTS, 'code-server.log'), codeServerLog);
            copyLogs(join(scratch, 'user-data', 'logs'));
            assert.deepEqual(left.map((p) => p.args), [], 'processes outlived SIGTERM to the process group');
        }
        if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    step('the language server runs as `<TAPELSP_PYTHON> -m tapelsp` inside the code-server process group', async () => {
        await openFromExplorer('second_derivative.py');
        const pgid = codeServer!.pid!;
        for (;;) {
            const server = processes().find((p) => p.pgid === pgid && p.args.startsWith(`${PYTHON} -m tapelsp`));
            if (server) {
                assert.equal(server.args, `${PYTHON} -m tapelsp`);
                break;
            }
            await sleep(250);
        }
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
        const expected = cliFixed(originals['second_derivative.py'], 'TAPE001');
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
        const expected = cliFixed(originals['dqn_agent.py'], 'FUNC001');
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
        const expected = cliRun(typed, ['--fix']).text;
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
        const pgid = codeServer!.pid!;
        const servers = () => processes().filter((p) => p.pgid === pgid && p.args === `${PYTHON} -m tapelsp`).map((p) => p.pid);
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

    step('an interpreter without tapelsp: error in the status bar, an offer to install it there; switching back restarts the server', async () => {
        const bare = join(scratch, 'bare-venv');
        execFileSync('python3', ['-m', 'venv', '--without-pip', bare]);
        const barePython = join(bare, 'bin', 'python');
        await openFromExplorer('higher_order.ipynb');
        await waitForProblem('TAPE001');

        setUserSetting('tapelsp.interpreter', barePython);
        const offer = page.locator('.notification-toast', { hasText: `tapelsp is not installed in ${barePython}` }).first();
        await offer.waitFor({ timeout: WAIT });
        await offer.locator('.monaco-button', { hasText: 'Install tapelsp' }).first().waitFor({ timeout: WAIT });
        await page.locator('.notification-toast.notification-fade-in-done').first().waitFor({ timeout: WAIT });
        await statusItem().locator('.codicon-error').waitFor({ timeout: WAIT });
        // The stopped server's findings are cleared rather than left stale.
        await waitForProblem('TAPE001', false);
        await shot('13-missing-tapelsp-offer');
        await statusItem().hover();
        await page.locator('.monaco-hover', { hasText: `tapelsp is not installed in ${barePython}` }).first().waitFor({ timeout: WAIT });
        await page.mouse.move(5, 5);

        setUserSetting('tapelsp.interpreter', PYTHON);
        await statusItem().locator('.codicon-check').waitFor({ timeout: WAIT });
        const rows = await waitForProblem('TAPE001');
        assert.ok(rows.some((row) => row.includes('TAPE001')));
        await shot('14-restarted-with-the-venv');
    });
});
