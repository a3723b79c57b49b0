/**
 * Pure helpers for the triage commands (no `vscode` import): the server's command ids and JSON
 * (nnie_lsp/docs/editor-protocol.md, triage schema v2 in nnie_lsp/docs/triage-schema.md), the
 * notification text, the inputs the pickers start from, and the folders their dialogs open in.
 */
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';

/** Commands the server announces (vscode-languageclient registers them; never register these ids). */
export const SERVER_COMMANDS = {
  triage: 'nnie.triage',
  discover: 'nnie.discoverTriageInputs',
  result: 'nnie.triageResult',
  applyFixes: 'nnie.applyTriageFixes',
  openReport: 'nnie.openTriageReport',
  clear: 'nnie.clearTriageResults',
  reference: 'nnie.reference',
  emulate: 'nnie.emulate',
  checkFolder: 'nnie.checkFolder',
  checkToolInputs: 'nnie.checkToolInputs',
} as const;

/** Kept for callers of the first client version. */
export const TRIAGE_COMMAND = SERVER_COMMANDS.triage;

export type InputKind = 'reference' | 'sim' | 'sim16';
export const INPUT_KINDS: readonly InputKind[] = ['reference', 'sim', 'sim16'];
/**
 * Every folder the picker shows: the three dump folders, `framework`, the ONNX model's dumps of
 * the conversion stage (`nnie-triage reference --onnx`; optional, no setting: discovery finds
 * `output_onnx/` beside the cfg, or the user chooses a folder), and `board`, the board program's
 * own dumps (`nnie-triage compare --board`; optional: discovery finds `board/` beside the cfg).
 */
export type PickedKind = InputKind | 'framework' | 'board';
export const PICKED_KINDS: readonly PickedKind[] = [...INPUT_KINDS, 'framework', 'board'];

/** An input folder as the server describes it (discovery and `editor.inputs`). */
export interface InputRef {
  path: string;
  origin: string;
  rule?: string | null;
}

export interface Discovery {
  cfg?: string | null;
  prototxt?: string | null;
  caffemodel?: string | null;
  folder?: string | null;
  reference?: InputRef | null;
  sim?: InputRef | null;
  sim16?: InputRef | null;
  dot?: InputRef | null;
  /** the ONNX side (`output_onnx/` beside the cfg), with the server's rule */
  framework?: InputRef | null;
  /** the board program's dumps (`board/` beside the cfg), with the server's rule */
  board?: InputRef | null;
  looked_for?: string[];
  notes?: string[];
  /** role -> the places looked at and why each was not taken */
  tried?: Partial<Record<PickedKind, Array<{ path: string; why: string }>>>;
  /** `[prototxt_file]` as the cfg writes it, and where it was looked for when it does not exist */
  prototxt_named?: string | null;
  prototxt_tried?: string[];
  /** the cfgs naming the prototxt asked about (more than one: the user chooses) */
  cfgs?: string[];
}

/** What `nnie.checkFolder` says about a folder. */
export interface FolderState {
  path: string;
  exists: boolean;
  is_folder: boolean;
  files: number;
  written_by_nnie_triage: number;
  foreign_dumps: number;
  foreign_examples?: string[];
  can_overwrite: boolean;
  empty: boolean;
  holds_dumps: boolean;
  why_not_dumps?: string | null;
  /** files in a board dump form (.bin, .txt, .hex, …), its sub-folders' too */
  board_files?: number;
}

export interface TriageArguments {
  cfg?: string;
  prototxt?: string;
  reference?: string;
  sim?: string;
  sim16?: string;
  dot?: string;
  /** the ONNX model's dump folder (`nnie-triage compare --framework`): both hops, ONNX → Caffe → NNIE */
  framework?: string;
  /** the board program's dump folder (`nnie-triage compare --board`): the stage board */
  board?: string;
  discover?: boolean;
  /** re-emulate the NNIE side with the current cfg first ("Regenerate and triage again") */
  regenerate?: boolean;
}

/** One chosen input: where its folder came from decides the label in the picker. */
export interface InputChoice {
  path: string;
  origin: 'discovered' | 'setting' | 'chosen';
  /** The discovery rule, or the setting's name. */
  why?: string;
}

export type TriageInputs = Partial<Record<PickedKind, InputChoice>> & { dot?: string };

