// galata UI tests: a real JupyterLab (the venv's, with tapelsp and this extension) in
// Debian's headless Chromium. Playwright's webServer starts JupyterLab (start-jupyterlab.sh).
// Screenshots go to test-artifacts/jupyterlab/ at the repository root.
import * as path from 'path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

const port = Number(process.env.TAPELSP_GALATA_PORT ?? '18931');
process.env.TAPELSP_GALATA_PORT = String(port);

module.exports = {
  ...baseConfig,
  testDir: './tests',
  outputDir: path.join(__dirname, 'test-results'),
  reporter: [['list']],
  retries: 0,
  workers: 1,
  timeout: 150_000,
  expect: { timeout: 30_000 },
  use: {
    ...baseConfig.use,
    baseURL: `http://127.0.0.1:${port}`,
    video: 'off',
    trace: 'off',
    viewport: { width: 1400, height: 900 },
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-dev-shm-usage'
      ]
    }
  },
  webServer: {
    command: `bash ${path.join(__dirname, 'start-jupyterlab.sh')}`,
    url: `http://127.0.0.1:${port}/lab`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    stderr: 'pipe'
  }
};
