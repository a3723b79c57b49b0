// Tokenizes sample lines with the real TextMate engine VS Code uses
// (vscode-textmate + the Oniguruma WASM) and checks the scopes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import * as oniguruma from 'vscode-oniguruma';
import * as vsctm from 'vscode-textmate';

const root = join(__dirname, '..', '..');
let registry: vsctm.Registry;

before(async () => {
  const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources: string[]) => new oniguruma.OnigScanner(sources),
      createOnigString: (s: string) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName: string) => {
      const file = { 'source.prototxt': 'prototxt.tmLanguage.json', 'source.nnie-cfg': 'nnie-cfg.tmLanguage.json' }[scopeName];
      if (!file) {
        return null;
      }
      const path = join(root, 'syntaxes', file);
      return vsctm.parseRawGrammar(readFileSync(path, 'utf8'), path);
    },
  });
});

/** Returns [text, scopes] pairs for every token of every line. */
async function tokenize(scope: string, text: string): Promise<Array<[string, string]>> {
  const grammar = await registry.loadGrammar(scope);
  assert.ok(grammar, scope);
  let state = vsctm.INITIAL;
  const out: Array<[string, string]> = [];
  for (const line of text.split('\n')) {
    const r = grammar.tokenizeLine(line, state);
    for (const t of r.tokens) {
      out.push([line.slice(t.startIndex, t.endIndex), t.scopes.join(' ')]);
    }
    state = r.ruleStack;
  }
  return out;
}

function scopeOf(tokens: Array<[string, string]>, text: string, nth = 0): string {
  const hits = tokens.filter(([t]) => t === text);
  assert.ok(hits.length > nth, `token ${JSON.stringify(text)} not found in ${JSON.stringify(tokens)}`);
  return hits[nth][1];
}

describe('nnie-cfg grammar', () => {
  const sample = [
    '# mapper cfg  [net_type] inside a comment',
    '[prototxt_file] ./model/yolo.prototxt',
    '[RGB_order] BGR  # trailing remark',
    '[data_scale] 0.0039215686',
    '[norm_type] 5',
    '[batch_num] -1',
    '[net_typ] 0',
    '[mean_file] C:\\nnie\\mean.txt',
    '[image_list] images.txt',
  ].join('\n');

  it('scopes comments, known and unknown keys, numbers, enums and paths', async () => {
    const tokens = await tokenize('source.nnie-cfg', sample);
    assert.match(scopeOf(tokens, ' mapper cfg  [net_type] inside a comment'), /comment\.line\.number-sign\.nnie-cfg/);
    assert.equal(tokens.filter(([t]) => t === 'net_type').length, 0, 'a key inside a comment is not a key');
    assert.match(scopeOf(tokens, 'prototxt_file'), /support\.type\.property-name\.key\.known\.nnie-cfg/);
    assert.match(scopeOf(tokens, 'RGB_order'), /key\.known/);
    assert.match(scopeOf(tokens, 'net_typ'), /invalid\.deprecated\.key\.unknown\.nnie-cfg/);
    assert.doesNotMatch(scopeOf(tokens, 'net_typ'), /key\.known/);
    assert.match(scopeOf(tokens, '['), /punctuation\.definition\.key\.begin/);
    assert.match(scopeOf(tokens, './model/yolo.prototxt'), /string\.unquoted\.path/);
    assert.match(scopeOf(tokens, 'C:\\nnie\\mean.txt'), /string\.unquoted\.path/);
    assert.match(scopeOf(tokens, 'images.txt'), /string\.unquoted\.path/);
    assert.match(scopeOf(tokens, 'BGR'), /constant\.language\.enum\.rgb-order/);
    assert.match(scopeOf(tokens, '0.0039215686'), /constant\.numeric/);
    assert.match(scopeOf(tokens, '5'), /constant\.numeric/);
    assert.match(scopeOf(tokens, '-1'), /constant\.numeric/);
    assert.match(scopeOf(tokens, ' trailing remark'), /comment\.line/);
  });

  it('scopes look-alike keys (RuyiStudio labels, ATC keys) apart from mapper and unknown keys', async () => {
    const tokens = await tokenize('source.nnie-cfg', '[align_bytes] 16\n[output_wk_name] inst\n[insert_op_conf] ./aipp.cfg\n[align_bytes_x] 1\n[gfpq_param_file] ');
    for (const key of ['align_bytes', 'output_wk_name', 'insert_op_conf']) {
      assert.match(scopeOf(tokens, key), /invalid\.deprecated\.key\.lookalike\.nnie-cfg/, key);
      assert.doesNotMatch(scopeOf(tokens, key), /key\.known|key\.unknown/, key);
    }
    assert.match(scopeOf(tokens, 'align_bytes_x'), /key\.unknown/);
    assert.match(scopeOf(tokens, 'gfpq_param_file'), /key\.known/);
    assert.match(scopeOf(tokens, ']', 4), /punctuation\.definition\.key\.end/);
  });
});