/** Settings `nnie.triage.referenceFolder`, `simFolder`, `sim16Folder` (absolute, or relative to the cfg's folder). */
export type FolderSettings = Partial<Record<InputKind, string>>;

export const FOLDER_SETTING: Record<InputKind, string> = {
  reference: 'nnie.triage.referenceFolder',
  sim: 'nnie.triage.simFolder',
  sim16: 'nnie.triage.sim16Folder',
};

export const INPUT_LABEL: Record<PickedKind, string> = {
  reference: 'Reference (Caffe) dumps',
  sim: 'NNIE simulation dumps',
  sim16: '16-bit run (compile_mode 1), optional',
  framework: 'ONNX model dumps (conversion stage), optional',
  board: 'Board dumps (the board program\'s outputs), optional',
};

/** Absolute path of a folder setting: `${workspaceFolder}` and `~` are expanded by the caller; relative means beside the cfg. */
export function settingPath(value: string | undefined, cfgFolder: string | undefined, workspaceFolder: string | undefined): string | undefined {
  const v = value?.trim();
  if (!v) {
    return undefined;
  }
  if (isAbsolute(v)) {
    return v;
  }
  const base = cfgFolder ?? workspaceFolder;
  return base ? join(base, v) : undefined;
}

/**
 * The inputs the picker starts with: a folder setting wins (the user's explicit choice), then
 * what the server discovered beside the cfg. `exists` filters settings that name nothing.
 */
export function initialInputs(
  discovery: Discovery | undefined,
  settings: FolderSettings,
  cfgFolder: string | undefined,
  workspaceFolder: string | undefined,
  exists: (path: string) => boolean,
): TriageInputs {
  const out: TriageInputs = {};
  for (const kind of INPUT_KINDS) {
    const fromSetting = settingPath(settings[kind], cfgFolder, workspaceFolder);
    if (fromSetting && exists(fromSetting)) {
      out[kind] = { path: fromSetting, origin: 'setting', why: FOLDER_SETTING[kind] };
      continue;
    }
    const found = discovery?.[kind];
    if (found && typeof found.path === 'string' && found.path) {
      out[kind] = { path: found.path, origin: 'discovered', why: found.rule ?? undefined };
    }
  }
  for (const kind of ['framework', 'board'] as const) {
    const found = discovery?.[kind];
    if (found && typeof found.path === 'string' && found.path) {
      out[kind] = { path: found.path, origin: 'discovered', why: found.rule ?? undefined };
    }
  }
  if (discovery?.dot?.path) {
    out.dot = discovery.dot.path;
  }
  return out;
}

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!!rel && !rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * The folder a dialog for `kind` opens in: its current value; else the cfg's folder; else the
 * folder around the inputs already chosen — never inside one of them (the second dialog used to
 * open inside the first folder).
 */
export function dialogStartFolder(kind: PickedKind, inputs: TriageInputs, cfgFolder: string | undefined, workspaceFolder: string | undefined): string | undefined {
  const current = inputs[kind]?.path;
  if (current) {
    return current;
  }
  const others = PICKED_KINDS.filter((k) => k !== kind)
    .map((k) => inputs[k]?.path)
    .filter((p): p is string => !!p);
  const candidates = [cfgFolder, ...others.map((p) => dirname(p)), workspaceFolder].filter((p): p is string => !!p);
  for (const candidate of candidates) {
    if (!others.some((other) => isInside(candidate, other))) {
      return candidate;
    }
  }
  return workspaceFolder;
}

/**
 * The `nnie.triage` arguments for what the picker shows: exactly these inputs (`discover: false`),
 * the ONNX side as `framework` when the picker shows one.
 */
export function buildTriageArguments(inputs: TriageInputs, cfg?: string, prototxt?: string): TriageArguments {
  const args: TriageArguments = {};
  if (cfg) {
    args.cfg = cfg;
  }
  if (prototxt) {
    args.prototxt = prototxt;
  }
  for (const kind of PICKED_KINDS) {
    const path = inputs[kind]?.path;
    if (path) {
      args[kind] = path;
    }
  }
  if (inputs.dot) {
    args.dot = inputs.dot;
  }
  args.discover = false;
  return args;
}

