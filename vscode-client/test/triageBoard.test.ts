import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTriageArguments, type Discovery, folderProblem, initialInputs } from '../src/triage/model';
import { inputRows, runDetail } from '../src/triage/picker';

// The discovery object of `nnie.discoverTriageInputs` for a cfg with a board/ folder beside it
// (nnie_lsp/triage/inputs/beside_cfg.py: `board` is board/ holding files in a board dump form).
const BOARD_RULE = 'board/ beside the cfg: the board\'s dumps (3 files)';
const discovery: Discovery = {
  cfg: '/p/board/net.cfg',
  folder: '/p/board',
  reference: { path: '/p/board/output', origin: 'discovered', rule: 'output/ beside the cfg' },
  sim: { path: '/p/board/mapper_quant', origin: 'discovered', rule: 'mapper_quant/ beside the cfg' },
  sim16: null,
  dot: null,
  framework: null,
  board: { path: '/p/board/board', origin: 'discovered', rule: BOARD_RULE },
  looked_for: ['board: board/ beside the cfg (the board program\'s dumps, one file per output node)'],
};

describe('the board\'s dumps in the triage picker', () => {
  it('a discovered board/ is shown with the server\'s rule and passed as board', () => {
    const inputs = initialInputs(discovery, {}, '/p/board', '/p', () => false);
    assert.deepEqual(inputs.board, { path: '/p/board/board', origin: 'discovered', why: BOARD_RULE });
    const rows = inputRows(inputs, '/p/board', discovery);
    const row = rows.find((r) => r.action === 'choose' && r.input === 'board');
    assert.equal(row?.description, 'board/');
    assert.equal(row?.detail, `found: ${BOARD_RULE}`);
    assert.ok(rows.some((r) => r.action === 'clear' && r.input === 'board'), 'a row to run without it');
    assert.match(runDetail(inputs), /the board's dumps/);
    assert.deepEqual(buildTriageArguments(inputs, '/p/board/net.cfg'), {
      cfg: '/p/board/net.cfg', reference: '/p/board/output', sim: '/p/board/mapper_quant', board: '/p/board/board',
      discover: false,
    });
  });

  it('none found: the row says where it looked; without it no argument', () => {
    const inputs = initialInputs({ ...discovery, board: null }, {}, '/p/board', '/p', () => false);
    assert.equal(buildTriageArguments(inputs, '/p/board/net.cfg').board, undefined);
    const row = inputRows(inputs, '/p/board', discovery).find((r) => r.input === 'board' && r.action === 'choose');
    assert.equal(row?.detail, 'none (looked for board/ beside the cfg (the board program\'s dumps, one file per output node)): pick to choose one');
  });

  it('a chosen folder with no board dump form is refused; one with board files is taken', () => {
    const empty = { path: '/x', exists: true, is_folder: true, files: 1, written_by_nnie_triage: 0, foreign_dumps: 0,
      can_overwrite: false, empty: false, holds_dumps: false, board_files: 0 };
    assert.match(folderProblem('board', empty) ?? '', /holds no file in a board dump form/);
    assert.equal(folderProblem('board', { ...empty, board_files: 2 }), undefined);
    assert.match(folderProblem('board', { ...empty, exists: false }) ?? '', /does not exist/);
  });
});
