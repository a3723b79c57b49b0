import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wkMessagePage, wkPage, wkPathOf } from '../src/wkPage';

describe('the .wk view', () => {
  it('shows the server page under a CSP without scripts or network', () => {
    const page = wkPage('<!DOCTYPE html><html><head><meta charset="utf-8"><title>x.wk</title></head><body><pre>table</pre><script>alert(1)</script></body></html>', 'vscode-resource:');
    assert.ok(page.includes("default-src 'none'") && page.includes('<pre>table</pre>'));
    assert.ok(!/<script/i.test(page) && !page.includes('script-src'));
    assert.ok(page.indexOf('Content-Security-Policy') < page.indexOf('<title>'));
  });
  it('says why there is no table, escaped', () => {
    const page = wkMessagePage('a<b>.wk', 'not running <now>', 'x');
    assert.ok(page.includes('a&lt;b&gt;.wk') && page.includes('not running &lt;now&gt;') && page.includes('Content-Security-Policy'));
  });
  it('takes the lens argument, a path or a file Uri', () => {
    assert.equal(wkPathOf({ path: '/p/nnie_model/x.wk' }), '/p/nnie_model/x.wk');
    assert.equal(wkPathOf('/p/x.wk'), '/p/x.wk');
    assert.equal(wkPathOf({ scheme: 'file', fsPath: '/p/y.wk', path: '/p/y.wk' }), '/p/y.wk');
    assert.equal(wkPathOf(undefined), undefined);
    assert.equal(wkPathOf({}), undefined);
  });
});
