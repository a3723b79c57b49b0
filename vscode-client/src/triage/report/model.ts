/**
 * What the report webview draws, from the triage result JSON (pure: no `vscode`, no DOM).
 *
 * Everything comes from the engine's result (nnie_lsp/docs/triage-schema.md): the per-layer
 * cosines and statuses (`layers[]`), the thresholds (`thresholds`), the first divergence, the
 * layers' places in the prototxt (`layers[].path/line/column`) and the staleness the server
 * computed (`editor.stale`, `editor.stale_reasons`). The client never compares a cosine with a
 * threshold: a point's colour is its row's `status`.
 *
 * With the ONNX side (`nnie-triage compare --framework`) the rows also carry the hop
 * ONNX → Caffe (`framework_cosine`, `framework_status`): the plot draws it as a second, dashed
 * curve (a gap where it was not compared, a `×` on the axis where the Caffe output has another
 * size than ONNX's: `framework_status` "shape"), as the static report does
 * (nnie_lsp/triage/report/svg_plot.py), and the hover names both hops.
 */
import { isAbsolute, join } from 'node:path';
import { LINE_COLOUR, STATUS_COLOUR, THRESHOLD_LINES } from './palette';

/**
 * The palette (generated from the report's, nnie_lsp/triage/report/palette.py): the statuses'
 * colours and the guide's cosine thresholds the plot draws as lines (names, colours and dashes
 * only: the values are the result's).
 */
export { STATUS_COLOUR, THRESHOLD_LINES } from './palette';

export interface LayerRow {
  name?: unknown;
  cosine?: unknown;
  status?: unknown;
  is_data?: unknown;
  first_divergence?: unknown;
  cosine_min?: unknown;
  cosine_median?: unknown;
  path?: unknown;
  line?: unknown;
  column?: unknown;
  framework_cosine?: unknown;
  framework_status?: unknown;
  framework_note?: unknown;
}

export interface ReportResult {
  layers?: unknown;
  thresholds?: unknown;
  first_divergence?: unknown;
  inputs?: unknown;
  editor?: unknown;
}

export interface PlotPoint {
  /** The row's position in `layers` (what a click sends back). */
  row: number;
  name: string;
  /** The x-axis label (the name, shortened when long). */
  label: string;
  cosine: number;
  status: string;
  colour: string;
  firstDivergence: boolean;
  /** The hover text: the layer, its cosine and status (with the ONNX side: both hops), the thresholds. */
  tooltip: string[];
  /** The hop ONNX → Caffe (`framework_cosine`), null where it was not compared (a gap in its curve). */
  framework: number | null;
  /** The engine's `framework_status` (`ok`, `differs`, `shape`, `missing`), null without the ONNX side. */
  frameworkStatus: string | null;
  /** The Caffe output has another size than ONNX's (`framework_status` "shape"): a `×` on the axis. */
  sizeDiffers: boolean;
}

export interface ThresholdLine {
  key: string;
  label: string;
  value: number;
  colour: string;
}

