import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { contentSecurityPolicy, makeNonce, PLOT_END, PLOT_START, reportForWebview, scriptJson } from '../src/triage/report/html';
import { curveDatasets, FRAMEWORK_COLOUR, HOP_LABELS } from '../src/triage/report/curves';
import { layerTarget, plotModel, type ReportResult, shortLabel, staleBanner, thresholdLines } from '../src/triage/report/model';

const NASTY = '</script><script>alert(1)</script>';

function result(extra: Partial<ReportResult> = {}): ReportResult {
  return {
    first_divergence: 'conv2',
    thresholds: { data_layer: 0.999, good: 0.99, decay_end: 0.95, middle_dip: 0.9, small_abs_error: 0.001 },
    inputs: { prototxt: 'model/det1.prototxt', working_directory: '/w/triage' },
    layers: [
      { name: 'data', cosine: 0.99999, status: 'ok', is_data: true, path: 'model/det1.prototxt', line: 2, column: 8 },
      { name: 'conv1', cosine: 0.9985, status: 'ok', path: 'model/det1.prototxt', line: 9, column: 9 },
      { name: 'pool1', cosine: null, status: 'unmeasured' },
      { name: 'conv2', cosine: 0.9744, status: 'low', first_divergence: true, path: 'model/det1.prototxt', line: 53, column: 9 },
      { name: NASTY, cosine: 0.5, status: 'bad' },
    ],
    ...extra,
  };
}

describe('the report plot model (from the engine result)', () => {
  it('plots every layer with a cosine, in network order, pointing back to its row', () => {
    const model = plotModel(result());
    assert.deepEqual(
      model.points.map((p) => [p.row, p.name]),
      [[0, 'data'], [1, 'conv1'], [3, 'conv2'], [4, NASTY]],
    );
    assert.equal(model.firstDivergence, 'conv2');
    assert.equal(model.points[2].firstDivergence, true);
    assert.ok(model.clickable);
  });

  it("draws the result's thresholds, never values of its own", () => {
    assert.deepEqual(
      thresholdLines(result()).map((l) => [l.key, l.value]),
      [['data_layer', 0.999], ['good', 0.99], ['decay_end', 0.95], ['middle_dip', 0.9]],
    );
    const changed = plotModel(result({ thresholds: { good: 0.97, middle_dip: 0.8 } }));
    assert.deepEqual(changed.thresholds.map((l) => `${l.label} ${l.value}`), ['good 0.97', 'middle dip 0.8']);
    assert.match(changed.points[1].tooltip.join('\n'), /thresholds: good 0\.97 · middle dip 0\.8$/m);
    const none = plotModel(result({ thresholds: undefined }));
    assert.deepEqual(none.thresholds, []);
    assert.ok(!none.points.some((p) => p.tooltip.some((t) => t.startsWith('thresholds'))));
  });

  it("colours a point by the row's status, not by comparing its cosine", () => {
    const r = result();
    (r.layers as Array<Record<string, unknown>>)[1].status = 'bad'; // cosine 0.9985, status from the engine
    const model = plotModel(r);
    assert.equal(model.points[1].colour, '#cf222e');
    assert.equal(model.points[1].status, 'bad');
  });

  it('hover: the cosine, its status, the first divergence, the thresholds and the click', () => {
    const conv2 = plotModel(result()).points[2];
    assert.deepEqual(conv2.tooltip, [
      'cosine 0.974400 (low)',
      'first divergence',
      'thresholds: data layer 0.999 · good 0.99 · decay end 0.95 · middle dip 0.9',
      'click: go to the layer in the prototxt',
    ]);
    const many = plotModel(result({ layers: [{ name: 'c', cosine: 0.9, status: 'poor', cosine_min: 0.8, cosine_median: 0.85 }], inputs: {} }));
    assert.equal(many.clickable, false);
    assert.deepEqual(many.points[0].tooltip.slice(0, 2), ['cosine 0.900000 (poor)', 'over the images: min 0.800000, median 0.850000']);
  });

  it('leaves room below the lowest point or line, and shortens long labels', () => {
    const model = plotModel(result());
    assert.ok(model.yMin <= 0.5 - 0.02 && model.yMin >= -1.05, String(model.yMin));
    assert.equal(model.yMax, 1);
    assert.equal(plotModel(result({ layers: [{ name: 'a', cosine: 0.999, status: 'ok' }] })).yMin.toFixed(2), '0.85');
    assert.equal(shortLabel('stage0_block1_conv_expand_bn'), 'stage0_block1_c…');
    assert.equal(shortLabel('conv1'), 'conv1');
  });
});

