import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CardDraft, numbersText, orderItems, parseNumbers, sourcesFor, transposeItems, whereFrom } from '../src/card';

// What `nnie.draftCard` returns for yufacedetectnet with its inference script (tests/server/lsp/test_card_editor.py
// checks the server side of the same object).
const draft: CardDraft = {
  cfg: '/p/net.cfg',
  prototxt: '/p/yuface.prototxt',
  card: '/p/nnie.toml',
  card_exists: false,
  has_entry: false,
  values: [
    { key: 'channel_order', value: 'BGR', source: 'detect.py:88: cv2.imread(path) (OpenCV reads BGR)', certain: true },
    { key: 'mean', value: [104, 117, 123], source: 'detect.py:94: img -= (104, 117, 123)', certain: true },
    { key: 'scale', value: 1, source: 'no scaling before the net (0-255 pixels)', certain: true },
    { key: 'transpose', value: null, source: 'unknown: the layout fed to the net is not clear', certain: true },
  ],
};

describe('the model card dialog', () => {
  it('puts the drafted channel order first, saying where it came from', () => {
    const items = orderItems(draft);
    assert.deepEqual(items.map((i) => i.label), ['BGR', 'RGB', 'GRAY']);
    assert.equal(items[0].description, 'from detect.py:88: cv2.imread(path) (OpenCV reads BGR)');
  });
  it('pre-fills numbers and says when a value is unknown', () => {
    assert.equal(numbersText(draft.values[1].value), '104, 117, 123');
    assert.equal(whereFrom(draft.values[3]), 'not known: the layout fed to the net is not clear');
    assert.equal(transposeItems(draft)[0].value, false);
    assert.equal(transposeItems(draft)[0].description, undefined);
  });
  it('reads fractions and refuses two values', () => {
    assert.deepEqual(parseNumbers('1/255', 'scale'), { value: 1 / 255 });
    assert.deepEqual(parseNumbers('104, 117 123', 'mean'), { value: [104, 117, 123] });
    assert.match(parseNumbers('1, 2', 'mean').error ?? '', /one value, or three/);
    assert.match(parseNumbers('abc', 'scale').error ?? '', /not a number/);
  });
  it('keeps the draft\'s source for a value the user kept', () => {
    const sources = sourcesFor(draft, { channel_order: 'BGR', mean: [104, 117, 123], scale: 0.5, transpose: false });
    assert.equal(sources.channel_order, draft.values[0].source);
    assert.equal(sources.mean, draft.values[1].source);
    assert.equal(sources.scale, 'given in the editor');
    assert.equal(sources.transpose, 'given in the editor');
  });
});
