import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { installArgs, installButton, installCommandLine, installedMessage, installPrompt, pipFailure, problemOf } from '../src/packageInstall';
import { probeInterpreter } from '../src/serverCommand';

const CLIENT = join(__dirname, '..', '..');
const LAUNCHER = join(CLIENT, 'bundled', 'tool', 'launch.py');

describe('installing a missing package into the extension folder', () => {
  const place = { python: ['/usr/bin/python3'], pipWheel: '/ext/bundled/wheels/pip-25.0-py3-none-any.whl', folder: '/gs/python-packages/cp311-linux_x86_64', version: '3.11.7' };
  it('runs pip from the bundled wheel with --target, the requirement last', () => {
    const args = installArgs(place.pipWheel, place.folder, ['opencv-python-headless>=4.8,<5']);
    assert.equal(args[0], `${place.pipWheel}/pip`);
    assert.equal(args[1], 'install');
    assert.equal(args[args.indexOf('--target') + 1], place.folder);
    assert.ok(args.includes('--upgrade'), 'an earlier install into the folder is replaced');
    assert.deepEqual(args.slice(-1), ['opencv-python-headless>=4.8,<5']);
    assert.equal(
      installCommandLine(place, ['numpy>=1.26,<3']),
      '/usr/bin/python3 /ext/bundled/wheels/pip-25.0-py3-none-any.whl/pip install --disable-pip-version-check --no-input --no-warn-script-location --prefer-binary --upgrade --target /gs/python-packages/cp311-linux_x86_64 "numpy>=1.26,<3"',
    );
  });
  it('the question names what, for which Python, where, and that the server restarts', () => {
    const problem = 'NNIE reference (Caffe forward) needs OpenCV (the Python module cv2), which /usr/bin/python3 cannot import.';
    const text = installPrompt(problem, 'OpenCV', ['opencv-python-headless>=4.8,<5'], place);
    assert.ok(text.startsWith(`${problem} Install opencv-python-headless>=4.8,<5 (OpenCV, from PyPI) for Python 3.11 into the extension's own folder ${place.folder}?`), text);
    assert.match(text, /restarts/);
    assert.ok(installPrompt('the server lacks numpy.', 'numpy', ['numpy>=1.26,<3'], place).startsWith('NNIE: the server lacks numpy. Install numpy>=1.26,<3'));
    assert.equal(installButton('OpenCV'), 'Install OpenCV');
  });
  it('after the install says what to do next: run the failed command again, or (at start-up) what works now', () => {
    assert.equal(installedMessage('OpenCV', place.folder), `NNIE: OpenCV installed; the language server restarted with it. Run the command again. (Folder: ${place.folder})`);
    const startup = installedMessage('numpy', place.folder, 'Accuracy triage can run now.');
    assert.ok(startup.startsWith('NNIE: numpy installed; the language server restarted with it. Accuracy triage can run now. (Folder: '), startup);
    assert.doesNotMatch(startup, /command again/);
  });
  it('takes the problem from the server data, else the message up to "cannot import."', () => {
    const data = { module: 'cv2', package: 'OpenCV', requirement: 'opencv-python-headless>=4.8,<5' };
    assert.equal(problemOf({ ...data, problem: 'P.' }, 'P. Install it: x'), 'P.');
    assert.equal(problemOf(data, 'X needs OpenCV, which /p cannot import. That virtual environment has no pip: …'), 'X needs OpenCV, which /p cannot import.');
  });
  it("says why pip failed with pip's own error lines", () => {
    const out = 'Collecting numpy\n  WARNING: Retrying (Retry(total=4)) after connection broken\nERROR: Could not find a version that satisfies the requirement numpy\nERROR: No matching distribution found for numpy\n';
    assert.equal(pipFailure(out), 'ERROR: Could not find a version that satisfies the requirement numpy ERROR: No matching distribution found for numpy');
    assert.equal(pipFailure(''), 'no output');
  });
});

/** A pip wheel to run: the bundle's (after a packaging), else the one in python3's ensurepip. */
function findPipWheel(): string | undefined {
  const wheels = join(CLIENT, 'bundled', 'wheels');
  const bundled = existsSync(wheels) ? readdirSync(wheels).filter((f) => /^pip-.*\.whl$/.test(f)) : [];
  if (bundled.length) {
    return join(wheels, bundled[0]);
  }
  const r = spawnSync('python3', ['-c', 'import ensurepip, os; d = os.path.join(os.path.dirname(ensurepip.__file__), "_bundled"); print(next(os.path.join(d, f) for f in os.listdir(d) if f.startswith("pip-")))'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

describe('the install with a Python that has no pip (real python3, offline)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nnie-install-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const pipWheel = findPipWheel();
  it('installs into the folder launch.py names, which the bundled server then puts on its path', { skip: pipWheel ? false : 'no pip wheel (no bundle, no ensurepip)' }, async () => {
    const bare = join(dir, 'bare');
    execFileSync('python3', ['-m', 'venv', '--without-pip', bare]);
    const python = join(bare, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
    assert.notEqual(spawnSync(python, ['-c', 'import pip']).status, 0, 'the venv must have no pip');
    // a tiny wheel, installed without an index (the test runs offline)
    const wheel = execFileSync(python, ['-c', `
import base64, hashlib, os, sys, zipfile
out = sys.argv[1]
files = {"nnie_demo_pkg/__init__.py": b"VALUE = 42\\n",
         "nnie_demo_pkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\\nName: nnie-demo-pkg\\nVersion: 1.0\\n",
         "nnie_demo_pkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"}
record = "".join("%s,sha256=%s,%d\\n" % (n, base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode(), len(d)) for n, d in files.items())
path = os.path.join(out, "nnie_demo_pkg-1.0-py3-none-any.whl")
with zipfile.ZipFile(path, "w") as z:
    for n, d in files.items():
        z.writestr(n, d)
    z.writestr("nnie_demo_pkg-1.0.dist-info/RECORD", record + "nnie_demo_pkg-1.0.dist-info/RECORD,,\\n")
print(path)
`, dir], { encoding: 'utf8' }).trim();
    const env = { ...process.env, NNIE_PACKAGES_ROOT: join(dir, 'python-packages') };
    const before = await probeInterpreter([python], LAUNCHER, { env });
    assert.equal(before.kind, 'ok');
    const folder = before.kind === 'ok' ? before.report.packages_dir : undefined;
    assert.ok(folder && folder.startsWith(join(dir, 'python-packages', 'cp3')), `packages_dir ${folder}`);
    assert.ok(!(before.kind === 'ok' && before.report.bundle_paths?.includes(folder!)), 'not on the path before it exists');
    const r = spawnSync(python, [...installArgs(pipWheel!, folder!, [wheel]), '--no-index'], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: '' } });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const afterwards = await probeInterpreter([python], LAUNCHER, { env });
    assert.ok(afterwards.kind === 'ok' && afterwards.report.bundle_paths?.includes(folder!), 'the launcher puts the folder on the path');
    const value = spawnSync(python, ['-c', 'import nnie_demo_pkg; print(nnie_demo_pkg.VALUE)'], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: folder } });
    assert.equal(value.stdout.trim(), '42', value.stderr);
  });
});
