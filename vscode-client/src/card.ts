/**
 * Pure helpers for the model card dialog (no `vscode` import): the server's card draft
 * (`nnie.draftCard`, nnie_lsp/docs/editor-protocol.md "Model card"), the words of the ask-once
 * question before a Caffe reference, and the values the user types back (`nnie.writeCard`).
 */

export const CARD_COMMANDS = { draft: 'nnie.draftCard', write: 'nnie.writeCard' } as const;

export type CardKey = 'channel_order' | 'mean' | 'scale' | 'transpose';
export const CARD_KEYS: readonly CardKey[] = ['channel_order', 'mean', 'scale', 'transpose'];

export interface DraftValue {
  key: CardKey;
  value: string | number | number[] | boolean | null;
  source: string;
  certain?: boolean;
}

export interface CardDraft {
  cfg: string;
  prototxt: string | null;
  card: string;
  card_exists: boolean;
  has_entry: boolean;
  values: DraftValue[];
  text?: string;
  notes?: string[];
  /** has_entry: what the card's entry declares */
  entry?: { channel_order?: string | null; mean?: number[] | null; scale?: number[] | null; transpose?: boolean | null } | null;
}

/** The question before an emulation when the card says the net was trained on transposed images. */
export const TRANSPOSED = {
  title: 'NNIE: the model card says the net was trained on transposed images (H and W swapped)',
  fed: 'The images are fed transposed (as the net was trained)',
  asIs: 'The images are fed as the image list holds them',
} as const;

/** The question before a reference without a card (asked once per cfg). */
export const ASK = {
  message: 'No model card (nnie.toml) says how this net was trained: the Caffe reference would take its preprocessing from the cfg it judges, so a mistake in the cfg\'s [RGB_order], mean or scale could not show.',
  declare: 'Declare How It Was Trained…',
  without: 'Continue Without',
} as const;

export function draftValue(draft: CardDraft, key: CardKey): DraftValue | undefined {
  return (draft.values ?? []).find((v) => v && v.key === key);
}

/** "from detect.py:88: cv2.imread(…)" / "not found in your Caffe dumps or code" for a pre-filled field. */
export function whereFrom(value: DraftValue | undefined): string {
  if (!value || value.value === null || value.value === undefined) {
    return value?.source ? `not known: ${value.source.replace(/^unknown: /, '')}` : 'not found in your Caffe dumps or code';
  }
  return `from ${value.source}`;
}

/** A number or a list of numbers as the input box shows it: `104, 117, 123`. */
export function numbersText(value: DraftValue['value'] | undefined): string {
  if (typeof value === 'number') {
    return String(value);
  }
  if (Array.isArray(value)) {
    return value.map((v) => String(v)).join(', ');
  }
  return '';
}

/** `104, 117, 123` / `1/255` / `0.0078125` → the value for the card, or an error message. */
export function parseNumbers(text: string, what: string): { value?: number | number[]; error?: string } {
  const parts = text.split(/[,\s]+/).map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length !== 1 && parts.length !== 3) {
    return { error: `${what}: one value, or three (one per channel)` };
  }
  const numbers: number[] = [];
  for (const part of parts) {
    const frac = /^(-?[\d.]+)\s*\/\s*([\d.]+)$/.exec(part);
    const n = frac ? Number(frac[1]) / Number(frac[2]) : Number(part);
    if (!Number.isFinite(n)) {
      return { error: `${what}: ${part} is not a number` };
    }
    numbers.push(n);
  }
  return { value: numbers.length === 1 ? numbers[0] : numbers };
}

/** The channel orders in the pick, the drafted one first (with where it came from). */
export function orderItems(draft: CardDraft): Array<{ label: string; description?: string; value: string }> {
  const drafted = draftValue(draft, 'channel_order');
  const orders = ['BGR', 'RGB', 'GRAY'];
  const first = typeof drafted?.value === 'string' ? drafted.value : undefined;
  const sorted = first ? [first, ...orders.filter((o) => o !== first)] : orders;
  const words: Record<string, string> = {
    BGR: 'OpenCV-read images (cv2.imread), Caffe pipelines',
    RGB: 'PIL / torchvision / darknet / most PyTorch pipelines',
    GRAY: 'one channel',
  };
  return sorted.map((o) => ({ label: o, description: o === first ? whereFrom(drafted) : words[o], value: o }));
}

/** The transpose pick, the drafted answer first. */
export function transposeItems(draft: CardDraft): Array<{ label: string; description?: string; value: boolean }> {
  const drafted = draftValue(draft, 'transpose');
  const yes = { label: 'Transposed (H and W swapped: MATLAB Caffe, MTCNN)', value: true };
  const no = { label: 'Not transposed', value: false };
  const items = drafted?.value === true ? [yes, no] : [no, yes];
  return items.map((item, k) => ({ ...item, description: k === 0 && typeof drafted?.value === 'boolean' ? whereFrom(drafted) : undefined }));
}

/** The `sources` of `nnie.writeCard`: the draft's source where the user kept its value, else "given in the editor". */
export function sourcesFor(draft: CardDraft, chosen: Partial<Record<CardKey, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of CARD_KEYS) {
    const drafted = draftValue(draft, key);
    const same = drafted && drafted.value !== null && JSON.stringify(drafted.value) === JSON.stringify(chosen[key]);
    out[key] = same ? drafted.source : 'given in the editor';
  }
  return out;
}