describe('prototxt grammar', () => {
  const sample = [
    'name: "yolo"  # net',
    'input: "data"',
    'input_shape { dim: 1 dim: 3 dim: 416 dim: 416 }',
    'layer {',
    '  name: "conv1"',
    '  type: "Convolution"',
    '  bottom: "data"',
    '  top: "conv1"',
    '  convolution_param {',
    '    num_output: 16',
    '    bias_term: false',
    '    weight_filler { type: "xavier" std: 1e-3 }',
    '  }',
    '}',
    'layer {',
    '  name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"',
    '  pooling_param { pool: MAX kernel_size: 2 stride: 2 }',
    '}',
    'layers { name: "old" type: RELU bottom: "pool1" top: "pool1" }',
    'foo: [1, 2.5, -3]',
  ].join('\n');

  it('scopes layer blocks, type values, field names, strings, numbers and enums', async () => {
    const tokens = await tokenize('source.prototxt', sample);
    assert.match(scopeOf(tokens, 'layer'), /storage\.type\.layer\.prototxt/);
    assert.match(scopeOf(tokens, 'layers'), /storage\.type\.layer\.prototxt/);
    assert.match(scopeOf(tokens, 'Convolution'), /entity\.name\.type\.layer\.prototxt/);
    assert.match(scopeOf(tokens, 'Convolution'), /meta\.layer\.prototxt/);
    assert.match(scopeOf(tokens, 'RELU'), /entity\.name\.type\.layer\.prototxt/);
    assert.match(scopeOf(tokens, 'Pooling'), /entity\.name\.type\.layer/);
    assert.match(scopeOf(tokens, 'num_output'), /support\.type\.property-name\.prototxt/);
    assert.match(scopeOf(tokens, 'convolution_param'), /entity\.name\.tag\.message\.prototxt/);
    assert.match(scopeOf(tokens, 'conv1', 0), /entity\.name\.function\.layer-name/);
    assert.match(scopeOf(tokens, 'data', 1), /variable\.other\.blob\.prototxt/);
    assert.match(scopeOf(tokens, '16'), /constant\.numeric\.prototxt/);
    assert.match(scopeOf(tokens, '1e-3'), /constant\.numeric\.prototxt/);
    assert.match(scopeOf(tokens, '-3'), /constant\.numeric\.prototxt/);
    assert.match(scopeOf(tokens, 'false'), /constant\.language\.boolean/);
    assert.match(scopeOf(tokens, 'MAX'), /constant\.other\.enum\.prototxt/);
    assert.match(scopeOf(tokens, ' net'), /comment\.line/);
    assert.match(scopeOf(tokens, 'xavier'), /string\.quoted\.double/);
    assert.doesNotMatch(scopeOf(tokens, 'xavier'), /entity\.name\.type\.layer/);
    assert.match(scopeOf(tokens, '{'), /punctuation\.section\.block\.begin/);
    assert.match(scopeOf(tokens, 'yolo'), /string\.quoted\.double/);
    // after the blocks close, top-level scope is back to plain source
    const last = tokens.filter(([t]) => t === 'foo')[0][1];
    assert.equal(last.includes('meta.layer'), false);
  });

  it('keeps nested braces balanced across lines', async () => {
    const tokens = await tokenize('source.prototxt', 'layer {\n  a { b { c: 1 } }\n}\nname: "x"');
    assert.equal(scopeOf(tokens, 'name').includes('meta.layer'), false);
  });
});
