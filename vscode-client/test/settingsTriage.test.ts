import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filterConfigurationResult, initializationOptions, readSettings, stripClientOnly } from '../src/settings';

const getter = (values: Record<string, unknown>) => <T>(key: string, fallback: T): T => (key in values ? (values[key] as T) : fallback);

describe('settings', () => {
  it('builds the nested nnie object with defaults', () => {
    assert.deepEqual(readSettings(getter({})), {
      server: { command: [] },
      interpreter: '',
      lint: { run: 'onType', select: null, ignore: [], severity: {}, workspace: false },
      sourceFramework: 'auto',
      language: 'auto',
      cfgFilePatterns: [],
      trace: { server: 'off' },
    });
  });
  it('passes values through and sanitises malformed ones', () => {
    const s = readSettings(
      getter({
        'server.command': ['/py', '-m', 'nnie_lsp', 3],
        'lint.run': 'onSave',
        'lint.select': ['NN3'],
        'lint.ignore': 'NN4',
        'lint.severity': { NN301: 'error', NN1: 7 },
        sourceFramework: 'onnx',
        language: 'zh-cn',
      }),
    );
    assert.deepEqual(s.server.command, ['/py', '-m', 'nnie_lsp']);
    assert.equal(s.lint.run, 'onSave');
    assert.deepEqual(s.lint.select, ['NN3']);
    assert.deepEqual(s.lint.ignore, []);
    assert.deepEqual(s.lint.severity, { NN301: 'error' });
    assert.equal(s.sourceFramework, 'onnx');
    assert.equal(s.language, 'zh-cn');
    assert.equal(readSettings(getter({ 'lint.run': 'sometimes' })).lint.run, 'onType');
    assert.deepEqual(readSettings(getter({ 'lint.select': [] })).lint.select, [], 'an explicit empty selection is kept');
    assert.equal(readSettings(getter({ 'lint.select': 'NN3' })).lint.select, null);
    assert.deepEqual(readSettings(getter({ 'lint.severity': ['x'] })).lint.severity, {});
  });
  it('sends the server only the keys it knows (lint, sourceFramework, language, trace)', () => {
    const o = initializationOptions(getter({ 'server.command': ['/py'], interpreter: '/py', cfgFilePatterns: ['x'], 'triage.simFolder': 'mq', 'lint.run': 'onSave' }));
    assert.deepEqual(Object.keys(o).sort(), ['language', 'lint', 'sourceFramework', 'trace']);
    assert.equal(o.lint.run, 'onSave');
  });
  it('strips client-only keys from workspace/configuration answers', () => {
    const nested = { server: { command: ['/py'], importStrategy: 'useBundled' }, interpreter: '', cfgFilePatterns: [], triage: { simFolder: 'mq' }, lint: { run: 'onType' }, language: 'auto' };
    assert.deepEqual(stripClientOnly(nested), { lint: { run: 'onType' }, language: 'auto' });
    assert.deepEqual(stripClientOnly({ 'server.command': [], 'triage.referenceFolder': 'output', 'lint.run': 'onSave' }), { 'lint.run': 'onSave' });
    assert.equal(stripClientOnly(null), null);
    const items = [{ section: 'nnie' }, { section: 'editor' }, {}];
    const result = [nested, { server: 1 }, { nnie: nested, other: 2 }];
    assert.deepEqual(filterConfigurationResult(items, result), [
      { lint: { run: 'onType' }, language: 'auto' },
      { server: 1 },
      { nnie: { lint: { run: 'onType' }, language: 'auto' }, other: 2 },
    ]);
    assert.equal(filterConfigurationResult(items, undefined), undefined);
  });
});

