/**
 * The triage's HTML report prepared for a VS Code webview (pure).
 *
 * The report (`nnie-triage compare --html`) is one self-contained page: inline CSS, inline SVG
 * plots, no scripts. The webview gets it with a Content-Security-Policy that allows exactly that
 * (no scripts, no network) and a white page background, since the report's colours are written
 * for a light page and a dark editor theme would otherwise show dark text on dark.
 */

export function contentSecurityPolicy(cspSource: string): string {
  return [
    "default-src 'none'",
    `style-src 'unsafe-inline' ${cspSource}`,
    `img-src data: ${cspSource}`,
    `font-src data: ${cspSource}`,
  ].join('; ');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The page the webview shows: the report with the CSP and background added to its `<head>`. */
export function reportForWebview(html: string, cspSource: string): string {
  const head =
    `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(cspSource)}">` +
    '<style>html,body{background:#ffffff;color:#1f2328}</style>';
  // Any <script> is dropped even though the CSP would block it: the report never needs one.
  const cleaned = html.replace(/<script\b[\s\S]*?<\/script\s*>/gi, '');
  if (/<head[^>]*>/i.test(cleaned)) {
    return cleaned.replace(/<head([^>]*)>/i, (_m, attrs: string) => `<head${attrs}>${head}`);
  }
  return `<!DOCTYPE html><html><head>${head}</head><body>${cleaned}</body></html>`;
}

/** What the webview shows when the report file cannot be read. */
export function missingReportPage(path: string, reason: string, cspSource: string): string {
  return (
    `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(cspSource)}"></head>` +
    `<body><h2>NNIE triage report not available</h2><p>${escapeHtml(path)}</p><p>${escapeHtml(reason)}</p>` +
    '<p>Run <b>NNIE: Run Accuracy Triage…</b> again to write it.</p></body></html>'
  );
}