// `compare --framework` rows (nnie_lsp/docs/triage-schema.md): the hop ONNX → Caffe beside Caffe → NNIE;
// pool1 rounds up in Caffe, down in ONNX (12×12 against 11×11): its sizes differ, what follows is not compared.
function chain(): ReportResult {
  return {
    first_divergence: 'conv2',
    thresholds: { data_layer: 0.999, good: 0.99 },
    inputs: { prototxt: '/w/det1.prototxt' },
    layers: [
      { name: 'data', cosine: 0.99999, status: 'ok', is_data: true, framework_cosine: 1, framework_status: 'ok' },
      { name: 'conv1', cosine: 0.9985, status: 'ok', framework_cosine: 0.99999, framework_status: 'ok' },
      { name: 'pool1', cosine: 0.9971, status: 'ok', framework_cosine: null, framework_status: 'shape' },
      { name: 'conv2', cosine: 0.9744, status: 'low', first_divergence: true, framework_cosine: null, framework_status: 'missing' },
      { name: 'prob1', cosine: 0.9, status: 'poor', framework_cosine: 0.42, framework_status: 'differs', framework_note: 'the values agree transposed' },
    ],
  };
}

describe('both hops of the conversion chain (compare --framework)', () => {
  it('a second, dashed curve with a legend: a gap where not compared, × on the axis where the sizes differ', () => {
    const model = plotModel(chain());
    assert.equal(model.hops, true);
    const sets = curveDatasets(model);
    assert.deepEqual(sets.map((d) => d.role), ['nnie', 'framework', 'shape', 'data_layer', 'good']);
    assert.deepEqual(sets.map((d) => d.label).slice(0, 3), [HOP_LABELS.nnie, HOP_LABELS.framework, HOP_LABELS.shape]);
    const [nnie, framework, shape] = sets;
    assert.deepEqual(nnie.data, [0.99999, 0.9985, 0.9971, 0.9744, 0.9]);
    assert.deepEqual(framework.data, [1, 0.99999, null, null, 0.42]);
    assert.deepEqual(framework.borderDash, [5, 3]);
    assert.equal(framework.borderColor, FRAMEWORK_COLOUR);
    assert.equal(framework.spanGaps, false);
    assert.equal(nnie.borderDash, undefined, 'the Caffe → NNIE curve stays solid');
    assert.deepEqual(shape.data, [null, null, model.yMin, null, null]);
    assert.equal(shape.pointStyle, 'crossRot');
    assert.equal(shape.showLine, false);
    assert.ok(model.yMin <= 0.42 - 0.02, 'the axis holds the ONNX → Caffe curve too');
  });

  it('hover names both hops, in the engine terms', () => {
    const points = plotModel(chain()).points;
    assert.deepEqual(points[1].tooltip.slice(0, 2), ['ONNX → Caffe cosine 0.999990 (ok)', 'Caffe → NNIE cosine 0.998500 (ok)']);
    assert.equal(points[2].tooltip[0], "ONNX → Caffe: the Caffe output has another size than ONNX's");
    assert.equal(points[2].sizeDiffers, true);
    assert.equal(points[3].tooltip[0], 'ONNX → Caffe: not compared (no ONNX dump for this blob)');
    assert.equal(points[3].sizeDiffers, false);
    assert.equal(points[4].tooltip[0], 'ONNX → Caffe cosine 0.420000 (differs); the values agree transposed');
  });

  it('without the ONNX side: one curve, as before', () => {
    const model = plotModel(result());
    assert.equal(model.hops, false);
    const sets = curveDatasets(model);
    assert.deepEqual(sets.map((d) => d.role), ['nnie', 'data_layer', 'good', 'decay_end', 'middle_dip']);
    assert.equal(sets[0].label, 'cosine');
    assert.ok(model.points.every((p) => p.framework === null && !p.sizeDiffers));
    // no size differs anywhere: no × dataset
    const noShape = chain();
    (noShape.layers as Array<Record<string, unknown>>)[2].framework_status = 'missing';
    assert.ok(!curveDatasets(plotModel(noShape)).some((d) => d.role === 'shape'));
  });

  it('the webview script still bundles for the browser (no node: module reaches it)', () => {
    const root = join(__dirname, '..', '..');
    const build = spawnSync(process.execPath, ['-e', "require('esbuild').buildSync({entryPoints: ['src/triage/report/webview.ts'], bundle: true, platform: 'browser', format: 'iife', write: false, logLevel: 'silent'})"], { cwd: root, encoding: 'utf8' });
    assert.equal(build.status, 0, build.stderr);
  });

  it('the page embeds the hops for the script', () => {
    const model = plotModel(chain());
    const json = JSON.parse(scriptJson(model));
    assert.equal(json.hops, true);
    assert.deepEqual(json.points.map((p: { framework: number | null }) => p.framework), [1, 0.99999, null, null, 0.42]);
  });
});

