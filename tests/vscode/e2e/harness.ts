// A real VS Code (code-server) with one .vsix installed, driven through headless Chromium: what
// the end-to-end tests share. Each test file starts one `Session` in its `before` and stops it in
// its `after` (code-server runs in its own process group; stopping it must leave no process).
//
// Needs: TAPELSP_CODE_SERVER (the code-server launcher, run by the Node on PATH, which must be
// Node 24), CHROMIUM (default /usr/bin/chromium). Screenshots go to test-artifacts/vscode/.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

export const ROOT = join(__dirname, '..', '..', '..');
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'vscode');
export const CODE_SERVER = process.env.TAPELSP_CODE_SERVER ?? join(ROOT, '.cache/code-server/node_modules/.bin/code-server');
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
// Waiting for VS Code to do something (never an assertion on how long it took).
export const WAIT = 90_000;

/** What a test file needs that is not there, for its `skip`. */
export function missingTools(extra: Array<[string, string]>): string[] {
    return [[CODE_SERVER, 'code-server'], [CHROMIUM, 'chromium'], ...extra]
        .filter(([path]) => !path || !existsSync(path)).map(([, what]) => what);
}

/** A venv with no package in it (not even pip): an interpreter "with nothing installed". */
export function bareVenv(dir: string, withPip = false): string {
    execFileSync('python3', ['-m', 'venv', ...(withPip ? [] : ['--without-pip']), dir]);
    return join(dir, 'bin', 'python');
}

export function freePort(): Promise<number> {
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
export function processes(): Array<{ pid: number; pgid: number; args: string }> {
    const out = execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' });
    return out.split('\n').filter((line) => line.trim()).map((line) => {
        const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line)!;
        return { pid: Number(match[1]), pgid: Number(match[2]), args: match[3] };
    });
}

/** A process's environment variable (Linux /proc), or undefined. */
export function environmentOf(pid: number, name: string): string | undefined {
    try {
        const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        const entry = entries.find((e) => e.startsWith(`${name}=`));
        return entry === undefined ? undefined : entry.slice(name.length + 1);
    } catch {
        return undefined;
    }
}

/** The CLI's own fix of one rule (`python -m tapelsp --check --fix`), applied to a copy: what a quick fix must produce. */
export function cliFixed(python: string, source: string, code: string): { text: string; title: string } {
    const report = cliRun(python, source, ['--output-format', 'json', '--unsafe-fixes', '--select', code]);
    const finding = JSON.parse(report.output).find((f: { code: string }) => f.code === code);
    assert.ok(finding?.fix, `the CLI has no ${code} fix for this file`);
    return { text: cliRun(python, source, ['--fix', '--unsafe-fixes', '--select', code]).text, title: finding.fix.message };
}