/** Short form of a path for labels: relative to `base` when inside it. */
export function shortPath(path: string, base: string | undefined): string {
  if (base) {
    const rel = relative(base, path);
    if (rel && !rel.startsWith('..') && !isAbsolute(rel)) {
      return rel.split(sep).join('/') + '/';
    }
  }
  return path;
}

// ---------------------------------------------------------------- the result

export interface EditorRecord {
  version?: number;
  summary?: string;
  next_step?: string;
  cfg?: string | null;
  prototxt?: string | null;
  inputs?: Partial<Record<PickedKind | 'dot', InputRef | null>>;
  report?: { html?: string | null; text?: string | null; json?: string | null };
  text_report?: string;
  fixes?: { total?: number; applicable?: number; safe?: number };
  ran_at?: string;
  stale?: boolean;
  stale_reasons?: string[];
  /** findings whose fix is already in the texts (their message says so; they offer no fix) */
  fixed?: number;
  /** what the user must know about this run (e.g. the prototxt the cfg names does not exist) */
  warnings?: string[];
  /**
   * The NNIE dumps predate the cfg: the one action the server decided — `regenerate` (an emulation
   * nnie-triage wrote: `nnie.triage` with `arguments`, which hold `regenerate: true`) or `mapper`
   * (no command: words only, nnie_mapper runs outside the editor).
   */
  remake?: Remake | null;
  /** "Confirmed fixed: T102 …" (the engine's `confirmed_fixed`, in the server's words), or null */
  confirmed?: string | null;
}

export interface Remake {
  action: 'regenerate' | 'mapper';
  title: string;
  command?: string | null;
  arguments?: TriageArguments | null;
}

/** An earlier finding whose fix the dumps made again confirm (triage-schema.md, "Confirmed fixed"). */
export interface ConfirmedFix {
  code: string;
  name?: string;
  title?: string;
  path?: string;
  line?: number | null;
  cfg_line?: string | null;
}

export interface Finding {
  code?: string;
  severity?: string;
  message?: string;
  layer?: string;
  cfg_key?: string;
  path?: string;
  line?: number;
  fix?: { applicability?: string; message?: string } | null;
}

export interface TriageResult {
  schema_version?: number;
  case?: number | null;
  next_step?: number;
  verdict?: string;
  reason?: string;
  first_divergence?: string | null;
  findings?: Finding[];
  inputs?: Record<string, unknown>;
  confirmed_fixed?: ConfirmedFix[];
  editor?: EditorRecord;
}

