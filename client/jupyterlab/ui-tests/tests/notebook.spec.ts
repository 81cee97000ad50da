// The extension in a real JupyterLab (the venv's, with the tapelsp server extension) in headless
// Chromium: a notebook whose cells hold the seed bugs shows them in the sidebar and as
// underlines; a fix edits the cell (and Ctrl+Z takes it back); after the cells ran in the
// kernel, "Probe kernel" shows the runtime confirmation. Screenshots: test-artifacts/jupyterlab/.
import { expect, test } from '@jupyterlab/galata';
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import type { Page } from '@playwright/test';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'jupyterlab');
const PYTHON = process.env.TAPELSP_PYTHON ?? path.join(ROOT, '.venv', 'bin', 'python');
const NOTEBOOK = 'seed_bugs.ipynb';
const SEED = JSON.parse(readFileSync(path.join(__dirname, '..', 'notebooks', NOTEBOOK), 'utf8'));
const cellSource = (index: number): string => SEED.cells[index].source.join('');

test.use({ autoGoto: false });

/** The CLI's fix of `source` (as a .py file) for `code`: what the sidebar's fix must produce. */
function cliFixed(source: string, args: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tapelsp-expected-'));
  try {
    const file = path.join(dir, 'cell.py');
    writeFileSync(file, source);
    execFileSync(PYTHON, ['-m', 'tapelsp', '--check', '--fix', '--exit-zero', ...args, file], { encoding: 'utf8' });
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

const sidebar = (page: Page) => page.locator('#tapelsp-sidebar');
const item = (page: Page, code: string) => sidebar(page).locator(`.tapelsp-finding[data-code="${code}"]`);
/** A cell's text as the notebook model holds it (galata's getCellTextInput selects all and copies,
 * which would move the cursor under test). */
const cellText = (page: Page, index: number): Promise<string> =>
  page.evaluate((i) => (window as any).jupyterapp.shell.currentWidget.content.model.cells.get(i).sharedModel.getSource(), index);
const cell = (page: Page, index: number) => page.locator('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell').nth(index);

test('seed bugs in the sidebar and underlined; fix, undo, probe', async ({ page }) => {
  await page.goto();
  expect(await page.notebook.openByPath(NOTEBOOK)).toBe(true);
  await page.notebook.activate(NOTEBOOK);
  await page.sidebar.close('left');
  await page.locator('.jp-SideBar li[data-id="tapelsp-sidebar"]').click();
  await expect(sidebar(page)).toBeVisible();

  // The three seed bugs, each at its cell and line.
  await expect(item(page, 'TAPE001')).toContainText('cell 3, line 3');
  await expect(item(page, 'FUNC001')).toContainText('cell 4, line 3');
  await expect(item(page, 'MAP002')).toContainText('cell 5, line 2');
  await expect(item(page, 'TAPE001').locator('.tapelsp-message')).toContainText('rebinds `tape`');

  // ... and underlined in the cell editors, on the code they are about.
  const tapeMark = cell(page, 2).locator('.tapelsp-underline[data-tapelsp-code="TAPE001"]');
  await expect(tapeMark).toHaveCount(1);
  await expect(tapeMark).toHaveText(/GradientTape|tape/);
  await expect(tapeMark).toHaveClass(/tapelsp-underline-error/);
  await expect(cell(page, 3).locator('.tapelsp-underline[data-tapelsp-code="FUNC001"]')).toContainText('tf.Variable');
  await expect(cell(page, 4).locator('.tapelsp-underline[data-tapelsp-code="MAP002"]')).toContainText('tf.map_fn');
  await expect(cell(page, 0).locator('.tapelsp-underline')).toHaveCount(0);
  await shot(page, '01-findings-sidebar-and-underlines');
  await cell(page, 2).locator('.jp-InputArea').screenshot({ path: path.join(ARTIFACTS, '01a-cell-3-underlines.png') });

  // The severity filter hides the errors and shows them again.
  const errors = sidebar(page).locator('.tapelsp-filter[data-severity="error"]');
  await errors.click();
  await expect(item(page, 'TAPE001')).toHaveCount(0);
  await expect(item(page, 'MAP002')).toHaveCount(1);
  await shot(page, '02-filter-errors-hidden');
  await errors.click();
  await expect(item(page, 'TAPE001')).toHaveCount(1);

  // The rule's documentation, on demand.
  await item(page, 'TAPE001').locator('.tapelsp-docs').click();
  await expect(item(page, 'TAPE001').locator('.tapelsp-doc')).toContainText('GradientTape');
  await shot(page, '03-rule-docs');
  await item(page, 'TAPE001').locator('.tapelsp-docs').click();

  // A click on a finding goes to its cell and line.
  await item(page, 'FUNC001').click();
  await expect(cell(page, 3)).toHaveClass(/jp-mod-active/);
  await expect.poll(() => page.evaluate(() => {
    const panel = (window as any).jupyterapp.shell.currentWidget;
    const editor = panel.content.activeCell.editor;
    return editor.getCursorPosition();
  })).toEqual({ line: 2, column: 8 }); // `tf.Variable` in `    v = tf.Variable(v0)`

  // Apply fix: the cell's text becomes what the CLI's fix makes of it, and the finding goes.
  const original = cellSource(2);
  const fixed = cliFixed(original, ['--select', 'TAPE001', '--unsafe-fixes']);
  expect(fixed).not.toBe(original);
  await item(page, 'TAPE001').locator('.tapelsp-apply').click();
  await expect.poll(() => cellText(page, 2)).toBe(fixed);
  await expect(item(page, 'TAPE001')).toHaveCount(0);
  await shot(page, '04-after-apply-fix');

  // Ctrl+Z in the cell takes the fix back; the re-check finds the bug again.
  await expect(cell(page, 2)).toHaveClass(/jp-mod-active/);
  await page.keyboard.press('Control+z');
  await expect.poll(() => cellText(page, 2)).toBe(original);
  await expect(item(page, 'TAPE001')).toHaveCount(1);
  await shot(page, '05-after-undo');

  // Before the instrumentation is loaded in the kernel, the probe says what to do.
  await expect(page.locator('.jp-Notebook-ExecutionIndicator[data-status="idle"]')).toHaveCount(1);
  await sidebar(page).locator('.tapelsp-probe').click();
  await expect(sidebar(page).locator('.tapelsp-status-error')).toContainText('%load_ext tapelsp.probe');
  await shot(page, '05b-probe-before-load-ext');

  // Run every cell in the kernel (%load_ext tapelsp.probe first), then ask the kernel.
  for (let i = 0; i < SEED.cells.length; i++) await page.notebook.runCell(i, true);
  await expect(cell(page, 2).locator('.jp-OutputArea-output')).toContainText('RuntimeError');
  await expect(cell(page, 3).locator('.jp-OutputArea-output')).toContainText('ValueError');
  await sidebar(page).locator('.tapelsp-probe').click();
  await expect(sidebar(page).locator('.tapelsp-runtime-summary')).toContainText('TensorFlow 2.21', { timeout: 60_000 });
  for (const code of ['TAPE001', 'FUNC001']) {
    const confirmed = item(page, code).locator('.tapelsp-badge-confirmed');
    await expect(confirmed).toHaveText('confirmed');
    await expect(item(page, code).locator('.tapelsp-evidence')).not.toBeEmpty();
  }
  await expect(cell(page, 3).locator('.tapelsp-underline-confirmed')).toHaveCount(1);
  await expect(item(page, 'TAPE001').locator('.tapelsp-message')).not.toContainText('[confirmed at runtime');
  await cell(page, 2).scrollIntoViewIfNeeded();
  await shot(page, '06-probe-confirmed');
  await cell(page, 2).locator('.jp-InputArea').screenshot({ path: path.join(ARTIFACTS, '06a-cell-3-underlines.png') });
  await item(page, 'FUNC001').scrollIntoViewIfNeeded();
  await shot(page, '06b-probe-confirmed-evidence');

  // Fix all safe: each cell becomes what the CLI's safe fixes make of it.
  const safeCount = await sidebar(page).locator('.tapelsp-apply:not(.tapelsp-unsafe)').count();
  expect(safeCount).toBeGreaterThan(0);
  await sidebar(page).locator('.tapelsp-fix-all').click();
  for (const index of [2, 3, 4]) {
    await expect.poll(() => cellText(page, index)).toBe(cliFixed(cellSource(index), []));
  }
  await shot(page, '07-after-fix-all-safe');

  // Typing is checked again once it stops; code that does not parse gives TL001, nothing breaks.
  await cell(page, 1).locator('.cm-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\ny = (');
  await expect(item(page, 'TL001')).toContainText('cell 2, line 4');
  await expect(item(page, 'FUNC001')).toHaveCount(1);
  await shot(page, '08-syntax-error-while-typing');

  // The commands are in the command palette.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+Shift+C');
  await page.keyboard.type('tapelsp');
  const entries = page.locator('.lm-CommandPalette-item .lm-CommandPalette-itemLabel');
  for (const label of ['Check Notebook', 'Fix All Safe Findings', 'Probe Kernel', 'Show Findings']) {
    await expect(entries.filter({ hasText: label })).toHaveCount(1);
  }
  await shot(page, '09-command-palette');
});
