import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { describeBundle, readBundle } from '../src/bundle';
import { contentSecurityPolicy, missingReportPage, reportForWebview } from '../src/triage/report/html';
import { describeSetting, scopesWithValue } from '../src/settingsScope';

describe('the HTML report in a webview', () => {
  const report = '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>nnie-triage report</title><style>td{color:#1a7f37}</style></head>' +
    '<body><h1>nnie-triage report</h1><svg width="4"></svg><script>alert(1)</script></body></html>';
  it('gets a CSP with no scripts and no network, and a light page', () => {
    const page = reportForWebview(report, 'vscode-resource:');
    assert.match(page, /<head lang="en"|<head>/);
    assert.ok(page.indexOf('Content-Security-Policy') < page.indexOf('<title>'), 'the CSP comes first in <head>');
    assert.ok(page.includes(contentSecurityPolicy('vscode-resource:')));
    assert.doesNotMatch(contentSecurityPolicy('x'), /script-src|connect-src/);
    assert.match(contentSecurityPolicy('x'), /default-src 'none'/);
    assert.doesNotMatch(page, /<script/);
    assert.match(page, /<h1>nnie-triage report<\/h1><svg/);
    assert.match(page, /background:#ffffff/);
  });
  it('wraps a fragment and explains a missing report', () => {
    assert.match(reportForWebview('<p>x</p>', 'c'), /^<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy".*<body><p>x<\/p><\/body>/);
    const missing = missingReportPage('/p/.nnie-triage/a<b>.html', 'ENOENT', 'c');
    assert.match(missing, /a&lt;b&gt;\.html/);
    assert.match(missing, /Run Accuracy Triage/);
  });
});

describe('which settings scope a value came from', () => {
  it('names the scope, and says when a value set somewhere is not applied', () => {
    assert.equal(describeSetting('nnie.interpreter', '', { key: 'nnie.interpreter', defaultValue: '' }), 'nnie.interpreter is not set (checked every settings scope)');
    assert.match(describeSetting('nnie.interpreter', '/u/py', { key: 'nnie.interpreter', defaultValue: '', globalValue: '/u/py' }), /^nnie\.interpreter = "\/u\/py" \(from User settings/);
    assert.match(
      describeSetting('nnie.interpreter', '/w/py', { key: 'nnie.interpreter', globalValue: '/u/py', workspaceValue: '/w/py' }),
      /= "\/w\/py" \(from Workspace settings\)/,
    );
    assert.match(describeSetting('nnie.interpreter', '', { key: 'nnie.interpreter', globalValue: '/u/py' }), /has a value in User settings.*"\/u\/py".*VS Code applies none here/);
    assert.deepEqual(scopesWithValue({ key: 'k', globalValue: [], workspaceFolderValue: ['a'] }).map((s) => s.scope), ['Workspace Folder settings']);
  });
});

describe('the bundled server inside the extension folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nnie-ext-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  it('finds the launcher, the wheel and the libraries', () => {
    mkdirSync(join(dir, 'bundled', 'tool'), { recursive: true });
    mkdirSync(join(dir, 'bundled', 'wheels'), { recursive: true });
    writeFileSync(join(dir, 'bundled', 'tool', 'launch.py'), '');
    writeFileSync(join(dir, 'bundled', 'wheels', 'nnie_lsp-0.1.0-py3-none-any.whl'), '');
    let bundle = readBundle(dir);
    assert.equal(bundle.launcher, join(dir, 'bundled', 'tool', 'launch.py'));
    assert.equal(bundle.wheel, join(dir, 'bundled', 'wheels', 'nnie_lsp-0.1.0-py3-none-any.whl'), 'found without a manifest');
    assert.equal(bundle.hasLibs, false);
    assert.match(describeBundle(bundle), /carries no server/);
    mkdirSync(join(dir, 'bundled', 'libs'));
    writeFileSync(join(dir, 'bundled', 'manifest.json'), JSON.stringify({ target: 'linux-x64', nnie_lsp: '0.1.0', wheel: 'wheels/nnie_lsp-0.1.0-py3-none-any.whl', pythons: ['3.10', '3.11'] }));
    bundle = readBundle(dir);
    assert.equal(bundle.hasLibs, true);
    assert.equal(describeBundle(bundle), 'bundled nnie-lsp 0.1.0 (linux-x64 for Python 3.10, 3.11)');
    assert.equal(readBundle(join(dir, 'nowhere')).launcher, undefined);
  });
});
