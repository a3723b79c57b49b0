// Builds the VSIX with the server inside (see scripts/bundle_server.py for the layout).
//   node scripts/package.mjs                     this machine's target (linux-x64 here)
//   node scripts/package.mjs --target darwin-arm64 | linux-arm64 | win32-x64 | darwin-x64 | universal
//   node scripts/package.mjs --bundle-only       only (re)write bundled/
//   node scripts/package.mjs --vsix FILE         write the VSIX to FILE (e2e/run.sh: its own copy)
// Extra arguments after `--` go to bundle_server.py (e.g. `-- --extras '' --python 3.11,3.12`;
// a platform target bundles the extra reference, OpenCV, by default).
// NNIE_BUNDLE_PYTHON: the Python whose pip builds the bundle (default: python3).
// Output: nnie-lsp-<target>-<version>.vsix (nnie-lsp-<version>.vsix for universal), checked by check-vsix.mjs.
// bundled/ is shared: one packaging at a time (a lock folder, .package.lock, waited for; a lock
// whose process is gone is taken over), so `make test` and `make e2e-vscode` can run side by side.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'universal'];
const argv = process.argv.slice(2);
const dashdash = argv.indexOf('--');
const own = dashdash >= 0 ? argv.slice(0, dashdash) : argv;
const passOn = dashdash >= 0 ? argv.slice(dashdash + 1) : [];
const targetArg = own.includes('--target') ? own[own.indexOf('--target') + 1] : undefined;
const host = `${process.platform}-${process.arch}`;
const target = targetArg ?? (TARGETS.includes(host) ? host : 'universal');
if (!TARGETS.includes(target)) {
  console.error(`package: unknown target ${target} (one of ${TARGETS.join(', ')})`);
  process.exit(2);
}
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const python = process.env.NNIE_BUNDLE_PYTHON || (process.platform === 'win32' ? 'python' : 'python3');

function run(cmd, args) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) {
    console.error(`package: ${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
    process.exit(1);
  }
  return Date.now() - t0;
}

const LOCK = '.package.lock';
function lockHolder() {
  try {
    return Number(readFileSync(`${LOCK}/pid`, 'utf8'));
  } catch {
    return 0;
  }
}
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}
const waitUntil = Date.now() + 30 * 60 * 1000;
for (let said = false; ; ) {
  try {
    mkdirSync(LOCK);
    writeFileSync(`${LOCK}/pid`, String(process.pid));
    break;
  } catch (e) {
    if (e.code !== 'EEXIST') throw e;
    const holder = lockHolder();
    if (holder && !alive(holder)) {
      rmSync(LOCK, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > waitUntil) {
      console.error(`package: ${LOCK} is held by process ${holder || '?'} for 30 minutes; remove it if no packaging runs`);
      process.exit(1);
    }
    if (!said) {
      console.log(`package: waiting for another packaging (process ${holder || '?'}) to finish`);
      said = true;
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
  }
}
process.on('exit', () => {
  if (lockHolder() === process.pid) rmSync(LOCK, { recursive: true, force: true });
});

const bundleMs = run(python, ['scripts/bundle_server.py', '--target', target, ...passOn]);
if (own.includes('--bundle-only')) {
  process.exit(0);
}
const defaultFile = target === 'universal' ? `${pkg.name}-${pkg.version}.vsix` : `${pkg.name}-${target}-${pkg.version}.vsix`;
const file = own.includes('--vsix') ? own[own.indexOf('--vsix') + 1] : defaultFile;
const vsce = ['vsce', 'package', '--no-dependencies', '--allow-missing-repository', '-o', file];
if (target !== 'universal') {
  vsce.push('--target', target);
}
const packMs = run('npx', ['--no-install', ...vsce]);
run(process.execPath, ['scripts/check-vsix.mjs', file, '--target', target]);
console.log(`package: ${file} (bundle ${(bundleMs / 1000).toFixed(1)} s, vsce ${(packMs / 1000).toFixed(1)} s)`);
