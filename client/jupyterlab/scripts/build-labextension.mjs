// Builds the prebuilt labextension into tapelsp_jupyterlab/labextension/ (committed, so that
// `pip install` needs no node) and writes its stamp: the sha256 of the sources it was built
// from. tests/jupyterlab/test_labextension_fresh.py recomputes it and fails when the committed
// build is older than the sources. Offline: the core metadata comes from the pinned
// @jupyterlab/core-meta package, not from the network.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUTPUT = join(ROOT, 'tapelsp_jupyterlab', 'labextension');
const require = createRequire(join(ROOT, 'package.json'));

/** The files the build depends on (keep in sync with tests/jupyterlab/test_labextension_fresh.py). */
export function sourceFiles() {
  const files = ['package.json', 'package-lock.json', 'tsconfig.json', 'scripts/build-labextension.mjs'];
  const walk = (dir) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== '__tests__') walk(path);
      } else files.push(path);
    }
  };
  walk('src');
  walk('style');
  return files.sort();
}

/** sha256 over "path\0sha256(content)\n" of every source file, in sorted order. */
export function sourceHash() {
  const hash = createHash('sha256');
  for (const file of sourceFiles()) {
    const content = createHash('sha256').update(readFileSync(join(ROOT, file))).digest('hex');
    hash.update(`${file}\0${content}\n`);
  }
  return hash.digest('hex');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const builder = join(dirname(require.resolve('@jupyter/builder/package.json')), 'lib', 'build-labextension.js');
  const core = require.resolve('@jupyterlab/core-meta/core.package.json');
  execFileSync(process.execPath, [builder, '--core-package-file', core, ROOT], { cwd: ROOT, stdio: 'inherit' });
  const stamp = { sources_sha256: sourceHash(), files: sourceFiles() };
  writeFileSync(join(OUTPUT, 'build-stamp.json'), JSON.stringify(stamp, null, 2) + '\n');
  const size = (dir) => readdirSync(dir).reduce((n, f) => n + (statSync(join(dir, f)).isDirectory() ? size(join(dir, f)) : statSync(join(dir, f)).size), 0);
  console.log(`labextension built in ${relative(process.cwd(), OUTPUT).split(sep).join('/') || '.'} (${size(OUTPUT)} bytes), stamp ${stamp.sources_sha256.slice(0, 12)}`);
}
