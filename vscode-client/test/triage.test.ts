import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  buildTriageArguments,
  composeSummary,
  defaultJobFolder,
  describeJobResult,
  dialogStartFolder,
  initialInputs,
  plainTextReport,
  SERVER_COMMANDS,
  settingPath,
  shortPath,
  summarizeTriageResult,
  type TriageResult,
} from '../src/triage/model';

// A real server result: `nnie-triage compare --cfg examples/triage/quant_noise/sim.cfg --format json`
// (nnie_lsp/docs/editor-protocol.md; a server test keeps it in sync with the CLI).
const REPO = join(__dirname, '..', '..', '..');
const FIXTURE = join(REPO, 'tests', 'data', 'triage', 'compare_result.json');
const compare = (): TriageResult => JSON.parse(readFileSync(FIXTURE, 'utf8'));

describe('the real compare result (tests/data/triage/compare_result.json)', () => {
  it('has the schema-2 fields the client reads', () => {
    const r = compare() as Record<string, unknown>;
    assert.equal(r.schema_version, 2);
    for (const key of ['case', 'next_step', 'verdict', 'reason', 'first_divergence', 'findings', 'inputs']) {
      assert.ok(key in r, key);
    }
    // The fields the first client read and the server never sent.
    for (const key of ['message', 'first_divergent_layer', 'report_path']) {
      assert.ok(!(key in r), key);
    }
  });
  it('the notification holds the verdict (with its case) and the first divergence', () => {
    const r = compare();
    const s = summarizeTriageResult(r);
    assert.equal(s.case, 2);
    assert.equal(s.level, 'warning');
    assert.ok(s.message.includes(String(r.verdict)), s.message);
    assert.match(s.message, /case 2/);
    assert.match(s.message, new RegExp(`first divergence: ${r.first_divergence}`));
    assert.equal(s.applicableFixes, (r.findings ?? []).filter((f) => f.fix).length);
    // quant_noise's NNIE side carries noise no quantization makes: hp-plan, the one `_hp` planner,
    // refuses to plan on it, and the result carries no fix (T207 says why)
    assert.equal(s.applicableFixes, 0);
    assert.equal(s.reportHtml, undefined, 'a plain compare result has no editor record');
  });
  it('the output text is a report, not JSON', () => {
    const s = summarizeTriageResult(compare());
    assert.ok(!s.textReport.trimStart().startsWith('{'));
    assert.match(s.textReport, /^Verdict: quantization error \(case 2\)/);
    assert.match(s.textReport, /T207/);
    assert.match(s.textReport, /no `_hp` plan/);
    assert.equal(s.textReport, plainTextReport(compare()));
  });
  it('with the server editor record: its summary, next step, report and fix count', () => {
    const r = compare();
    r.editor = {
      version: 1,
      summary: 'Case 2: quantization error — confirmed by the 16-bit run; first divergence: conv2',
      next_step: 'step 3: quantization',
      cfg: '/w/quant_noise/sim.cfg',
      prototxt: '/w/model/det1.prototxt',
      report: { html: '/w/quant_noise/.nnie-triage/sim.html', text: '/w/quant_noise/.nnie-triage/sim.txt', json: '/w/quant_noise/.nnie-triage/sim.json' },
      text_report: 'nnie-triage: per-layer similarity …\nVerdict: Case 2',
      fixes: { total: 6, applicable: 1, safe: 0 },
      stale: false,
      stale_reasons: [],
    };
    const s = summarizeTriageResult(r);
    assert.equal(s.message, 'NNIE triage: Case 2: quantization error — confirmed by the 16-bit run; first divergence: conv2 — next: step 3: quantization');
    assert.equal(s.reportHtml, '/w/quant_noise/.nnie-triage/sim.html');
    assert.equal(s.textReport, r.editor.text_report);
    assert.equal(s.applicableFixes, 1);
    assert.equal(s.cfg, '/w/quant_noise/sim.cfg');
    assert.equal(s.prototxt, '/w/model/det1.prototxt');
    r.editor.stale = true;
    r.editor.stale_reasons = ['the prototxt changed after the run'];
    const stale = summarizeTriageResult(r);
    assert.match(stale.message, /^\[stale\] .*the prototxt changed after the run/);
    assert.equal(stale.applicableFixes, 0, 'a stale result offers no fixes');
  });
  it('ignores the old invented shape', () => {
    const s = summarizeTriageResult({ message: 'all good', first_divergent_layer: 'conv5', report_path: '/tmp/r.md' });
    assert.doesNotMatch(s.message, /all good|conv5/);
    assert.equal(s.reportHtml, undefined);
    assert.equal(summarizeTriageResult(null).level, 'error');
    assert.equal(summarizeTriageResult(42).level, 'error');
  });
  it('a clean run is information, not a warning', () => {
    const s = summarizeTriageResult({ schema_version: 2, case: null, verdict: 'inconclusive', first_divergence: null, findings: [] });
    assert.equal(s.level, 'info');
    assert.equal(composeSummary({ verdict: 'inconclusive', first_divergence: null }), 'inconclusive; no layer below its threshold');
  });
});

