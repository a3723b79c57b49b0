/**
 * The `.wk` view's page (pure: no vscode import, unit-tested): the server's table made safe for a
 * webview, the message page, and the argument of `nnie.openWk`.
 */
import { contentSecurityPolicy, escapeHtml } from './triage/report/html';

export interface WkView {
  path: string;
  title: string;
  intact: boolean;
  summary: string | null;
  text: string;
  html: string;
  error: string | null;
}

/** The server's page made safe for a webview: its scripts dropped, a CSP without network or scripts. (pure) */
export function wkPage(html: string, cspSource: string): string {
  const csp = `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(cspSource)}">`;
  const clean = html.replace(/<script\b[\s\S]*?<\/script\s*>/gi, '').replace(/<script\b[^>]*>/gi, '');
  return /<head>/i.test(clean) ? clean.replace(/<head>/i, `<head>${csp}`) : `<!DOCTYPE html><html><head>${csp}</head><body>${clean}</body></html>`;
}

/** A page saying why there is no table (the server is not running, the request failed). (pure) */
export function wkMessagePage(name: string, message: string, cspSource: string): string {
  return wkPage(`<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><p><strong>${escapeHtml(name)}</strong>: ${escapeHtml(message)}</p></body></html>`, cspSource);
}

/** The path a `nnie.openWk` argument names: `{path}`, a path string or a Uri. (pure) */
export function wkPathOf(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg) {
    return arg;
  }
  if (arg && typeof arg === 'object') {
    const value = arg as { path?: unknown; fsPath?: unknown; scheme?: unknown };
    if (typeof value.fsPath === 'string' && value.scheme === 'file') {
      return value.fsPath;
    }
    if (typeof value.path === 'string' && value.path) {
      return value.path;
    }
  }
  return undefined;
}