describe('a click on a point: where the layer is', () => {
  it("the row's place in the prototxt, against the result's working directory", () => {
    assert.deepEqual(layerTarget(result(), 3), { name: 'conv2', path: '/w/triage/model/det1.prototxt', line: 53, column: 9 });
  });
  it("a row without a place: the result's prototxt (the editor finds the name there)", () => {
    assert.deepEqual(layerTarget(result(), 2), { name: 'pool1', path: '/w/triage/model/det1.prototxt', line: undefined, column: undefined });
    const editor = result({ editor: { prototxt: '/abs/net.prototxt' } });
    assert.equal(layerTarget(editor, 4)?.path, '/abs/net.prototxt');
    assert.equal(layerTarget(result({ inputs: {} }), 2)?.path, undefined);
    assert.equal(layerTarget(result(), 99), undefined);
  });
});

describe('the stale banner (the server says what is stale)', () => {
  it('says why and when, only for a stale result', () => {
    const stale = staleBanner({ editor: { stale: true, stale_reasons: ['the cfg changed after the run'], ran_at: '2026-01-02T03:04:05+00:00' } });
    assert.equal(stale, 'Stale report: the cfg changed after the run. The numbers below are those of the run of 2026-01-02T03:04:05+00:00, not of the files as they are now.');
    assert.equal(staleBanner({ editor: { stale: false, stale_reasons: [] } }), undefined);
    assert.equal(staleBanner({}), undefined);
    assert.match(staleBanner({ editor: { stale: true } }) ?? '', /^Stale report: its inputs changed after the run\./);
  });
});

