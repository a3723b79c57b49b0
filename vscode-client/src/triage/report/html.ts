/**
 * The triage's HTML report prepared for a VS Code webview (pure).
 *
 * The report (`nnie-triage compare --html`) is one self-contained page: inline CSS, an inline SVG
 * plot between `<!-- nnie-plot:start -->` and `<!-- nnie-plot:end -->`, no scripts. The webview
 * shows it with
 * - a Content-Security-Policy: no network; scripts only with this page's nonce (the bundled plot
 *   script, dist/reportWebview.js); the report's own scripts, if any, are dropped;
 * - the interactive plot in place of the static one (`#cosine-plot`, drawn by the script from the
 *   model embedded as JSON; the static SVG stays as the fallback until the plot is drawn);
 * - a banner when the result is stale (`#stale-banner`, updated by messages while the panel is open);
 * - a white page (the report's colours are written for a light page) that uses the panel's full width.
 */
import type { PlotModel } from './model';

export const PLOT_START = '<!-- nnie-plot:start -->';
export const PLOT_END = '<!-- nnie-plot:end -->';

export function contentSecurityPolicy(cspSource: string, nonce?: string): string {
  const policy = [
    "default-src 'none'",
    `style-src 'unsafe-inline' ${cspSource}`,
    `img-src data: ${cspSource}`,
    `font-src data: ${cspSource}`,
  ];
  if (nonce) {
    policy.push(`script-src 'nonce-${nonce}'`);
  }
  return policy.join('; ');
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** JSON that can sit inside `<script type="application/json">` (no `</script>`, no `<!--`). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A nonce for the page's script (32 characters of base64url). */
export function makeNonce(random: (n: number) => Uint8Array): string {
  return Buffer.from(random(24)).toString('base64url');
}

export interface InteractivePlot {
  nonce: string;
  /** The webview URI of dist/reportWebview.js. */
  scriptUri: string;
  model: PlotModel;
}

export interface WebviewExtras {
  plot?: InteractivePlot;
  /** The stale banner's text (undefined: not stale). */
  stale?: string;
}

const PAGE_CSS =
  'html,body{background:#ffffff;color:#1f2328}' +
  'body{max-width:none;margin:12px 16px}' +
  '#stale-banner{margin:0 0 12px;padding:8px 12px;border:1px solid #d4a72c;border-left:4px solid #bf8700;background:#fff8c5;color:#1f2328}' +
  '#stale-banner[hidden]{display:none}' +
  '#cosine-plot{position:relative;width:100%;height:340px;min-width:0}' +
  '#cosine-plot[data-drawn="false"] canvas{display:none}' +
  '.plot-hint{color:#57606a;font-size:.85em;margin:.3em 0 0}';

function bannerHtml(text: string | undefined): string {
  return `<div id="stale-banner" role="status"${text ? '' : ' hidden'}>${text ? escapeHtml(text) : ''}</div>`;
}

function plotHtml(plot: InteractivePlot, staticPlot: string): string {
  const hint = plot.model.clickable ? 'Hover a point for the layer, its cosine and the thresholds; click it to go to the layer in the prototxt.' : 'Hover a point for the layer, its cosine and the thresholds.';
  return (
    '<h2>Per-layer similarity</h2>' +
    '<div id="cosine-plot" data-drawn="false" role="img" aria-label="cosine similarity per layer"><canvas id="cosine-canvas"></canvas></div>' +
    `<p class="plot-hint">${escapeHtml(hint)}</p>` +
    // the report's own plot, shown until (or unless) the interactive one is drawn
    `<div id="static-plot">${staticPlot}</div>` +
    `<script type="application/json" id="nnie-plot-data">${scriptJson(plot.model)}</script>`
  );
}

/** The page the webview shows: the report with the CSP, the banner and (when given) the interactive plot. */
export function reportForWebview(html: string, cspSource: string, extras: WebviewExtras = {}): string {
  const plot = extras.plot && extras.plot.model.points.length ? extras.plot : undefined;
  const head =
    `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(cspSource, plot?.nonce)}">` + `<style>${PAGE_CSS}</style>`;
  // Any <script> of the report is dropped (it never needs one); only the nonce'd plot script runs.
  let page = html.replace(/<script\b[\s\S]*?<\/script\s*>/gi, '');
  if (plot) {
    const start = page.indexOf(PLOT_START);
    const end = start >= 0 ? page.indexOf(PLOT_END, start) : -1;
    if (start >= 0 && end >= 0) {
      const inner = page.slice(start + PLOT_START.length, end).replace(/<h2>[^<]*<\/h2>/, '');
      page = page.slice(0, start) + plotHtml(plot, inner) + page.slice(end + PLOT_END.length);
    } else {
      // a report written before the markers: the plot goes first
      page = /<body[^>]*>/i.test(page) ? page.replace(/<body([^>]*)>/i, (m) => m + plotHtml(plot, '')) : plotHtml(plot, '') + page;
    }
  }
  if (plot || extras.stale) {
    // the banner is there (hidden) whenever the script runs: it shows it when the result goes stale
    const banner = bannerHtml(extras.stale);
    page = /<body[^>]*>/i.test(page) ? page.replace(/<body([^>]*)>/i, (m) => m + banner) : banner + page;
  }
  if (plot) {
    const script = `<script nonce="${plot.nonce}" src="${escapeHtml(plot.scriptUri)}"></script>`;
    page = /<\/body\s*>/i.test(page) ? page.replace(/<\/body\s*>/i, `${script}</body>`) : page + script;
  }
  if (/<head[^>]*>/i.test(page)) {
    return page.replace(/<head([^>]*)>/i, (_m, attrs: string) => `<head${attrs}>${head}`);
  }
  return `<!DOCTYPE html><html><head>${head}</head><body>${page}</body></html>`;
}

/** What the webview shows when the report file cannot be read. */
export function missingReportPage(path: string, reason: string, cspSource: string): string {
  return (
    `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(cspSource)}"></head>` +
    `<body><h2>NNIE triage report not available</h2><p>${escapeHtml(path)}</p><p>${escapeHtml(reason)}</p>` +
    '<p>Run <b>NNIE: Run Accuracy Triage…</b> again to write it.</p></body></html>'
  );
}
