import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTriageArguments, dialogStartFolder, type Discovery, folderProblem, initialInputs } from '../src/triage/model';
import { inputRows, lookedFor, runDetail } from '../src/triage/picker';

// The discovery object of `nnie.discoverTriageInputs` for a cfg with the three folders the tools
// write beside it (nnie_lsp/triage/inputs/beside_cfg.py: `framework` is output_onnx/, its rule
// in the server's words, nnie_lsp/core/i18n.py "inputs.by_onnx_reference").
const ONNX_RULE = 'output_onnx/ beside the cfg (ONNX Runtime, written by nnie-triage reference --onnx)';
const discovery: Discovery = {
  cfg: '/p/conversion/det1.cfg',
  folder: '/p/conversion',
  reference: { path: '/p/conversion/output', origin: 'discovered', rule: 'output/ beside the cfg (the Caffe reference written by nnie-triage reference)' },
  sim: { path: '/p/conversion/mapper_quant_emulated', origin: 'discovered', rule: 'mapper_quant_emulated/ beside the cfg (an emulation written by nnie-triage emulate)' },
  sim16: null,
  dot: null,
  framework: { path: '/p/conversion/output_onnx', origin: 'discovered', rule: ONNX_RULE },
  looked_for: [
    'reference: output/ beside the cfg (RuyiStudio\'s Get Caffe Output)',
    'sim16: a sub- or sibling folder with a compile_mode 1 cfg and its mapper_quant/',
    'framework: output_onnx/ beside the cfg (nnie-triage reference --onnx)',
  ],
};

describe('the ONNX side (framework) in the triage picker', () => {
  it('a discovered output_onnx/ is shown with the server\'s rule and passed as framework', () => {
    const inputs = initialInputs(discovery, {}, '/p/conversion', '/p', () => false);
    assert.deepEqual(inputs.framework, { path: '/p/conversion/output_onnx', origin: 'discovered', why: ONNX_RULE });
    const rows = inputRows(inputs, '/p/conversion', discovery);
    const row = rows.find((r) => r.action === 'choose' && r.input === 'framework');
    assert.ok(row, 'a framework row');
    assert.equal(row.description, 'output_onnx/');
    assert.equal(row.detail, `found: ${ONNX_RULE}`);
    assert.match(row.label, /ONNX model dumps/);
    assert.ok(rows.some((r) => r.action === 'clear' && r.input === 'framework'), 'a row to run without it');
    assert.match(runDetail(inputs), /ONNX model \(both hops: ONNX → Caffe → NNIE\)/);
    assert.deepEqual(buildTriageArguments(inputs, '/p/conversion/det1.cfg'), {
      cfg: '/p/conversion/det1.cfg',
      reference: '/p/conversion/output',
      sim: '/p/conversion/mapper_quant_emulated',
      framework: '/p/conversion/output_onnx',
      discover: false,
    });
  });

  it('run without it: the row goes, and so does the argument', () => {
    const inputs = initialInputs(discovery, {}, '/p/conversion', '/p', () => false);
    delete inputs.framework; // what the "run without" row does
    const args = buildTriageArguments(inputs, '/p/conversion/det1.cfg');
    assert.equal(args.framework, undefined);
    const row = inputRows(inputs, '/p/conversion', discovery).find((r) => r.input === 'framework' && r.action === 'choose');
    assert.equal(row?.description, '—');
    assert.equal(row?.detail, 'none (looked for output_onnx/ beside the cfg (nnie-triage reference --onnx)): pick to choose one');
    assert.ok(!inputRows(inputs, '/p/conversion', discovery).some((r) => r.action === 'clear'));
    assert.doesNotMatch(runDetail(inputs), /ONNX/);
  });

  it('no framework when the server found none; a chosen one is passed as chosen', () => {
    const none = initialInputs({ ...discovery, framework: null }, {}, '/p/conversion', '/p', () => false);
    assert.equal(none.framework, undefined);
    assert.equal(buildTriageArguments(none, '/p/conversion/det1.cfg').framework, undefined);
    none.framework = { path: '/elsewhere/onnx_dumps', origin: 'chosen' };
    assert.equal(buildTriageArguments(none, '/p/conversion/det1.cfg').framework, '/elsewhere/onnx_dumps');
    const row = inputRows(none, '/p/conversion', discovery).find((r) => r.input === 'framework' && r.action === 'choose');
    assert.equal(row?.description, '/elsewhere/onnx_dumps');
    assert.equal(row?.detail, 'chosen');
  });

  it('the rows keep the other inputs as before, the framework row after the dump folders (then the board row)', () => {
    const inputs = initialInputs(discovery, {}, '/p/conversion', '/p', () => false);
    const rows = inputRows(inputs, '/p/conversion', discovery).filter((r) => r.action === 'choose');
    assert.deepEqual(rows.map((r) => r.input), ['reference', 'sim', 'sim16', 'framework', 'board']);
    assert.equal(rows[2].detail, 'none (looked for a sub- or sibling folder with a compile_mode 1 cfg and its mapper_quant/): pick to choose one');
    assert.equal(lookedFor(discovery, 'sim'), '');
  });

  it('its dialog opens beside the other inputs, and a folder without dumps is refused naming the ONNX side', () => {
    const inputs = initialInputs(discovery, {}, '/p/conversion', '/p', () => false);
    assert.equal(dialogStartFolder('framework', inputs, '/p/conversion', '/p'), '/p/conversion/output_onnx');
    delete inputs.framework;
    assert.equal(dialogStartFolder('framework', inputs, '/p/conversion', '/p'), '/p/conversion');
    const problem = folderProblem('framework', {
      path: '/p/x', exists: true, is_folder: true, files: 0, written_by_nnie_triage: 0, foreign_dumps: 0,
      can_overwrite: false, empty: true, holds_dumps: false, why_not_dumps: 'is empty',
    });
    assert.match(problem ?? '', /ONNX model dumps.*nnie-triage reference --onnx writes output_onnx\//);
  });
});
