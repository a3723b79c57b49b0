import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  commandIn,
  defaultPythonNames,
  describeCommand,
  expandVariables,
  explicitServerCommand,
  interpreterCandidates,
  isSupportedVersion,
  judgeProbe,
  launchFailureMessage,
  noPythonMessage,
  pipInstallCommand,
  probeInterpreter,
  pythonPrefixOf,
  serverCommandFor,
  triageUnavailableMessage,
} from '../src/serverCommand';

const LAUNCHER = join(__dirname, '..', '..', 'bundled', 'tool', 'launch.py');

describe('which interpreter runs the server', () => {
  it('nnie.server.command wins and is started as it is', () => {
    const r = explicitServerCommand({ serverCommand: ['/opt/py/bin/python', '-m', 'nnie_lsp'], interpreter: '/usr/bin/python3.11' });
    assert.deepEqual(r, { command: '/opt/py/bin/python', args: ['-m', 'nnie_lsp'], source: 'nnie.server.command', python: ['/opt/py/bin/python'] });
    const docker = explicitServerCommand({ serverCommand: ['docker', 'run', '-i', 'nnie', 'nnie-lsp'] });
    assert.equal(docker?.command, 'docker');
    assert.equal(docker?.python, undefined, 'an arbitrary command is not probed');
    const conda = explicitServerCommand({ serverCommand: ['conda', 'run', '-n', 'hi', 'python', '-u', '-m', 'nnie_lsp', '--log', 'x'] });
    assert.deepEqual(conda?.python, ['conda', 'run', '-n', 'hi', 'python', '-u']);
  });
  it('ignores an empty or malformed nnie.server.command', () => {
    for (const bad of [[], 'python -m nnie_lsp', ['python', 3], [''], undefined]) {
      assert.equal(explicitServerCommand({ serverCommand: bad }), undefined, JSON.stringify(bad));
    }
  });
  it('nnie.interpreter is the only candidate and final', () => {
    const c = interpreterCandidates({ interpreter: '  /venv/bin/python ', pythonExtensionInterpreter: ['/other/python'] });
    assert.deepEqual(c, [{ python: ['/venv/bin/python'], source: 'nnie.interpreter', final: true }]);
  });
  it('then the Python extension, then PATH names, none final', () => {
    const c = interpreterCandidates({ pythonExtensionInterpreter: ['conda', 'run', '-n', 'x', 'python'], platform: 'linux' });
    assert.deepEqual(c[0], { python: ['conda', 'run', '-n', 'x', 'python'], source: 'python-extension', final: false });
    assert.deepEqual(c.slice(1).map((x) => x.python.join(' ')), ['python3', 'python', 'python3.14', 'python3.13', 'python3.12', 'python3.11', 'python3.10']);
    assert.ok(c.every((x) => !x.final));
    assert.deepEqual(interpreterCandidates({ pythonExtensionInterpreter: '/venv/bin/python', platform: 'linux' })[0].python, ['/venv/bin/python']);
    assert.deepEqual(defaultPythonNames('win32')[0], ['py', '-3']);
  });
  it('runs the bundled launcher, or -m nnie_lsp from the environment', () => {
    const candidate = { python: ['conda', 'run', 'python'], source: 'python-extension' as const, final: false };
    const bundled = serverCommandFor(candidate, '/ext/bundled/tool/launch.py', 'useBundled');
    assert.equal(bundled.command, 'conda');
    assert.deepEqual(bundled.args, ['run', 'python', '/ext/bundled/tool/launch.py']);
    assert.equal(bundled.bundled, true);
    assert.equal(bundled.env?.NNIE_IMPORT_STRATEGY, 'useBundled');
    const own = serverCommandFor(candidate, '/ext/bundled/tool/launch.py', 'fromEnvironment');
    assert.deepEqual(own.args, ['run', 'python', '-m', 'nnie_lsp']);
    assert.equal(own.bundled, false);
  });
  it('expands variables in both settings', () => {
    const ctx = { workspaceFolder: '/ws', home: '/home/u', env: { VENV: '/v' } };
    assert.deepEqual(interpreterCandidates({ ...ctx, interpreter: '${workspaceFolder}/.venv/bin/python' })[0].python, ['/ws/.venv/bin/python']);
    assert.deepEqual(interpreterCandidates({ ...ctx, interpreter: '~/py/bin/python' })[0].python, ['/home/u/py/bin/python']);
    assert.equal(explicitServerCommand({ ...ctx, serverCommand: ['${env:VENV}/bin/python', '-m', 'nnie_lsp'] })?.command, '/v/bin/python');
    assert.equal(expandVariables('${userHome}/x ${env:MISSING}|', ctx), '/home/u/x |');
    assert.equal(expandVariables('${workspaceFolder}/x', {}), '${workspaceFolder}/x');
  });
  it('pythonPrefixOf / describeCommand', () => {
    assert.deepEqual(pythonPrefixOf(['py', '-m', 'nnie_lsp']), ['py']);
    assert.equal(pythonPrefixOf(['py', '-m', 'other']), undefined);
    assert.equal(describeCommand({ command: '/a b/python', args: ['-m', 'nnie_lsp'] }), '"/a b/python" -m nnie_lsp');
  });
  it('Python 3.10 is the oldest supported', () => {
    assert.ok(isSupportedVersion('3.10.0'));
    assert.ok(isSupportedVersion('3.14.1'));
    assert.ok(!isSupportedVersion('3.9.18'));
    assert.ok(!isSupportedVersion('2.7.18'));
  });
});