/** `python -m tapelsp --check ARGS` on a copy of `source`: what it printed and the copy afterwards. */
export function cliRun(python: string, source: string, args: string[]): { output: string; text: string } {
    const dir = mkdtempSync(join(tmpdir(), 'tapelsp-expected-'));
    try {
        const file = join(dir, 'copy.py');
        writeFileSync(file, source);
        const output = execFileSync(python, ['-m', 'tapelsp', '--check', '--exit-zero', ...args, file], { encoding: 'utf8' });
        return { output, text: readFileSync(file, 'utf8') };
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

export async function sleep(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
}

export interface SessionOptions {
    vsix: string;
    /** Prefix of this session's screenshots and logs in test-artifacts/vscode/. */
    name: string;
    /** Files copied into the workspace: workspace name -> path in the repository. */
    files: Record<string, string>;
    /** User settings besides the ones that keep VS Code quiet. */
    userSettings: Record<string, unknown>;
    workspaceSettings?: Record<string, unknown>;
}

export class Session {
    scratch = '';
    workspace = '';
    settingsFile = '';
    extensionsDir = '';
    codeServer: ChildProcess | undefined;
    page!: Page;
    private browser: Browser | undefined;
    private log = '';

    constructor(readonly options: SessionOptions) {}

    async start(): Promise<void> {
        mkdirSync(ARTIFACTS, { recursive: true });
        this.scratch = mkdtempSync(join(tmpdir(), 'tapelsp-e2e-'));
        this.workspace = join(this.scratch, 'workspace');
        mkdirSync(this.workspace);
        for (const [name, from] of Object.entries(this.options.files)) copyFileSync(join(ROOT, from), join(this.workspace, name));
        if (this.options.workspaceSettings) {
            mkdirSync(join(this.workspace, '.vscode'));
            writeFileSync(join(this.workspace, '.vscode', 'settings.json'), JSON.stringify(this.options.workspaceSettings, null, 2));
        }
        const userData = join(this.scratch, 'user-data');
        this.extensionsDir = join(this.scratch, 'extensions');
        mkdirSync(join(userData, 'User'), { recursive: true });
        this.settingsFile = join(userData, 'User', 'settings.json');
        writeFileSync(this.settingsFile, JSON.stringify({
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
            ...this.options.userSettings,
        }, null, 2));
        const port = await freePort();
        const config = join(this.scratch, 'config.yaml');
        writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
        const env = {
            ...process.env,
            // code-server needs Node 24: the Node running this test comes first.
            PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
            XDG_CONFIG_HOME: join(this.scratch, 'xdg-config'),
            XDG_DATA_HOME: join(this.scratch, 'xdg-data'),
        };
        const common = ['--config', config, '--user-data-dir', userData, '--extensions-dir', this.extensionsDir];
        execFileSync(CODE_SERVER, [...common, '--install-extension', this.options.vsix], { env, stdio: 'pipe' });

        // detached: the child calls setsid(), so it leads a new process group and everything it
        // starts (extension host, language server, its workers) can be stopped together.
        const codeServer = spawn(CODE_SERVER, [...common, '--disable-telemetry', '--disable-update-check',
            '--disable-workspace-trust', '--reconnection-grace-time', '5', '--ignore-last-opened', this.workspace],
        { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
        this.codeServer = codeServer;
        codeServer.stdout!.on('data', (chunk) => { this.log += chunk; });
        codeServer.stderr!.on('data', (chunk) => { this.log += chunk; });
        const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(this.workspace)}`;
        for (;;) {
            if (codeServer.exitCode !== null) throw new Error(`code-server exited:\n${this.log}`);
            try {
                if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
            } catch {
                // not listening yet
            }
            await sleep(250);
        }
        this.browser = await chromium.launch({
            executablePath: CHROMIUM,
            args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
                '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
        });
        this.page = await this.browser.newPage({ viewport: { width: 1400, height: 900 } });
        await this.page.goto(url);
        await this.page.locator('.monaco-workbench').waitFor({ timeout: WAIT });
    }

    async stop(): Promise<void> {
        if (this.browser) await this.browser.close().catch(() => undefined);
        const pgid = this.codeServer?.pid;
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
            writeFileSync(join(ARTIFACTS, `${this.options.name}-code-server.log`), this.log);
            this.copyLogs(join(this.scratch, 'user-data', 'logs'));
            assert.deepEqual(left.map((p) => p.args), [], 'processes outlived SIGTERM to the process group');
        }
        if (this.scratch) rmSync(this.scratch, { recursive: true, force: true });
    }

    /** The extension's output channel as VS Code logged it, next to the screenshots. */
    private copyLogs(dir: string): void {
        if (!existsSync(dir)) return;
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
            const path = join(dir, entry.name);
            if (entry.isDirectory()) this.copyLogs(path);
            else if (/tapelsp/i.test(entry.name)) copyFileSync(path, join(ARTIFACTS, `${this.options.name}-output-${entry.name}`));
        }
    }

    /** The language server processes (`<python> -m tapelsp`) in code-server's process group. */
    servers(python?: string): Array<{ pid: number; args: string }> {
        const pgid = this.codeServer!.pid!;
        return processes().filter((p) => p.pgid === pgid && (python ? p.args === `${python} -m tapelsp` : / -m tapelsp$/.test(p.args)));
    }

    /** A test step that leaves a screenshot of the page as it was when it failed. */
    step(name: string, body: () => Promise<void>): void {
        test(name, async () => {
            try {
                await body();
            } catch (error) {
                const slug = name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 60);
                await this.shot(`FAILED-${slug}`).catch(() => undefined);
                throw error;
            }
        });
    }

    async shot(name: string): Promise<void> {
        await this.page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
    }

    async runCommand(title: string): Promise<void> {
        const page = this.page;
        await page.keyboard.press('Escape');
        await page.keyboard.press('F1');
        const input = page.locator('.quick-input-widget input').first();
        await input.waitFor({ timeout: WAIT });
        await input.fill(`>${title}`);
        await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: WAIT });
        await page.keyboard.press('Enter');
    }

    private savedSettings(): Record<string, unknown> {
        try {
            return JSON.parse(readFileSync(this.settingsFile, 'utf8'));
        } catch {
            return {}; // being written
        }
    }

    /**
     * Opens the Settings editor on `key`, lets `change` set its control, waits until
     * settings.json holds `saved(value)` true, and closes the editor.
     */
    private async inSettingsEditor(key: string, change: (editor: Locator) => Promise<void>,
        saved: (value: unknown) => boolean): Promise<void> {
        const page = this.page;
        await this.runCommand('Preferences: Open User Settings');
        const editor = page.locator('.settings-editor').first();
        await editor.waitFor({ timeout: WAIT });
        await page.keyboard.type(key);
        await change(editor.locator(`[data-key="${key}"]`).first());
        while (!saved(this.savedSettings()[key])) await sleep(200);
        await page.keyboard.press('Control+W');
        await editor.waitFor({ state: 'hidden', timeout: WAIT });
    }

    /** Changes a user setting in the Settings editor, as a user does (typed into its box). */
    async setUserSetting(key: string, value: string): Promise<void> {
        await this.inSettingsEditor(key, async (setting) => {
            const input = setting.locator('input').first();
            await input.waitFor({ timeout: WAIT });
            await input.fill(value);
            await input.press('Tab');
        }, (saved) => saved === value);
    }

    /** Picks a value of an enum user setting in the Settings editor's drop-down. */
    async setUserChoice(key: string, value: string, fallback: string): Promise<void> {
        await this.inSettingsEditor(key, async (setting) => {
            const select = setting.locator('select').first();
            await select.waitFor({ timeout: WAIT });
            await select.selectOption(value);
        }, (saved) => (saved ?? fallback) === value);
    }

    /** Ticks or clears a boolean user setting in the Settings editor. */
    async setUserCheckbox(key: string, value: boolean): Promise<void> {
        await this.inSettingsEditor(key, async (setting) => {
            const box = setting.locator('.setting-value-checkbox').first();
            await box.waitFor({ timeout: WAIT });
            if ((await box.getAttribute('aria-checked')) !== String(value)) await box.click();
        }, (saved) => (saved ?? false) === value);
    }

    userSetting(key: string): unknown {
        return this.savedSettings()[key];
    }

    statusItem(): Locator {
        return this.page.locator('.statusbar-item', { hasText: 'tapelsp' }).first();
    }

    /** The editor of the active editor group. */
    activeEditor(): Locator {
        return this.page.locator('.editor-group-container.active .monaco-editor').first();
    }

    async openFromExplorer(name: string): Promise<void> {
        const page = this.page;
        // A menu or widget left open by a failed step must not block this one.
        await page.keyboard.press('Escape');
        await page.keyboard.press('Escape');
        const row = page.locator(`.explorer-folders-view .monaco-list-row[aria-label*="${name}"]`).first();
        await row.waitFor({ timeout: WAIT });
        await row.click();
        await page.locator(`.tabs-container .tab.active[aria-label*="${name}"]`).first().waitFor({ timeout: WAIT });
    }

    async problems(): Promise<string[]> {
        return this.page.locator('.markers-panel .monaco-list-row').evaluateAll((rows) => rows.map((row) => row.textContent ?? ''));
    }

    async showProblems(): Promise<void> {
        if (!(await this.page.locator('.markers-panel').isVisible())) await this.page.keyboard.press('Control+Shift+M');
        await this.page.locator('.markers-panel').waitFor({ timeout: WAIT });
    }

    /** Waits until the Problems panel lists a row containing `text` (or none, with `present` false). */
    async waitForProblem(text: string, present = true): Promise<string[]> {
        await this.showProblems();
        for (;;) {
            const rows = await this.problems();
            if (rows.some((row) => row.includes(text)) === present) return rows;
            await sleep(250);
        }
    }

    /**
     * Puts the cursor on the finding's squiggle through its Problems row (VS Code selects the
     * squiggle's range; the status bar then says `where`, e.g. "Ln 8, Col 35 (25 selected)"),
     * presses Control+. in the editor and waits for the light bulb menu to list `title`; returns
     * that menu row. The caller clicks it (or looks at it).
     */
    async openQuickFixMenu(code: string, title: string, where: RegExp): Promise<{ menu: Locator; item: Locator }> {
        const page = this.page;
        await this.showProblems();
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
        return { menu, item };
    }

    /** `openQuickFixMenu`, a screenshot of the menu, and a click on the action. */
    async quickFix(code: string, title: string, where: RegExp, screenshot: string): Promise<void> {
        const { menu, item } = await this.openQuickFixMenu(code, title, where);
        await this.shot(screenshot);
        await item.click();
        await menu.waitFor({ state: 'hidden', timeout: WAIT });
    }

    async saveAndRead(name: string): Promise<string> {
        const page = this.page;
        await this.activeEditor().locator('textarea').first().focus();
        await page.keyboard.press('Control+S');
        // The tab stops being dirty once the file is written.
        await page.locator(`.tabs-container .tab.active:not(.dirty)[aria-label*="${name}"]`).first().waitFor({ timeout: WAIT });
        return readFileSync(join(this.workspace, name), 'utf8');
    }
}