describe('the report page in the webview', () => {
  const report =
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>nnie-triage report</title></head><body><h1>nnie-triage report</h1>' +
    `${PLOT_START}<h2>Per-layer similarity</h2><div class="plot"><svg><title>x</title></svg></div>${PLOT_END}` +
    '<script>alert(1)</script><h2>Layers</h2></body></html>';
  const model = plotModel(result());
  const page = reportForWebview(report, 'vscode-webview:', {
    plot: { nonce: 'N0nce', scriptUri: 'https://file+.vscode-resource/ext/dist/reportWebview.js', model },
    stale: 'Stale report: <cfg> changed',
  });

  it('lets only the nonce script run, and loads nothing from the network', () => {
    assert.equal(contentSecurityPolicy('vscode-webview:', 'N0nce').split('; ').find((d) => d.startsWith('script-src')), "script-src 'nonce-N0nce'");
    assert.ok(page.includes(contentSecurityPolicy('vscode-webview:', 'N0nce')));
    const scripts = page.match(/<script\b[^>]*>/g) ?? [];
    assert.deepEqual(scripts, ['<script type="application/json" id="nnie-plot-data">', '<script nonce="N0nce" src="https://file+.vscode-resource/ext/dist/reportWebview.js">']);
    assert.doesNotMatch(page, /alert\(1\)<\/script>/);
  });

  it('puts the plot container where the static plot was, keeping that plot as the fallback', () => {
    assert.match(page, /<div id="cosine-plot" data-drawn="false"[^>]*><canvas id="cosine-canvas"><\/canvas><\/div>/);
    assert.ok(page.indexOf('id="cosine-plot"') < page.indexOf('<h2>Layers</h2>'));
    assert.match(page, /<div id="static-plot"><div class="plot"><svg>/);
    assert.ok(!page.includes(PLOT_START) && (page.match(/Per-layer similarity/g) ?? []).length === 1);
    assert.match(page, /click it to go to the layer in the prototxt/);
  });

  it('embeds the model so that no layer name can close the script', () => {
    const data = page.slice(page.indexOf('id="nnie-plot-data">') + 20, page.indexOf('</script>', page.indexOf('id="nnie-plot-data">')));
    assert.deepEqual(JSON.parse(data), JSON.parse(JSON.stringify(model)));
    assert.ok(!data.includes('</script>') && !data.includes('<'));
    assert.equal(JSON.parse(scriptJson({ a: '\u2028<!--' })).a, '\u2028<!--');
  });

  it('shows the stale banner first, escaped; keeps a hidden one for later', () => {
    assert.match(page, /<body><div id="stale-banner" role="status">Stale report: &lt;cfg&gt; changed<\/div><h1>/);
    const fresh = reportForWebview(report, 'c', { plot: { nonce: 'n', scriptUri: 'u', model } });
    assert.match(fresh, /<div id="stale-banner" role="status" hidden><\/div>/);
  });

  it('places the plot first in a report written without the markers', () => {
    const old = reportForWebview('<html><head></head><body><h1>r</h1></body></html>', 'c', { plot: { nonce: 'n', scriptUri: 'u', model } });
    assert.match(old, /<body><div id="stale-banner"[^>]*><\/div><h2>Per-layer similarity<\/h2><div id="cosine-plot"/);
  });

  it('without a cosine to plot: the report as written, no script', () => {
    const empty = reportForWebview(report, 'c', { plot: { nonce: 'n', scriptUri: 'u', model: plotModel({ layers: [] }) } });
    assert.doesNotMatch(empty, /<script/);
    assert.doesNotMatch(contentSecurityPolicy('c'), /script-src/);
    assert.match(empty, /<svg><title>x<\/title><\/svg>/);
  });

  it('nonces are fresh and URL-safe', () => {
    const a = makeNonce((n) => new Uint8Array(n).map((_, i) => i * 7));
    assert.match(a, /^[A-Za-z0-9_-]{32}$/);
    assert.notEqual(a, makeNonce((n) => new Uint8Array(n).fill(1)));
  });
});

describe('the real compare result (tests/data/triage/compare_result.json)', () => {
  const REPO = join(__dirname, '..', '..', '..');
  const real = JSON.parse(readFileSync(join(REPO, 'tests', 'data', 'triage', 'compare_result.json'), 'utf8')) as ReportResult & {
    layers: Array<{ name: string; cosine: number | null }>;
    inputs: Record<string, unknown>;
  };
  it('plots each measured layer with the thresholds the engine decided with', () => {
    const model = plotModel(real);
    assert.equal(model.points.length, real.layers.filter((l) => typeof l.cosine === 'number').length);
    assert.ok(model.points.length >= 5);
    assert.deepEqual(model.thresholds.map((t) => t.key), ['data_layer', 'good', 'decay_end', 'middle_dip']);
    assert.equal(model.firstDivergence, (real as { first_divergence: string }).first_divergence);
  });
  it("every layer's place is its name in the example prototxt", () => {
    real.inputs.working_directory = join(REPO, String(real.inputs.working_directory));
    real.layers.forEach((layer, row) => {
      const target = layerTarget(real, row);
      assert.ok(target?.path && target.line && target.column, layer.name);
      const text = readFileSync(target.path, 'utf8').split(/\r?\n/)[target.line - 1];
      assert.ok(text.slice(target.column - 1).startsWith(`"${layer.name}"`), `${layer.name}: ${text}`);
    });
  });
});