describe('messages always end with something that works', () => {
  const wheel = '/home/u/.vscode/extensions/nnie-lsp.nnie-lsp-0.1.0-linux-x64/bundled/wheels/nnie_lsp-0.1.0-py3-none-any.whl';
  it('never tells to pip install nnie-lsp from an index', () => {
    const messages = [
      launchFailureMessage({ kind: 'no-server', detail: "ModuleNotFoundError: No module named 'nnie_lsp'" }, ['/usr/bin/python3'], wheel),
      launchFailureMessage({ kind: 'failed', detail: 'boom' }, ['/usr/bin/python3'], wheel),
      launchFailureMessage({ kind: 'too-old', detail: 'Python 3.8.10' }, ['python3'], wheel),
      launchFailureMessage({ kind: 'not-found', detail: 'no such file' }, ['/nope/python'], wheel),
      triageUnavailableMessage(['python3'], '3.15.0', ['numpy'], wheel, 'linux-x64'),
      noPythonMessage([{ python: ['python3'], outcome: 'Python 3.8.10 (too old)' }, { python: ['python'], outcome: 'not found' }]),
    ];
    for (const m of messages) {
      assert.doesNotMatch(m, /pip install (--upgrade )?nnie-lsp/, m);
    }
    assert.match(messages[0], new RegExp(`/usr/bin/python3 -m pip install ${wheel.replace(/[.]/g, '\\.')}`));
    assert.match(messages[2], /needs Python 3\.10 or newer/);
    assert.match(messages[2], /nnie\.interpreter/);
    assert.match(messages[4], /numpy/);
    assert.match(messages[4], /-m pip install \/home\/u/);
    assert.match(messages[5], /python3: Python 3\.8\.10 \(too old\); python: not found/);
  });
  it('the Copy Command button copies the command the message names', () => {
    const m = launchFailureMessage({ kind: 'no-server', detail: 'x' }, ['/usr/bin/python3'], '/e/x.whl');
    assert.equal(commandIn(m), '/usr/bin/python3 -m pip install /e/x.whl');
    assert.equal(commandIn(triageUnavailableMessage(['py', '-3'], '3.15.0', ['numpy'], '/e/x.whl')), 'py -3 -m pip install /e/x.whl');
    assert.equal(commandIn('NNIE: nothing to run'), undefined);
  });
  it('quotes paths with spaces for a shell', () => {
    assert.equal(pipInstallCommand(['C:\\Program Files\\Python312\\python.exe'], 'C:\\Users\\me\\ext dir\\x.whl'), '"C:\\Program Files\\Python312\\python.exe" -m pip install "C:\\Users\\me\\ext dir\\x.whl"');
  });
});

