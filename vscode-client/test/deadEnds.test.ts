import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CHOOSE_FOLDER,
  CHOOSE_OTHER,
  cfgChoices,
  type FolderState,
  folderProblem,
  missingInputsPrompt,
  missingPackageOf,
  missingPrototxtPrompt,
  OVERWRITE,
  outputPrompt,
  summarizeTriageResult,
  toolInputsMessage,
} from '../src/triage/model';

const state = (over: Partial<FolderState>): FolderState => ({
  path: '/p/q/output',
  exists: true,
  is_folder: true,
  files: 0,
  written_by_nnie_triage: 0,
  foreign_dumps: 0,
  foreign_examples: [],
  can_overwrite: false,
  empty: true,
  holds_dumps: false,
  why_not_dumps: 'is empty',
  ...over,
});

describe('no dead ends (issue 17, point 4)', () => {
  it('offers Overwrite only for the files of an earlier nnie-triage run', () => {
    const ruyi = outputPrompt(state({ files: 8, foreign_dumps: 8, foreign_examples: ['a.float', 'b.float', 'c.float'], empty: false, holds_dumps: true }));
    assert.deepEqual(ruyi?.buttons, [CHOOSE_OTHER], 'dumps nnie-triage did not write are never overwritten');
    assert.equal(ruyi?.message, 'NNIE: output/ already holds 8 dump file(s) nnie-triage did not write.');
    assert.match(ruyi!.detail, /never overwritten \(a\.float, b\.float, c\.float, …\)/);
    const ours = outputPrompt(state({ files: 9, written_by_nnie_triage: 9, can_overwrite: true, empty: false, holds_dumps: true }));
    assert.deepEqual(ours?.buttons, [OVERWRITE, CHOOSE_OTHER]);
    assert.equal(outputPrompt(state({})), undefined, 'an empty folder: nothing to ask');
    assert.equal(outputPrompt(state({ exists: false, is_folder: false })), undefined);
    assert.equal(outputPrompt(state({ files: 1, empty: false })), undefined, 'other files (a README) are kept by the tool');
  });
  it('says what was looked for and where, and offers the next step first', () => {
    const prompt = missingInputsPrompt(['reference', 'sim'], {
      cfg: '/p/q/sim.cfg',
      folder: '/p/q',
      tried: {
        reference: [{ path: '/p/q/output', why: 'does not exist' }],
        sim: [
          { path: '/p/q/mapper_quant', why: 'holds no dump files (2 other files)' },
          { path: '/p/q/mapper_quant_emulated', why: 'does not exist' },
        ],
      },
    }, '/p/q/sim.cfg');
    assert.equal(prompt.message, 'NNIE triage: no Caffe reference dumps and NNIE simulation dumps found beside sim.cfg.');
    assert.deepEqual(prompt.buttons, ['Compute Reference Dumps', 'Emulate NNIE Dumps', CHOOSE_FOLDER]);
    assert.match(prompt.detail, /• output\/ does not exist/);
    assert.match(prompt.detail, /• mapper_quant\/ holds no dump files \(2 other files\)/);
    assert.match(prompt.detail, /\(in \/p\/q\)/);
    const one = missingInputsPrompt(['sim'], undefined, undefined);
    assert.deepEqual(one.buttons, ['Emulate NNIE Dumps', CHOOSE_FOLDER]);
    assert.equal(one.message, 'NNIE triage: no NNIE simulation dumps found.');
  });
  it('refuses a chosen folder without dumps, with the reason', () => {
    assert.equal(folderProblem('reference', state({ holds_dumps: true, why_not_dumps: null })), undefined);
    assert.equal(
      folderProblem('sim', state({ path: '/x/empty' })),
      "NNIE triage: /x/empty is empty — it cannot be the folder of the NNIE simulation dumps. Choose the folder that holds the dump files (RuyiStudio's output/, nnie_mapper's mapper_quant/).",
    );
  });
  it('asks which cfg, open ones first', () => {
    const items = cfgChoices(['/w/a/sim.cfg', '/w/b/sim.cfg', '/w/a/sim16.cfg'], ['/w/b/sim.cfg'], '/w');
    assert.deepEqual(items.map((i) => [i.label, i.description, i.detail]), [
      ['sim.cfg', 'b/', 'open in the editor'],
      ['sim.cfg', 'a/', undefined],
      ['sim16.cfg', 'a/', undefined],
    ]);
  });
  it('warns before a triage whose cfg names a prototxt that does not exist, and in the result', () => {
    const warn = missingPrototxtPrompt({ cfg: '/p/q/sim.cfg', prototxt: null, prototxt_named: '../model/det.prototxt', prototxt_tried: ['/p/model/det.prototxt'] });
    assert.equal(warn?.message, 'NNIE triage: sim.cfg names the prototxt ../model/det.prototxt, which does not exist.');
    assert.match(warn!.detail, /• \/p\/model\/det\.prototxt/);
    assert.equal(missingPrototxtPrompt({ cfg: '/p/q/sim.cfg', prototxt: '/p/m.prototxt', prototxt_named: 'm.prototxt' }), undefined);
    const s = summarizeTriageResult({ case: null, verdict: 'inconclusive', editor: { summary: 'Inconclusive', warnings: ['sim.cfg names the prototxt x, which does not exist'] } });
    assert.equal(s.level, 'warning');
    assert.match(s.message, /— warning: sim\.cfg names the prototxt x, which does not exist$/);
  });
  it('reads the missing package of a server error', () => {
    const data = { missingPackage: { module: 'cv2', package: 'OpenCV', extra: 'reference', requirement: 'opencv-python-headless>=4.8,<5', command: '/v/bin/python -m pip install "opencv-python-headless>=4.8,<5"' } };
    assert.equal(missingPackageOf(data)?.command, '/v/bin/python -m pip install "opencv-python-headless>=4.8,<5"');
    assert.equal(missingPackageOf({}), undefined);
    assert.equal(missingPackageOf(undefined), undefined);
    assert.equal(missingPackageOf({ missingPackage: 'cv2' }), undefined);
  });
});

describe('the cause first: what the cfg lacks, before any question', () => {
  it('says the first problem at its cfg line, and how many more', () => {
    const problem = (line: number, message: string) => ({ message, path: '/p/q/sim.cfg', key: 'caffemodel_file', line, character: 18, end_line: line, end_character: 40 });
    assert.equal(toolInputsMessage({ ok: true, problems: [] }), undefined);
    assert.equal(toolInputsMessage(undefined), undefined);
    const one = toolInputsMessage({ ok: false, problems: [problem(1, 'The Caffe reference needs the trained weights (the caffemodel): [caffemodel_file] file not found: ./x.caffemodel')] });
    assert.equal(one, 'NNIE: sim.cfg:2: The Caffe reference needs the trained weights (the caffemodel): [caffemodel_file] file not found: ./x.caffemodel');
    const two = toolInputsMessage({ ok: false, problems: [problem(0, 'a'), problem(7, 'b')] });
    assert.equal(two, 'NNIE: sim.cfg:1: a (and 1 more)');
  });
});