describe("the engine's confirmation lines in the webview (issue 17: confirmed fixed / awaiting confirmation)", () => {
  // The webview shows the page the engine writes (nnie_lsp/triage/report/render.py, its words
  // nnie_lsp/triage/confirmation.py): rendered here by the repository's Python from the real result.
  const REPO = join(__dirname, '..', '..', '..');
  const python = join(REPO, '.venv', 'bin', 'python');
  const entry = (code: string, title: string, line: number, cfgLine: string) => ({
    code,
    name: code.toLowerCase(),
    title,
    path: 'channel_swap/sim.cfg',
    line,
    cfg_line: cfgLine,
    changes: { 'channel_swap/sim.cfg': { written: [cfgLine], removed: [] } },
  });
  const real = JSON.parse(readFileSync(join(REPO, 'tests', 'data', 'triage', 'compare_result.json'), 'utf8')) as ReportResult & Record<string, unknown>;
  const result = {
    ...real,
    confirmed_fixed: [entry('T102', "The simulator's channels are <Caffe's> in another order", 7, '[RGB_order] RGB')],
    awaiting_confirmation: [entry('T101', 'Mean', 9, '[mean_file] m.txt')],
  };
  const engine = existsSync(python)
    ? spawnSync(python, ['-c', 'import json, sys; from nnie_lsp.triage.report.render import render_html; sys.stdout.write(render_html(json.load(sys.stdin)))'], {
        cwd: REPO,
        input: JSON.stringify(result),
        encoding: 'utf8',
      })
    : undefined;
  const skip = engine?.status === 0 ? false : `the engine's Python is not available (${python}${engine ? `: ${engine.stderr}` : ''})`;

  it('shows them above the plot, never inside the static plot the drawn chart hides', { skip }, () => {
    const page = reportForWebview(engine!.stdout, 'vscode-webview:', {
      plot: { nonce: 'N0nce', scriptUri: 'u', model: plotModel(result) },
      stale: 'Stale report: sim.cfg changed',
    });
    const confirmed = "<p class=\"confirmed\">Confirmed fixed: T102 The simulator&#x27;s channels are &lt;Caffe&#x27;s&gt; in another order (sim.cfg:7 [RGB_order] RGB)</p>";
    const awaiting = '<p class="awaiting">Awaiting confirmation (the NNIE dumps were not made again after the fix): T101 Mean (sim.cfg:9 [mean_file] m.txt)</p>';
    assert.ok(page.includes(confirmed), page.slice(0, 3000));
    assert.ok(page.includes(awaiting));
    const block = page.indexOf('<div class="confirmation" id="confirmation"');
    assert.ok(page.indexOf('id="stale-banner"') < block && block < page.indexOf('id="cosine-plot"'));
    assert.ok(block < page.indexOf('id="static-plot"'));
  });

  it('a result that follows no earlier one has no such block', { skip }, () => {
    const plain = spawnSync(python, ['-c', 'import json, sys; from nnie_lsp.triage.report.render import render_html; sys.stdout.write(render_html(json.load(sys.stdin)))'], {
      cwd: REPO,
      input: JSON.stringify(real),
      encoding: 'utf8',
    });
    const page = reportForWebview(plain.stdout, 'vscode-webview:', { plot: { nonce: 'n', scriptUri: 'u', model: plotModel(real) } });
    assert.ok(page.includes('id="cosine-plot"') && !page.includes('class="confirmation"') && !page.includes('Confirmed fixed'));
  });
});
