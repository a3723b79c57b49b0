/**
 * The Chart.js datasets of the report webview's plot, as plain data from the plot model
 * (model.ts). No `node:` import, no DOM: the webview's browser bundle (webview.ts)
 * and the unit tests both use it.
 */
import type { PlotModel } from './model';
import { FRAMEWORK_COLOUR, LINE_COLOUR, THRESHOLD_LINES } from './palette';

/** The Caffe → NNIE curve, and the ONNX → Caffe one (the report's palette). */
export { FRAMEWORK_COLOUR, LINE_COLOUR } from './palette';
/** The legend of the two hops, in the chain's order of the words the static report uses. */
export const HOP_LABELS = { nnie: 'Caffe → NNIE', framework: 'ONNX → Caffe (conversion)', shape: 'ONNX → Caffe: size differs' } as const;

/** One Chart.js line dataset as plain data (webview.ts hands these to Chart.js). */
export interface CurveDataset {
  /** `nnie` (clicks and hover come from it), `framework`, `shape`, or a threshold's key. */
  role: string;
  label: string;
  data: Array<number | null>;
  borderColor: string;
  borderWidth: number;
  borderDash?: number[];
  showLine?: boolean;
  spanGaps?: boolean;
  pointStyle?: string;
  pointBackgroundColor?: string | string[];
  pointBorderColor?: string;
  pointRadius: number | number[];
  pointHoverRadius: number | number[];
  pointHitRadius?: number;
  tension?: number;
  clip?: number;
}

/**
 * The plot's datasets, first the Caffe → NNIE curve (index 0: hover and clicks), then with the ONNX
 * side the dashed ONNX → Caffe curve (a gap where not compared: `spanGaps` false) and, when some
 * layer's sizes differ, its `×` marks on the axis, then the threshold lines.
 */
export function curveDatasets(model: PlotModel): CurveDataset[] {
  const points = model.points;
  const out: CurveDataset[] = [
    {
      role: 'nnie',
      label: model.hops ? HOP_LABELS.nnie : 'cosine',
      data: points.map((p) => p.cosine),
      borderColor: LINE_COLOUR,
      borderWidth: 1.5,
      pointBackgroundColor: points.map((p) => p.colour),
      pointBorderColor: '#ffffff',
      pointRadius: points.map((p) => (p.firstDivergence ? 6 : 4)),
      pointHoverRadius: points.map((p) => (p.firstDivergence ? 8 : 6)),
      tension: 0,
      clip: 8, // points at cosine 1 are drawn whole above the top of the axis
    },
  ];
  if (model.hops) {
    out.push({
      role: 'framework',
      label: HOP_LABELS.framework,
      data: points.map((p) => p.framework),
      borderColor: FRAMEWORK_COLOUR,
      borderWidth: 1.5,
      borderDash: [5, 3],
      spanGaps: false,
      pointStyle: 'rect',
      pointBackgroundColor: FRAMEWORK_COLOUR,
      pointBorderColor: FRAMEWORK_COLOUR,
      pointRadius: 3,
      pointHoverRadius: 4,
      tension: 0,
      clip: 8,
    });
    if (points.some((p) => p.sizeDiffers)) {
      out.push({
        role: 'shape',
        label: HOP_LABELS.shape,
        data: points.map((p) => (p.sizeDiffers ? model.yMin : null)),
        borderColor: FRAMEWORK_COLOUR,
        borderWidth: 2,
        showLine: false,
        pointStyle: 'crossRot',
        pointRadius: 7,
        pointHoverRadius: 8,
        clip: 8,
      });
    }
  }
  for (const t of model.thresholds) {
    out.push({
      role: t.key,
      label: `${t.label} ${t.value}`,
      data: points.map(() => t.value),
      borderColor: t.colour,
      borderWidth: 1,
      borderDash: [...(THRESHOLD_LINES.find((line) => line.key === t.key)?.dash ?? [6, 4])],
      pointRadius: 0,
      pointHoverRadius: 0,
      pointHitRadius: 0,
    });
  }
  return out;
}
