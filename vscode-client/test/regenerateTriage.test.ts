import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { confirmedLine, REGENERATE_LABEL, summarizeTriageResult, type TriageResult } from '../src/triage/model';

// The server's `nnie.triage` responses of issue 17's loop (tests/server/lsp/test_regenerate_loop_editor.py
// checks the server side of the same objects).
const t008 = (action: 'regenerate' | 'mapper'): TriageResult => ({
  case: 1,
  verdict: 'preprocessing mismatch (case 1)',
  first_divergence: 'data',
  findings: [
    { code: 'T008', severity: 'warning', message: 'the NNIE dumps were made with the old cfg (RGB_order: BGR → RGB): re-run nnie_mapper, …', fix: null },
    { code: 'T102', severity: 'error', message: 'set [RGB_order] BGR (cfg: RGB) (fix withheld: the NNIE dumps predate the cfg (T008))', fix: null },
  ],
  editor: {
    summary: 'The NNIE dumps were made with the old cfg (RGB_order: BGR → RGB); the findings describe the old cfg',
    next_step: action === 'regenerate' ? 'regenerate the emulation with the current cfg, then triage again' : 're-run nnie_mapper with the current cfg, then triage again',
    fixes: { total: 0, applicable: 0, safe: 0 },
    cfg: '/p/sim.cfg',
    remake:
      action === 'regenerate'
        ? { action, title: 'Regenerate and triage again', command: 'nnie.triage', arguments: { cfg: '/p/sim.cfg', regenerate: true } }
        : { action, title: 're-run nnie_mapper with the current cfg, then triage again', command: null, arguments: null },
    confirmed: null,
  },
});

describe('dumps older than the cfg (T008)', () => {
  it('an emulation: the one button "Regenerate and triage again" with regenerate: true, no fix', () => {
    const s = summarizeTriageResult(t008('regenerate'));
    assert.deepEqual(s.regenerate, { label: REGENERATE_LABEL, args: { cfg: '/p/sim.cfg', regenerate: true } });
    assert.equal(s.applicableFixes, 0);
    assert.equal(
      s.message,
      'NNIE triage: The NNIE dumps were made with the old cfg (RGB_order: BGR → RGB); the findings describe the old cfg — next: regenerate the emulation with the current cfg, then triage again',
    );
  });
  it("the mapper's dumps: no button (it cannot work), the words instead", () => {
    const s = summarizeTriageResult(t008('mapper'));
    assert.equal(s.regenerate, undefined);
    assert.equal(s.applicableFixes, 0);
    assert.match(s.message, /— next: re-run nnie_mapper with the current cfg, then triage again$/);
  });
  it('a remake without regenerate: true in its arguments is not a regenerate button', () => {
    const r = t008('regenerate');
    r.editor!.remake!.arguments = { cfg: '/p/sim.cfg' };
    assert.equal(summarizeTriageResult(r).regenerate, undefined);
  });
  it('even a fix count sent with it offers no Apply Fixes', () => {
    const r = t008('regenerate');
    r.editor!.fixes = { applicable: 1 };
    assert.equal(summarizeTriageResult(r).applicableFixes, 0);
  });
});

describe('confirmed fixed', () => {
  const entry = { code: 'T102', name: 'rgb-order-mismatch', title: "The simulator's channels are Caffe's in another order: set [RGB_order]", path: 'channel_swap/sim.cfg', line: 7, cfg_line: '[RGB_order] RGB' };
  it("the notification says the server's line once", () => {
    const line = "Confirmed fixed: T102 The simulator's channels are Caffe's in another order: set [RGB_order] (sim.cfg:7 [RGB_order] RGB)";
    const s = summarizeTriageResult({ case: 4, verdict: 'no layer below its threshold (case 4)', findings: [], confirmed_fixed: [entry], editor: { summary: 'Case 4: no layer below its threshold', next_step: 'step 5: check the post-processing', confirmed: line } });
    assert.equal(s.message, `NNIE triage: Case 4: no layer below its threshold — next: step 5: check the post-processing — ${line}`);
    assert.equal(s.message.split('Confirmed fixed').length, 2);
    assert.equal(s.regenerate, undefined);
  });
  it('from the engine objects when the server sent no line', () => {
    assert.equal(confirmedLine([entry]), "Confirmed fixed: T102 The simulator's channels are Caffe's in another order: set [RGB_order] (sim.cfg:7 [RGB_order] RGB)");
    assert.equal(confirmedLine([]), undefined);
    assert.equal(confirmedLine(undefined), undefined);
    const s = summarizeTriageResult({ case: 4, confirmed_fixed: [entry] });
    assert.match(s.message, /— Confirmed fixed: T102 /);
  });
  it('nothing confirmed: not a word', () => {
    assert.doesNotMatch(summarizeTriageResult({ case: 1, verdict: 'x', confirmed_fixed: [] }).message, /Confirmed/);
  });
});