export interface PlotModel {
  points: PlotPoint[];
  thresholds: ThresholdLine[];
  firstDivergence: string | null;
  yMin: number;
  yMax: number;
  /** A click can open the layer: the result names a prototxt. */
  clickable: boolean;
  /** The rows carry the hop ONNX → Caffe (`compare --framework`): two curves, a legend for each. */
  hops: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function rows(result: ReportResult): LayerRow[] {
  return Array.isArray(result.layers) ? result.layers.filter(isObject) : [];
}

/** `0.999` as the engine wrote it (no trailing zeros, no float noise). */
export function formatThreshold(value: number): string {
  return String(Number(value.toPrecision(6)));
}

/** The drawn thresholds: those of the four the result carries, in the guide's order. */
export function thresholdLines(result: ReportResult): ThresholdLine[] {
  const th = isObject(result.thresholds) ? result.thresholds : {};
  const out: ThresholdLine[] = [];
  for (const { key, label, colour } of THRESHOLD_LINES) {
    const value = finite(th[key]);
    if (value !== undefined) {
      out.push({ key, label, value, colour });
    }
  }
  return out;
}

export function thresholdsText(lines: ThresholdLine[]): string {
  return lines.map((l) => `${l.label} ${formatThreshold(l.value)}`).join(' · ');
}

/** The row carries the hop ONNX → Caffe (a `framework_cosine` or a `framework_status`). */
export function hasFrameworkHop(row: LayerRow): boolean {
  return 'framework_cosine' in row || 'framework_status' in row;
}

/** The hover line of the hop ONNX → Caffe, in the engine's terms (its status, never a threshold of ours). */
export function frameworkLine(row: LayerRow): string {
  const cosine = finite(row.framework_cosine);
  const status = text(row.framework_status);
  const note = text(row.framework_note);
  let line: string;
  if (cosine !== undefined) {
    line = `ONNX → Caffe cosine ${cosine.toFixed(6)} (${status ?? 'no status'})`;
  } else if (status === 'shape') {
    line = "ONNX → Caffe: the Caffe output has another size than ONNX's";
  } else if (status === 'missing') {
    line = 'ONNX → Caffe: not compared (no ONNX dump for this blob)';
  } else {
    line = `ONNX → Caffe: not compared${status ? ` (${status})` : ''}`;
  }
  return note ? `${line}; ${note}` : line;
}

/** The hover lines of one layer. */
export function tooltipLines(row: LayerRow, cosine: number, lines: ThresholdLine[], clickable: boolean, hops = false): string[] {
  const status = `${cosine.toFixed(6)} (${text(row.status) ?? 'no status'})`;
  const out = hops ? [frameworkLine(row), `Caffe → NNIE cosine ${status}`] : [`cosine ${status}`];
  const lo = finite(row.cosine_min);
  const median = finite(row.cosine_median);
  if (lo !== undefined && median !== undefined) {
    out.push(`over the images: min ${lo.toFixed(6)}, median ${median.toFixed(6)}`);
  }
  if (row.first_divergence === true) {
    out.push('first divergence');
  }
  if (row.is_data === true) {
    out.push('data layer');
  }
  if (lines.length) {
    out.push(`thresholds: ${thresholdsText(lines)}`);
  }
  if (clickable) {
    out.push('click: go to the layer in the prototxt');
  }
  return out;
}

/** The prototxt the result was computed from (absolute when the result says where it ran). */
function resultPrototxt(result: ReportResult): string | undefined {
  const editor = isObject(result.editor) ? result.editor : {};
  const inputs = isObject(result.inputs) ? result.inputs : {};
  return text(editor.prototxt) ?? absolutePath(text(inputs.prototxt), result);
}

function absolutePath(path: string | undefined, result: ReportResult): string | undefined {
  if (!path || isAbsolute(path)) {
    return path;
  }
  const inputs = isObject(result.inputs) ? result.inputs : {};
  const base = text(inputs.working_directory);
  return base ? join(base, path) : undefined;
}

/** An x-axis label: long layer names are shortened (the hover shows the whole name). */
export function shortLabel(name: string, most = 16): string {
  return name.length <= most ? name : `${name.slice(0, most - 1)}…`;
}

/** The plot: one point per layer whose cosine is a number, in network order. */
export function plotModel(result: ReportResult): PlotModel {
  const lines = thresholdLines(result);
  const all = rows(result);
  const clickable = !!resultPrototxt(result) || all.some((r) => !!text(r.path));
  const hops = all.some(hasFrameworkHop);
  const points: PlotPoint[] = [];
  all.forEach((row, index) => {
    const cosine = finite(row.cosine);
    if (cosine === undefined) {
      return;
    }
    const status = text(row.status) ?? '';
    const name = text(row.name) ?? `#${index}`;
    points.push({
      row: index,
      name,
      label: shortLabel(name),
      cosine,
      status,
      colour: STATUS_COLOUR[status] ?? LINE_COLOUR,
      firstDivergence: row.first_divergence === true,
      tooltip: tooltipLines(row, cosine, lines, clickable, hops),
      framework: hops ? (finite(row.framework_cosine) ?? null) : null,
      frameworkStatus: hops ? (text(row.framework_status) ?? null) : null,
      sizeDiffers: hops && finite(row.framework_cosine) === undefined && row.framework_status === 'shape',
    });
  });
  const frameworkValues = points.map((p) => p.framework).filter((v): v is number => v !== null);
  const values = [...points.map((p) => p.cosine), ...frameworkValues, ...lines.map((l) => l.value)];
  const lowest = values.length ? Math.min(...values) : 0;
  const highest = values.length ? Math.max(...values) : 1;
  return {
    points,
    thresholds: lines,
    firstDivergence: text(result.first_divergence) ?? null,
    // a little room below the lowest point or line, on a 0.05 grid (the axis' ticks); 1 at the top
    yMin: Math.max(-1.05, Math.floor((lowest - 0.02) / 0.05) * 0.05),
    yMax: Math.max(1, highest),
    clickable,
    hops,
  };
}

export interface LayerTarget {
  name: string;
  /** Absolute path of the prototxt, when known. */
  path?: string;
  /** 1-based, at the run (the editor looks the layer up in the current text first). */
  line?: number;
  column?: number;
}

/** Where a click on row `row` goes: the row's own place, else the result's prototxt. */
export function layerTarget(result: ReportResult, row: number): LayerTarget | undefined {
  const r = rows(result)[row];
  const name = r ? text(r.name) : undefined;
  if (!r || !name) {
    return undefined;
  }
  const own = absolutePath(text(r.path), result);
  const line = finite(r.line);
  const column = finite(r.column);
  return {
    name,
    path: own ?? resultPrototxt(result),
    line: own && line !== undefined && line >= 1 ? line : undefined,
    column: own && column !== undefined && column >= 1 ? column : undefined,
  };
}

/** The banner of a stale report (undefined: not stale, or not known). */
export function staleBanner(result: ReportResult): string | undefined {
  const editor = isObject(result.editor) ? result.editor : undefined;
  if (!editor || editor.stale !== true) {
    return undefined;
  }
  const reasons = (Array.isArray(editor.stale_reasons) ? editor.stale_reasons : []).filter((r): r is string => !!text(r));
  const ranAt = text(editor.ran_at);
  return `Stale report: ${reasons.join('; ') || 'its inputs changed after the run'}. The numbers below are those of the run${ranAt ? ` of ${ranAt}` : ''}, not of the files as they are now.`;
}
