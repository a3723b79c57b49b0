import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  checkServerImportable,
  describeCommand,
  expandVariables,
  importFailureMessage,
  pythonPrefixOf,
  resolveServerCommand,
} from '../src/serverCommand';

describe('resolveServerCommand', () => {
  it('prefers nnie.server.command', () => {
    const r = resolveServerCommand({
      serverCommand: ['/opt/py/bin/python', '-m', 'nnie_lsp'],
      interpreter: '/usr/bin/python3.11',
      pythonExtensionInterpreter: ['/venv/bin/python'],
    });
    assert.deepEqual(r, { command: '/opt/py/bin/python', args: ['-m', 'nnie_lsp'], source: 'nnie.server.command', python: ['/opt/py/bin/python'] });
  });
  it('keeps arbitrary commands without an import check', () => {
    const r = resolveServerCommand({ serverCommand: ['docker', 'run', '-i', 'nnie', 'nnie-lsp'] });
    assert.equal(r.command, 'docker');
    assert.deepEqual(r.args, ['run', '-i', 'nnie', 'nnie-lsp']);
    assert.equal(r.python, undefined);
  });
  it('finds the interpreter prefix in wrapped commands', () => {
    const r = resolveServerCommand({ serverCommand: ['conda', 'run', '-n', 'hi', 'python', '-u', '-m', 'nnie_lsp', '--log', 'x'] });
    assert.deepEqual(r.python, ['conda', 'run', '-n', 'hi', 'python', '-u']);
  });
  it('ignores an empty or malformed nnie.server.command', () => {
    assert.equal(resolveServerCommand({ serverCommand: [], defaultPython: 'python3' }).source, 'default');
    assert.equal(resolveServerCommand({ serverCommand: 'python -m nnie_lsp', defaultPython: 'python3' }).source, 'default');
    assert.equal(resolveServerCommand({ serverCommand: ['python', 3], defaultPython: 'python3' }).source, 'default');
    assert.equal(resolveServerCommand({ serverCommand: [''], defaultPython: 'python3' }).source, 'default');
  });
  it('uses nnie.interpreter next', () => {
    const r = resolveServerCommand({ interpreter: '  /venv/bin/python ', pythonExtensionInterpreter: ['/other/python'] });
    assert.deepEqual(r, { command: '/venv/bin/python', args: ['-m', 'nnie_lsp'], source: 'nnie.interpreter', python: ['/venv/bin/python'] });
  });
  it('then the Python extension interpreter (argv or string)', () => {
    const a = resolveServerCommand({ pythonExtensionInterpreter: ['conda', 'run', '-n', 'x', 'python'] });
    assert.deepEqual(a, { command: 'conda', args: ['run', '-n', 'x', 'python', '-m', 'nnie_lsp'], source: 'python-extension', python: ['conda', 'run', '-n', 'x', 'python'] });
    const b = resolveServerCommand({ pythonExtensionInterpreter: '/venv/bin/python' });
    assert.equal(b.command, '/venv/bin/python');
    assert.equal(b.source, 'python-extension');
  });
  it('falls back to python3', () => {
    const r = resolveServerCommand({ defaultPython: 'python3' });
    assert.deepEqual(r, { command: 'python3', args: ['-m', 'nnie_lsp'], source: 'default', python: ['python3'] });
    assert.equal(resolveServerCommand({ interpreter: '' , defaultPython: 'python3'}).source, 'default');
  });
  it('expands variables in both settings', () => {
    const ctx = { workspaceFolder: '/ws', home: '/home/u', env: { VENV: '/v' } };
    assert.equal(resolveServerCommand({ ...ctx, interpreter: '${workspaceFolder}/.venv/bin/python' }).command, '/ws/.venv/bin/python');
    assert.equal(resolveServerCommand({ ...ctx, interpreter: '~/py/bin/python' }).command, '/home/u/py/bin/python');
    assert.equal(resolveServerCommand({ ...ctx, serverCommand: ['${env:VENV}/bin/python', '-m', 'nnie_lsp'] }).command, '/v/bin/python');
    assert.equal(expandVariables('${userHome}/x ${env:MISSING}|', ctx), '/home/u/x |');
    assert.equal(expandVariables('${workspaceFolder}/x', {}), '${workspaceFolder}/x');
  });
});