export interface TriageSummary {
  /** One line for the notification: the verdict and the first divergence. */
  message: string;
  level: 'info' | 'warning' | 'error';
  /** The guide's case (1–4), or null. */
  case: number | null;
  /** The self-contained HTML report, when the server wrote one. */
  reportHtml?: string;
  /** What the output channel shows: the server's text report, else a plain summary of the JSON. */
  textReport: string;
  /** Fixes "Apply Fixes" would apply now. */
  applicableFixes: number;
  stale: boolean;
  cfg?: string;
  prototxt?: string;
  warnings: string[];
  /** The one button when the dumps predate the cfg ("Regenerate and triage again"), with its `nnie.triage` arguments. */
  regenerate?: { label: string; args: TriageArguments };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** `verdict` and `first_divergence` as one line, when the server sent no `editor.summary`. */
export function composeSummary(result: TriageResult): string {
  const verdict = str(result.verdict) ?? (typeof result.case === 'number' ? `case ${result.case}` : 'no verdict');
  const divergence = str(result.first_divergence ?? undefined);
  return divergence ? `${verdict}; first divergence: ${divergence}` : `${verdict}; no layer below its threshold`;
}

/** A short plain-text report from the JSON (for results without the server's `editor.text_report`). */
export function plainTextReport(result: TriageResult): string {
  const lines = [`Verdict: ${composeSummary(result)}`];
  if (str(result.reason)) {
    lines.push(`Why: ${result.reason}`);
  }
  if (typeof result.next_step === 'number') {
    lines.push(`Next: step ${result.next_step}`);
  }
  for (const finding of result.findings ?? []) {
    const where = finding.path ? ` · ${finding.path}${finding.line ? `:${finding.line}` : ''}` : '';
    lines.push(`  ${finding.code ?? '?'} [${finding.severity ?? 'info'}${finding.layer ? ` · layer ${finding.layer}` : ''}${where}] ${finding.message ?? ''}`);
    if (finding.fix?.message) {
      lines.push(`      fix: ${finding.fix.message} (${finding.fix.applicability ?? 'unsafe'})`);
    }
  }
  return lines.join('\n');
}

/** Turns a triage result (`nnie.triage`, `nnie.triageResult`) into what the notification and the output channel show. */
export function summarizeTriageResult(raw: unknown): TriageSummary {
  if (!isObject(raw)) {
    const text = raw === null || raw === undefined ? 'the server returned no result' : `unexpected result ${JSON.stringify(raw)}`;
    return { message: `NNIE triage: ${text}.`, level: 'error', case: null, textReport: text, applicableFixes: 0, stale: false, warnings: [] };
  }
  const result = raw as TriageResult;
  const editor: EditorRecord = isObject(result.editor) ? result.editor : {};
  const caseNumber = typeof result.case === 'number' ? result.case : null;
  const stale = editor.stale === true;
  let message = `NNIE triage: ${str(editor.summary) ?? composeSummary(result)}`;
  if (str(editor.next_step)) {
    message += ` — next: ${editor.next_step}`;
  }
  if (stale) {
    message = `[stale] ${message} (${(editor.stale_reasons ?? []).join('; ') || 'inputs changed after the run'})`;
  }
  const findingsWithFix = (result.findings ?? []).filter((f) => isObject(f) && isObject(f.fix)).length;
  const applicableFixes = stale ? 0 : typeof editor.fixes?.applicable === 'number' ? editor.fixes.applicable : findingsWithFix;
  const confirmed = str(editor.confirmed ?? undefined) ?? confirmedLine(result.confirmed_fixed);
  if (confirmed) {
    message += ` — ${confirmed}`;
  }
  const warnings = (editor.warnings ?? []).filter((w): w is string => typeof w === 'string' && w.trim() !== '');
  if (warnings.length) {
    message += ` — warning: ${warnings.join('; ')}`;
  }
  const remake = isObject(editor.remake) ? editor.remake : undefined;
  const regenerate =
    remake?.action === 'regenerate' && isObject(remake.arguments) && remake.arguments.regenerate === true
      ? { label: str(remake.title) ?? REGENERATE_LABEL, args: remake.arguments }
      : undefined;
  const problem = caseNumber !== null || !!str(result.first_divergence ?? undefined) || warnings.length > 0;
  return {
    message,
    level: problem ? 'warning' : 'info',
    case: caseNumber,
    reportHtml: str(editor.report?.html ?? undefined),
    textReport: str(editor.text_report) ?? plainTextReport(result),
    // a result whose dumps predate the cfg offers no fix: only the remake (regenerate, or the mapper's words)
    applicableFixes: remake ? 0 : applicableFixes,
    stale,
    cfg: str(editor.cfg ?? undefined) ?? str(result.inputs?.cfg),
    prototxt: str(editor.prototxt ?? undefined) ?? str(result.inputs?.prototxt),
    warnings,
    regenerate,
  };
}

/** The button of a result whose emulated dumps predate the cfg (the server sends its own, translated, title). */
export const REGENERATE_LABEL = 'Regenerate and triage again';

/** "Confirmed fixed: T102 <title> (sim.cfg:7 [RGB_order] RGB)" from the engine objects, for a result without `editor.confirmed`. */
export function confirmedLine(items: ConfirmedFix[] | undefined): string | undefined {
  const parts = (Array.isArray(items) ? items : [])
    .filter((e) => isObject(e) && typeof e.code === 'string')
    .map((e) => {
      const file = str(e.path) ? basename(e.path as string) + (typeof e.line === 'number' ? `:${e.line}` : '') : '';
      const where = file ? ` (${file}${str(e.cfg_line ?? undefined) ? ` ${e.cfg_line}` : ''})` : '';
      return `${e.code} ${str(e.title) ?? str(e.name) ?? ''}`.trim() + where;
    });
  return parts.length ? `Confirmed fixed: ${parts.join('; ')}` : undefined;
}

// ---------------------------------------------------------------- reference / emulate jobs

export interface JobResult {
  out?: string;
  files?: number;
  message?: string;
}

/** Where `nnie.reference` / `nnie.emulate` write by default, beside the cfg (editor-protocol.md). */
export function defaultJobFolder(kind: 'reference' | 'emulate', cfg: string, bits: 8 | 16 = 8): string {
  const name = kind === 'reference' ? 'output' : bits === 16 ? 'mapper_quant_emulated_16bit' : 'mapper_quant_emulated';
  return join(dirname(cfg), name);
}

export function describeJobResult(kind: 'reference' | 'emulate', raw: unknown): string {
  const job = isObject(raw) ? (raw as JobResult) : {};
  if (str(job.message)) {
    return `NNIE: ${job.message}`;
  }
  const what = kind === 'reference' ? 'Caffe reference dumps' : 'emulated NNIE dumps';
  return `NNIE: wrote ${typeof job.files === 'number' ? job.files : 'the'} ${what}${job.out ? ` to ${job.out}` : ''}.`;
}

// ---------------------------------------------------------------- no dead ends

/** Words for the dump folders a triage needs. */
export const INPUT_WORDS: Record<PickedKind, string> = {
  reference: 'Caffe reference dumps',
  sim: 'NNIE simulation dumps',
  sim16: '16-bit run dumps',
  framework: 'ONNX model dumps',
  board: 'board dumps',
};

/** What each missing input's next step is: the command that makes it. */
export const NEXT_STEP: Record<'reference' | 'sim', { button: string; command: 'reference' | 'emulate' }> = {
  reference: { button: 'Compute Reference Dumps', command: 'reference' },
  sim: { button: 'Emulate NNIE Dumps', command: 'emulate' },
};

export const CHOOSE_FOLDER = 'Choose Folder…';

/**
 * The modal shown when required inputs were not found beside the cfg: what was looked for and
 * where (the server's `tried` list), and the buttons that can move on — make the dumps, or choose
 * a folder that holds them.
 */
export function missingInputsPrompt(missing: Array<'reference' | 'sim'>, discovery: Discovery | undefined, cfg: string | undefined): {
  message: string;
  detail: string;
  buttons: string[];
} {
  const what = missing.map((k) => INPUT_WORDS[k]).join(' and ');
  const where = discovery?.folder ?? (cfg ? dirname(cfg) : undefined);
  const message = `NNIE triage: no ${what} found${cfg ? ` beside ${basename(cfg)}` : ''}.`;
  const lines: string[] = [];
  for (const kind of missing) {
    const tried = discovery?.tried?.[kind] ?? [];
    if (tried.length) {
      lines.push(`${INPUT_WORDS[kind]} — looked for:`);
      for (const t of tried) {
        lines.push(`  • ${shortPath(t.path, where).replace(/\/$/, '')}/ ${t.why}`);
      }
    } else {
      lines.push(`${INPUT_WORDS[kind]}: none given and none found${where ? ` in ${where}` : ''}.`);
    }
  }
  if (where) {
    lines.push(`(in ${where})`);
  }
  const buttons = missing.map((k) => NEXT_STEP[k].button);
  buttons.push(CHOOSE_FOLDER);
  lines.push('', `${missing.map((k) => `${NEXT_STEP[k].button}: ${k === 'reference' ? 'run the Caffe net (OpenCV) on the cfg\'s image' : 'simulate the mapper\'s 8-bit run from the cfg'}`).join('; ')}; or choose folders that hold the dumps.`);
  return { message, detail: lines.join('\n'), buttons };
}

/** Why a chosen input folder cannot be used (undefined: it holds dumps). */
export function folderProblem(kind: PickedKind, state: FolderState | undefined): string | undefined {
  if (kind === 'board') {
    if (!state || (state.board_files ?? 0) > 0) {
      return undefined;
    }
    const why = state.exists ? 'holds no file in a board dump form' : 'does not exist';
    return `NNIE triage: ${state.path} ${why} — it cannot be the folder of the board dumps. Choose the folder the board program wrote (one file per output node: <name>.bin with the blob memory, <name>.txt with one value per line).`;
  }
  if (!state || state.holds_dumps) {
    return undefined;
  }
  const why = state.why_not_dumps ?? (state.exists ? 'holds no dump files' : 'does not exist');
  const where = kind === 'framework' ? 'nnie-triage reference --onnx writes output_onnx/' : "RuyiStudio's output/, nnie_mapper's mapper_quant/";
  return `NNIE triage: ${state.path} ${why} — it cannot be the folder of the ${INPUT_WORDS[kind]}. Choose the folder that holds the dump files (${where}).`;
}

/** One thing `nnie.reference` / `nnie.emulate` lack, at the cfg line that names it (`nnie.checkToolInputs`). */
export interface ToolInputProblem {
  message: string;
  path: string;
  key: string | null;
  line: number;
  character: number;
  end_line: number;
  end_character: number;
}

export interface ToolInputs {
  ok: boolean;
  problems: ToolInputProblem[];
}

/** The message before a job whose cfg lacks what it needs: `sim.cfg:2: …` and how many more. */
export function toolInputsMessage(checked: ToolInputs | undefined): string | undefined {
  if (!checked || checked.ok || !checked.problems?.length) {
    return undefined;
  }
  const first = checked.problems[0];
  const more = checked.problems.length > 1 ? ` (and ${checked.problems.length - 1} more)` : '';
  return `NNIE: ${basename(first.path)}:${first.line + 1}: ${first.message}${more}`;
}

export const SHOW_IN_CFG = 'Show in cfg';

export const OVERWRITE = 'Overwrite';
export const CHOOSE_OTHER = 'Choose Another Folder…';

/**
 * The question before `nnie.reference` / `nnie.emulate` writes into a folder that is not empty:
 * "Overwrite" only when every dump there is nnie-triage's own (the tool never overwrites other
 * dumps: it refuses them); undefined when the folder is free.
 */
export function outputPrompt(state: FolderState | undefined): { message: string; detail: string; buttons: string[] } | undefined {
  if (!state || state.empty || !state.is_folder) {
    return undefined;
  }
  const name = `${basename(state.path)}/`;
  if (state.foreign_dumps > 0) {
    const examples = state.foreign_examples?.length ? ` (${state.foreign_examples.join(', ')}${state.foreign_dumps > state.foreign_examples.length ? ', …' : ''})` : '';
    return {
      message: `NNIE: ${name} already holds ${state.foreign_dumps} dump file(s) nnie-triage did not write.`,
      detail: `They are never overwritten${examples}. Write the new dumps to another folder, or move them away first.`,
      buttons: [CHOOSE_OTHER],
    };
  }
  if (state.written_by_nnie_triage > 0) {
    return {
      message: `NNIE: ${name} holds ${state.written_by_nnie_triage} file(s) of an earlier run of this command.`,
      detail: 'Overwrite them (only the files that run wrote are replaced), or write the dumps to another folder?',
      buttons: [OVERWRITE, CHOOSE_OTHER],
    };
  }
  return undefined;
}

/** The `missingPackage` object of a server error (`data.missingPackage`, editor-protocol.md). */
export interface MissingPackage {
  module: string;
  package: string;
  extra: string;
  requirement: string;
  command?: string | null;
  python?: string;
}

export function missingPackageOf(data: unknown): MissingPackage | undefined {
  const value = isObject(data) ? data.missingPackage : undefined;
  return isObject(value) && typeof value.module === 'string' ? (value as unknown as MissingPackage) : undefined;
}

/** The quick pick items when several cfgs could be meant: open ones first, then by path. */
export function cfgChoices(cfgs: string[], open: string[], root: string | undefined): Array<{ label: string; description: string; detail?: string; path: string }> {
  const isOpen = new Set(open);
  return [...new Set(cfgs)]
    .sort((a, b) => Number(isOpen.has(b)) - Number(isOpen.has(a)) || (a < b ? -1 : a > b ? 1 : 0))
    .map((path) => ({ label: basename(path), description: shortPath(dirname(path), root), detail: isOpen.has(path) ? 'open in the editor' : undefined, path }));
}

/** The warning before a triage whose cfg names a prototxt that does not exist. */
export function missingPrototxtPrompt(discovery: Discovery | undefined): { message: string; detail: string } | undefined {
  if (!discovery?.prototxt_named || discovery.prototxt) {
    return undefined;
  }
  const cfg = discovery.cfg ? basename(discovery.cfg) : 'the cfg';
  const where = (discovery.prototxt_tried ?? []).slice(0, 3).join('\n  • ');
  return {
    message: `NNIE triage: ${cfg} names the prototxt ${discovery.prototxt_named}, which does not exist.`,
    detail: `Looked for:\n  • ${where || discovery.prototxt_named}\n\nWithout the net the layers cannot be matched to it. Fix [prototxt_file] in ${cfg} first, or run the triage anyway.`,
  };
}
