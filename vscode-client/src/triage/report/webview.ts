/// <reference lib="dom" />
/**
 * The script of the report webview (bundled by esbuild into dist/reportWebview.js, run in the
 * webview only): draws the per-layer cosine plot with Chart.js from the model the page embeds
 * (`#nnie-plot-data`, made by model.ts from the engine's result; the datasets are
 * curves.ts: with the ONNX side, the dashed ONNX → Caffe curve beside Caffe → NNIE), posts
 * `{type: 'openLayer', row}` when a point is clicked, and shows or hides the stale banner on the
 * extension's `{type: 'stale', text}` messages. When the plot is drawn, `#cosine-plot` gets
 * `data-drawn="true"` and the report's static plot is hidden.
 */
import {
  CategoryScale,
  Chart,
  type ChartDataset,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  type Plugin,
  PointElement,
  Tooltip,
  type TooltipItem,
} from 'chart.js';
import { curveDatasets } from './curves';
import type { PlotModel } from './model';
import { DIVERGENCE_COLOUR } from './palette';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

Chart.register(LineController, LineElement, PointElement, LinearScale, CategoryScale, Tooltip, Legend);

function main(): void {
  const vscode = acquireVsCodeApi();
  window.addEventListener('message', (event: MessageEvent) => {
    const message = event.data as { type?: string; text?: string };
    if (message?.type === 'stale') {
      const banner = document.getElementById('stale-banner');
      if (banner) {
        banner.textContent = message.text ?? '';
        banner.hidden = !message.text;
      }
    }
  });
  const container = document.getElementById('cosine-plot');
  const canvas = document.getElementById('cosine-canvas') as HTMLCanvasElement | null;
  const data = document.getElementById('nnie-plot-data');
  if (!container || !canvas || !data?.textContent) {
    return;
  }
  const model = JSON.parse(data.textContent) as PlotModel;
  const labels = model.points.map((p) => p.name);
  // plain data from the model (role is ours, Chart.js ignores it); index 0 is Caffe → NNIE
  const datasets = curveDatasets(model) as unknown as ChartDataset<'line', Array<number | null>>[];
  const drawn: Plugin<'line'> = {
    id: 'nnieDrawn',
    afterRender() {
      if (container.dataset.drawn !== 'true') {
        container.dataset.drawn = 'true';
        const fallback = document.getElementById('static-plot');
        if (fallback) {
          fallback.hidden = true;
        }
      }
    },
  };
  const firstDivergence: Plugin<'line'> = {
    id: 'nnieFirstDivergence',
    afterDatasetsDraw(chart) {
      const at = model.points.findIndex((p) => p.firstDivergence);
      if (at < 0) {
        return;
      }
      const x = chart.scales.x.getPixelForValue(at);
      const { top, bottom } = chart.chartArea;
      const ctx = chart.ctx;
      ctx.save();
      ctx.strokeStyle = DIVERGENCE_COLOUR;
      ctx.lineWidth = 1.2;
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, bottom);
      ctx.stroke();
      ctx.fillStyle = DIVERGENCE_COLOUR;
      ctx.font = '11px system-ui, sans-serif';
      const label = `first divergence: ${model.points[at].name}`;
      const right = x + 4 + ctx.measureText(label).width > chart.chartArea.right;
      ctx.textAlign = right ? 'right' : 'left';
      ctx.fillText(label, right ? x - 4 : x + 4, top + 12);
      ctx.restore();
    },
  };
  const pointAt = (chart: Chart<'line'>, event: Event): number | undefined => {
    const hits = chart.getElementsAtEventForMode(event, 'index', { intersect: false }, false);
    const hit = hits.find((h) => h.datasetIndex === 0);
    return hit ? hit.index : undefined;
  };
  const chart = new Chart<'line', Array<number | null>, string>(canvas, {
    type: 'line',
    data: { labels, datasets },
    plugins: [drawn, firstDivergence],
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'index', intersect: false },
      scales: {
        x: { ticks: { autoSkip: true, maxRotation: 60, minRotation: 0, font: { size: 10 }, callback: (_value, index) => model.points[index]?.label ?? '' } },
        y: { min: model.yMin, max: model.yMax, title: { display: true, text: 'cosine similarity' } },
      },
      plugins: {
        legend: { position: 'bottom', labels: { boxWidth: 18, font: { size: 11 } } },
        tooltip: {
          filter: (item: TooltipItem<'line'>) => item.datasetIndex === 0,
          callbacks: {
            title: (items: TooltipItem<'line'>[]) => (items.length ? model.points[items[0].dataIndex].name : ''),
            label: (item: TooltipItem<'line'>) => model.points[item.dataIndex].tooltip,
          },
        },
      },
      onHover: (event, _elements, c) => {
        if (model.clickable && event.native) {
          (c.canvas as HTMLCanvasElement).style.cursor = pointAt(c as Chart<'line'>, event.native) === undefined ? 'default' : 'pointer';
        }
      },
      onClick: (event, _elements, c) => {
        const index = model.clickable && event.native ? pointAt(c as Chart<'line'>, event.native) : undefined;
        if (index !== undefined) {
          vscode.postMessage({ type: 'openLayer', row: model.points[index].row });
        }
      },
    },
  });
  // e2e and tests can reach the chart; nothing else on the page reads it
  (window as unknown as { nnieChart?: unknown }).nnieChart = chart;
}

main();