describe('pythonPrefixOf / describeCommand', () => {
  it('needs -m nnie_lsp', () => {
    assert.deepEqual(pythonPrefixOf(['py', '-m', 'nnie_lsp']), ['py']);
    assert.equal(pythonPrefixOf(['py', '-m', 'other']), undefined);
    assert.equal(pythonPrefixOf(['nnie-lsp']), undefined);
  });
  it('quotes arguments with spaces', () => {
    assert.equal(describeCommand({ command: '/a b/python', args: ['-m', 'nnie_lsp'] }), '"/a b/python" -m nnie_lsp');
  });
});

describe('checkServerImportable (spawns python3)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nnie-import-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'ok', 'nnie_lsp'), { recursive: true });
  writeFileSync(join(dir, 'ok', 'nnie_lsp', '__init__.py'), '__version__ = "9.8.7"\n');
  writeFileSync(join(dir, 'ok', 'nnie_lsp', '__main__.py'), 'raise SystemExit("must not run during the check")\n');
  mkdirSync(join(dir, 'lib-only', 'nnie_lsp'), { recursive: true });
  writeFileSync(join(dir, 'lib-only', 'nnie_lsp', '__init__.py'), '__version__ = "0.0.1"\n');
  mkdirSync(join(dir, 'broken', 'nnie_lsp'), { recursive: true });
  writeFileSync(join(dir, 'broken', 'nnie_lsp', '__init__.py'), 'raise RuntimeError("boom in init")\n');
  const env = (sub: string) => ({ ...process.env, PYTHONPATH: join(dir, sub) });

  it('reports ok with the version', async () => {
    assert.deepEqual(await checkServerImportable(['python3'], { env: env('ok') }), { ok: true, version: '9.8.7' });
  });
  it('reports a missing module with a pip fix', async () => {
    const r = await checkServerImportable(['python3'], { env: env('empty'), module: 'nnie_lsp_surely_missing' });
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.reason === 'not-installed' && /No module named/.test(r.detail), JSON.stringify(r));
    const msg = importFailureMessage(r as Exclude<typeof r, { ok: true }>, resolveServerCommand({ defaultPython: 'python3' }));
    assert.match(msg, /python3 -m pip install nnie-lsp/);
    assert.match(msg, /nnie\.interpreter/);
  });
  it('reports a package without a server entry point', async () => {
    const r = await checkServerImportable(['python3'], { env: env('lib-only') });
    assert.ok(!r.ok && r.reason === 'no-server' && /0\.0\.1/.test(r.detail), JSON.stringify(r));
    const msg = importFailureMessage(r as Exclude<typeof r, { ok: true }>, resolveServerCommand({ defaultPython: 'python3' }));
    assert.match(msg, /has no language server/);
    assert.match(msg, /pip install --upgrade nnie-lsp/);
  });
  it('reports an import that raises', async () => {
    const r = await checkServerImportable(['python3'], { env: env('broken') });
    assert.ok(!r.ok && r.reason === 'failed' && /boom in init/.test(r.detail), JSON.stringify(r));
  });
  it('reports an interpreter that does not exist', async () => {
    const r = await checkServerImportable([join(dir, 'no', 'python')]);
    assert.ok(!r.ok && r.reason === 'not-found', JSON.stringify(r));
    const msg = importFailureMessage(r as Exclude<typeof r, { ok: true }>, resolveServerCommand({ interpreter: join(dir, 'no', 'python') }));
    assert.match(msg, /cannot run the Python interpreter/);
  });
});
