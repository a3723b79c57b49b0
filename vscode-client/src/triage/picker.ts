/**
 * The rows of the triage inputs picker (pure: no `vscode`): one per folder the run reads — the
 * three dump folders and the ONNX side of the conversion stage (`framework`) — with where each
 * came from in the server's words (the discovery rule), and a "run without" row for each optional
 * folder that is set. What the rows show is exactly what `buildTriageArguments` passes.
 */
import { type Discovery, INPUT_LABEL, type PickedKind, PICKED_KINDS, shortPath, type TriageInputs } from './model';

export interface InputRow {
  action: 'choose' | 'clear';
  input: PickedKind;
  label: string;
  description?: string;
  detail?: string;
}

/** Optional folders: left out when not found, and a row to run without them when set. */
const OPTIONAL: ReadonlySet<PickedKind> = new Set<PickedKind>(['sim16', 'framework', 'board']);

const WITHOUT: Partial<Record<PickedKind, string>> = {
  sim16: 'Run without the 16-bit run',
  framework: 'Run without the ONNX model (Caffe → NNIE only)',
  board: 'Run without the board dumps',
};

/** What the server's `looked_for` says it looked for `kind` ("sim16: …" → "…"). */
export function lookedFor(discovery: Discovery | undefined, kind: PickedKind): string {
  return (discovery?.looked_for ?? [])
    .filter((l) => l.startsWith(`${kind}:`))
    .map((l) => l.slice(kind.length + 1).trim())
    .join('; ');
}

/** The folder rows, then the "run without" rows of the optional folders that are set. */
export function inputRows(inputs: TriageInputs, base: string | undefined, discovery: Discovery | undefined): InputRow[] {
  const rows: InputRow[] = [];
  for (const kind of PICKED_KINDS) {
    const choice = inputs[kind];
    let detail: string;
    if (choice?.origin === 'discovered') {
      detail = `found: ${choice.why ?? 'beside the cfg'}`;
    } else if (choice?.origin === 'setting') {
      detail = `from the setting ${choice.why}`;
    } else if (choice) {
      detail = 'chosen';
    } else if (OPTIONAL.has(kind)) {
      const looked = lookedFor(discovery, kind);
      detail = `none${looked ? ` (looked for ${looked})` : ''}: pick to choose one`;
    } else {
      detail = 'not set: pick to choose';
    }
    rows.push({ action: 'choose', input: kind, label: `$(folder) ${INPUT_LABEL[kind]}`, description: choice ? shortPath(choice.path, base) : '—', detail });
  }
  for (const kind of PICKED_KINDS) {
    const without = WITHOUT[kind];
    if (without && inputs[kind]) {
      rows.push({ action: 'clear', input: kind, label: `$(close) ${without}` });
    }
  }
  return rows;
}

/** The run row's detail: what the triage compares with these inputs. */
export function runDetail(inputs: TriageInputs): string {
  const also = [
    inputs.sim16 ? 'the 16-bit run' : '',
    inputs.framework ? 'the ONNX model (both hops: ONNX → Caffe → NNIE)' : '',
    inputs.board ? "the board's dumps (checked for board-code mistakes first)" : '',
  ].filter(Boolean);
  return `Compares the reference and simulation dumps${also.length ? ` and ${also.join(' and ')}` : ''}`;
}