describe('inputs, pickers and arguments', () => {
  const discovery = {
    cfg: '/p/quant_noise/sim.cfg',
    folder: '/p/quant_noise',
    reference: { path: '/p/quant_noise/output', origin: 'discovered', rule: 'output/ beside the cfg' },
    sim: { path: '/p/quant_noise/mapper_quant', origin: 'discovered', rule: 'mapper_quant/ beside the cfg' },
    sim16: null,
    dot: { path: '/p/quant_noise/cnn_net_tree.dot', origin: 'discovered', rule: 'beside the cfg' },
  };
  it('settings win over discovery, when the folder they name exists', () => {
    const exists = (p: string) => p === '/p/quant_noise/sim_out' || p === '/abs/16';
    const inputs = initialInputs(discovery, { sim: 'sim_out', reference: 'missing', sim16: '/abs/16' }, '/p/quant_noise', '/p', exists);
    assert.deepEqual(inputs.sim, { path: '/p/quant_noise/sim_out', origin: 'setting', why: 'nnie.triage.simFolder' });
    assert.deepEqual(inputs.reference, { path: '/p/quant_noise/output', origin: 'discovered', why: 'output/ beside the cfg' });
    assert.deepEqual(inputs.sim16, { path: '/abs/16', origin: 'setting', why: 'nnie.triage.sim16Folder' });
    assert.equal(inputs.dot, '/p/quant_noise/cnn_net_tree.dot');
    assert.equal(settingPath('  ', '/c', '/w'), undefined);
    assert.equal(settingPath('x', undefined, '/w'), '/w/x');
  });
  it('the second dialog never opens inside the first folder', () => {
    const chosen = { reference: { path: '/p/run/caffe', origin: 'chosen' as const } };
    assert.equal(dialogStartFolder('sim', chosen, undefined, '/p'), '/p/run');
    assert.equal(dialogStartFolder('sim', chosen, '/p/run', '/p'), '/p/run');
    // a cfg folder inside the chosen folder is not a place to start either
    assert.equal(dialogStartFolder('sim', chosen, '/p/run/caffe/sub', '/p'), '/p/run');
    assert.equal(dialogStartFolder('sim', { sim: { path: '/p/x', origin: 'chosen' } }, '/p/run', '/p'), '/p/x', 'a set input opens on itself');
    assert.equal(dialogStartFolder('reference', {}, undefined, '/p'), '/p');
  });
  it('runs exactly what the picker shows (discover: false), with the dot found', () => {
    const inputs = initialInputs(discovery, {}, '/p/quant_noise', '/p', () => false);
    assert.deepEqual(buildTriageArguments(inputs, '/p/quant_noise/sim.cfg'), {
      cfg: '/p/quant_noise/sim.cfg',
      reference: '/p/quant_noise/output',
      sim: '/p/quant_noise/mapper_quant',
      dot: '/p/quant_noise/cnn_net_tree.dot',
      discover: false,
    });
    assert.deepEqual(buildTriageArguments({}, undefined, '/m.prototxt'), { prototxt: '/m.prototxt', discover: false });
  });
  it('labels, job folders and job messages', () => {
    assert.equal(shortPath('/p/quant_noise/output', '/p/quant_noise'), 'output/');
    assert.equal(shortPath('/elsewhere/x', '/p'), '/elsewhere/x');
    assert.equal(defaultJobFolder('reference', '/p/q/sim.cfg'), '/p/q/output');
    assert.equal(defaultJobFolder('emulate', '/p/q/sim.cfg', 16), '/p/q/mapper_quant_emulated_16bit');
    assert.equal(describeJobResult('reference', { out: '/p/q/output', files: 8, message: 'wrote 8 Caffe dumps to /p/q/output' }), 'NNIE: wrote 8 Caffe dumps to /p/q/output');
    assert.equal(describeJobResult('emulate', { out: '/o', files: 3 }), 'NNIE: wrote 3 emulated NNIE dumps to /o.');
  });
  it('uses the server command ids of the editor protocol', () => {
    const doc = readFileSync(join(REPO, 'nnie_lsp', 'docs', 'editor-protocol.md'), 'utf8');
    for (const id of Object.values(SERVER_COMMANDS)) {
      assert.ok(doc.includes('`' + id + '`'), id);
    }
  });
});