describe('launch.py --check and the server start (spawns python3 -S: no site-packages)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nnie-bundle-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const version = execFileSync('python3', ['-S', '-c', 'import sys; print("%d%d" % sys.version_info[:2])']).toString().trim();
  const py = ['python3', '-S'];
  const pkg = (root: string, name: string, init = '', main?: string) => {
    mkdirSync(join(root, ...name.split('.')), { recursive: true });
    writeFileSync(join(root, ...name.split('.'), '__init__.py'), init);
    if (main !== undefined) {
      writeFileSync(join(root, ...name.split('.'), '__main__.py'), main);
    }
  };
  const bundle = (name: string) => {
    const root = join(dir, name, 'bundled');
    mkdirSync(join(root, 'tool'), { recursive: true });
    copyFileSync(LAUNCHER, join(root, 'tool', 'launch.py'));
    writeFileSync(join(root, 'manifest.json'), JSON.stringify({ target: 'linux-x64', pythons: ['3.11'], wheel: 'wheels/nnie_lsp-9.9.9-py3-none-any.whl' }));
    return root;
  };
  // A complete bundle: the server's packages in libs/, numpy for this CPython in libs-cpXY/.
  const good = bundle('good');
  pkg(join(good, 'libs'), 'nnie_lsp', '__version__ = "9.9.9"\n',
    'import json, os, sys\nprint(json.dumps({"argv": sys.argv, "pythonpath": os.environ.get("PYTHONPATH", "")}))\n');
  for (const name of ['pygls', 'lsprotocol', 'lark', 'google', 'google.protobuf']) {
    pkg(join(good, 'libs'), name);
  }
  pkg(join(good, `libs-cp${version}`), 'numpy');
  // A bundle whose nnie_lsp raises, and one without the server entry point.
  const broken = bundle('broken');
  pkg(join(broken, 'libs'), 'nnie_lsp', 'raise RuntimeError("boom in init")\n');
  const libOnly = bundle('lib-only');
  pkg(join(libOnly, 'libs'), 'nnie_lsp', '__version__ = "0.0.1"\n');
  for (const name of ['pygls', 'lsprotocol', 'lark']) {
    pkg(join(libOnly, 'libs'), name);
  }

  it('a complete bundle is ready; the per-version folder comes first', async () => {
    const probe = await probeInterpreter(py, join(good, 'tool', 'launch.py'));
    assert.equal(probe.kind, 'ok', JSON.stringify(probe));
    if (probe.kind !== 'ok') return;
    assert.deepEqual(probe.report.bundle_paths, [join(good, `libs-cp${version}`), join(good, 'libs')]);
    assert.equal(probe.report.nnie_lsp, '9.9.9');
    assert.equal(probe.report.wheel, join(good, 'wheels', 'nnie_lsp-9.9.9-py3-none-any.whl'));
    assert.deepEqual(Object.keys(probe.report.missing), ['cv2']);
    assert.deepEqual(judgeProbe(probe), { kind: 'ready', missingForTriage: [], missingForReference: true });
  });
  it('without numpy for this Python the server still runs, and the triage gap is named', async () => {
    const noNumpy = bundle('no-numpy');
    for (const name of ['nnie_lsp', 'pygls', 'lsprotocol', 'lark']) {
      pkg(join(noNumpy, 'libs'), name, '', name === 'nnie_lsp' ? '' : undefined);
    }
    const verdict = judgeProbe(await probeInterpreter(py, join(noNumpy, 'tool', 'launch.py')));
    assert.deepEqual(verdict, { kind: 'ready', missingForTriage: ['numpy', 'google.protobuf'], missingForReference: true });
  });
  it('fromEnvironment ignores the bundle: no nnie_lsp, and the fix names the bundled wheel', async () => {
    const verdict = judgeProbe(await probeInterpreter(py, join(good, 'tool', 'launch.py'), { strategy: 'fromEnvironment' }));
    assert.equal(verdict.kind, 'no-server');
    if (verdict.kind !== 'no-server') return;
    assert.match(verdict.detail, /No module named 'nnie_lsp'/);
    assert.match(launchFailureMessage(verdict, py, '/ext/bundled/wheels/nnie_lsp-9.9.9-py3-none-any.whl'), /python3 -S -m pip install \/ext\/bundled\/wheels\/nnie_lsp-9\.9\.9/);
  });
  it('an nnie_lsp that raises, or has no server, cannot run', async () => {
    const raised = judgeProbe(await probeInterpreter(py, join(broken, 'tool', 'launch.py')));
    assert.ok(raised.kind === 'no-server' && /boom in init/.test(raised.detail), JSON.stringify(raised));
    const partial = judgeProbe(await probeInterpreter(py, join(libOnly, 'tool', 'launch.py')));
    assert.ok(partial.kind === 'no-server' && /has no language server/.test(partial.detail), JSON.stringify(partial));
  });
  it('an interpreter that does not exist', async () => {
    const probe = await probeInterpreter([join(dir, 'no', 'python')], join(good, 'tool', 'launch.py'));
    assert.equal(probe.kind, 'not-found');
    assert.match(launchFailureMessage(judgeProbe(probe) as never, [join(dir, 'no', 'python')], undefined), /cannot run the Python interpreter/);
  });
  it('a too-old Python is reported by version', () => {
    const verdict = judgeProbe({ kind: 'ok', report: { python: '3.9.18', too_old: true, missing: {} } });
    assert.deepEqual(verdict, { kind: 'too-old', detail: 'Python 3.9.18' });
  });
  it('the launcher starts nnie_lsp with its arguments and hands the bundle to child processes', () => {
    const out = execFileSync('python3', ['-S', join(good, 'tool', 'launch.py'), '--lang', 'en'], { env: { ...process.env, PYTHONPATH: '/inherited' } }).toString();
    const seen = JSON.parse(out.trim().split('\n').pop()!);
    assert.deepEqual(seen.argv.slice(1), ['--lang', 'en']);
    assert.deepEqual(seen.pythonpath.split(':'), [join(good, `libs-cp${version}`), join(good, 'libs'), '/inherited']);
  });
});
