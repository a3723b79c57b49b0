/**
 * The triage's report in a webview (one panel, reused): the server's HTML report with an
 * interactive per-layer cosine plot (Chart.js, bundled as dist/reportWebview.js), a banner when
 * the result is stale, and "click a point: go to the layer in the prototxt".
 *
 * The result comes from the server (`nnie.triageResult`: the stored result with its `editor`
 * object, which says whether it is stale); without a running server, from the stored record beside
 * the report (`.nnie-triage/<stem>.json`), staleness then unknown. While the panel is open the
 * banner follows edits and saves of the result's cfg and prototxt, and the page follows a new run
 * (the record is rewritten).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { makeNonce, missingReportPage, reportForWebview } from './html';
import { layerTarget, plotModel, type ReportResult, staleBanner } from './model';
import { SERVER_COMMANDS } from '../model';

export const REPORT_VIEW_TYPE = 'nnie.triageReport';

/** How long the panel waits for the server's stored result before drawing from the record alone. */
const RESULT_TIMEOUT_MS = 4000;
const STALE_DEBOUNCE_MS = 600;

interface Shown {
  htmlPath: string;
  result?: ReportResult;
  /** The cfg / prototxt the result belongs to (what `nnie.triageResult` is asked about). */
  target: { cfg?: string; prototxt?: string };
  /** The files whose edits can make the result stale. */
  files: string[];
  stale?: string;
  interactive: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** The stored record beside the report: its result and the files it belongs to (store.py's layout). */
export function readRecord(htmlPath: string): { result?: ReportResult; target: { cfg?: string; prototxt?: string }; files: string[] } {
  const jsonPath = htmlPath.replace(/\.html$/i, '.json');
  const base = dirname(dirname(htmlPath));
  const abs = (p: unknown) => (typeof p === 'string' && p ? (isAbsolute(p) ? p : join(base, p)) : undefined);
  try {
    const record = JSON.parse(readFileSync(jsonPath, 'utf8')) as Record<string, unknown>;
    const result = isObject(record.result) ? (record.result as ReportResult) : undefined;
    const cfg = abs(record.cfg);
    const prototxt = abs(record.prototxt);
    return { result, target: cfg ? { cfg } : prototxt ? { prototxt } : {}, files: [cfg, prototxt].filter((p): p is string => !!p) };
  } catch {
    return { target: {}, files: [] };
  }
}

export class ReportView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private current: Shown | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  private watcher: vscode.FileSystemWatcher | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The report the panel shows (for tests and the log). */
  shown: string | undefined;

  /** `scriptsFolder`: where dist/reportWebview.js is (default: beside the bundled extension.js). */
  constructor(
    private readonly log: (message: string) => void,
    private readonly scriptsFolder: vscode.Uri = vscode.Uri.file(__dirname),
  ) {
    const watchEdits = (doc: vscode.TextDocument) => {
      if (this.panel && doc.uri.scheme === 'file' && this.current?.files.some((f) => samePath(f, doc.uri.fsPath))) {
        this.scheduleStaleCheck();
      }
    };
    this.subscriptions.push(
      vscode.workspace.onDidChangeTextDocument((e) => watchEdits(e.document)),
      vscode.workspace.onDidSaveTextDocument(watchEdits),
    );
  }

  /** Opens (or refreshes) the panel with the report at `htmlPath`; true when the file was read. */
  async open(htmlPath: string): Promise<boolean> {
    const title = `NNIE triage: ${basename(dirname(dirname(htmlPath)))}/${basename(htmlPath, '.html')}`;
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        REPORT_VIEW_TYPE,
        title,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
        { enableScripts: true, enableFindWidget: true, localResourceRoots: [this.scriptsFolder] },
      );
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.shown = undefined;
        this.current = undefined;
        this.watcher?.dispose();
        this.watcher = undefined;
      });
      // shown again: the dump folders may have changed meanwhile (the server's staleness covers them)
      this.panel.onDidChangeViewState((e) => e.webviewPanel.visible && this.scheduleStaleCheck());
      this.panel.webview.onDidReceiveMessage((message: unknown) => {
        if (isObject(message) && message.type === 'openLayer' && typeof message.row === 'number') {
          void this.openLayer(message.row);
        }
      });
    }
    this.panel.title = title;
    const ok = await this.render(htmlPath);
    this.shown = htmlPath;
    this.watch(htmlPath);
    this.panel.reveal(undefined, false);
    return ok;
  }

  private async render(htmlPath: string): Promise<boolean> {
    const panel = this.panel;
    if (!panel) {
      return false;
    }
    let html: string;
    try {
      html = new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(vscode.Uri.file(htmlPath)));
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      this.log(`Triage report ${htmlPath}: ${reason}`);
      panel.webview.html = missingReportPage(htmlPath, reason, panel.webview.cspSource);
      this.current = undefined;
      return false;
    }
    const record = readRecord(htmlPath);
    const fresh = await this.serverResult(record.target);
    const result = fresh ?? record.result;
    const stale = result ? staleBanner(result) : undefined;
    const model = result ? plotModel(result) : undefined;
    const interactive = !!model?.points.length;
    const script = vscode.Uri.joinPath(this.scriptsFolder, 'reportWebview.js');
    panel.webview.html = reportForWebview(html, panel.webview.cspSource, {
      stale,
      plot: model && interactive ? { nonce: makeNonce((n) => randomBytes(n)), scriptUri: panel.webview.asWebviewUri(script).toString(), model } : undefined,
    });
    this.current = { htmlPath, result, target: record.target, files: record.files, stale, interactive };
    return true;
  }

  /** `nnie.triageResult` for the result's cfg (the stored result with `editor.stale`), or undefined. */
  private async serverResult(target: { cfg?: string; prototxt?: string }): Promise<ReportResult | undefined> {
    if (!target.cfg && !target.prototxt) {
      return undefined;
    }
    try {
      const ask = Promise.resolve(vscode.commands.executeCommand<unknown>(SERVER_COMMANDS.result, target));
      const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), RESULT_TIMEOUT_MS));
      const value = await Promise.race([ask, timeout]);
      return isObject(value) && Array.isArray(value.layers) ? (value as ReportResult) : undefined;
    } catch {
      return undefined; // no server (yet): the record's result, staleness unknown
    }
  }

  /** A new run rewrites the record (last of the three files): the page follows. */
  private watch(htmlPath: string): void {
    this.watcher?.dispose();
    const json = htmlPath.replace(/\.html$/i, '.json');
    this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dirname(json)), basename(json)));
    const reload = () => {
      if (this.panel && this.shown === htmlPath) {
        void this.render(htmlPath);
      }
    };
    this.watcher.onDidChange(reload);
    this.watcher.onDidCreate(reload);
  }

  private scheduleStaleCheck(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => void this.checkStale(), STALE_DEBOUNCE_MS);
  }

  /** The server's staleness now; the banner changes only when its text does. */
  private async checkStale(): Promise<void> {
    const shown = this.current;
    if (!shown || !this.panel) {
      return;
    }
    const fresh = await this.serverResult(shown.target);
    if (!fresh || this.current !== shown) {
      return;
    }
    const stale = staleBanner(fresh);
    shown.result = fresh;
    if (stale === shown.stale) {
      return;
    }
    shown.stale = stale;
    if (shown.interactive && this.panel.visible) {
      // the page keeps its scroll position and plot; a hidden page is rebuilt (it reloads when shown)
      void this.panel.webview.postMessage({ type: 'stale', text: stale ?? '' });
    } else {
      await this.render(shown.htmlPath);
    }
  }

  /** A click on a point: the prototxt at the layer's name — where the server finds it in the current text, else where it was at the run. */
  private async openLayer(row: number): Promise<void> {
    const result = this.current?.result;
    const target = result ? layerTarget(result, row) : undefined;
    if (!target) {
      return;
    }
    if (!target.path) {
      void vscode.window.showWarningMessage(`NNIE: the triage result does not say which prototxt holds layer ${target.name}.`);
      return;
    }
    let doc: vscode.TextDocument;
    try {
      doc = await vscode.workspace.openTextDocument(vscode.Uri.file(target.path));
    } catch (e) {
      void vscode.window.showWarningMessage(`NNIE: cannot open ${target.path}: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    let range: vscode.Range | undefined;
    try {
      const symbols = await vscode.commands.executeCommand<Array<vscode.DocumentSymbol | vscode.SymbolInformation>>('vscode.executeDocumentSymbolProvider', doc.uri);
      const found = findSymbol(symbols ?? [], target.name);
      range = found && ('selectionRange' in found ? found.selectionRange : found.location.range);
    } catch {
      range = undefined;
    }
    if (!range && target.line !== undefined) {
      const line = Math.min(target.line - 1, Math.max(0, doc.lineCount - 1));
      const character = (target.column ?? 1) - 1;
      range = new vscode.Range(line, character, line, character);
    }
    if (!range) {
      void vscode.window.showWarningMessage(`NNIE: layer ${target.name} is not in ${basename(target.path)} (any more).`);
    }
    const column = this.panel?.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: column, selection: range, preserveFocus: false });
    if (range) {
      editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.watcher?.dispose();
    this.panel?.dispose();
    for (const s of this.subscriptions) {
      s.dispose();
    }
  }
}

function samePath(a: string, b: string): boolean {
  return process.platform === 'win32' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/** The symbol named `name` (depth first: layers are top-level symbols of a prototxt). */
function findSymbol(symbols: Array<vscode.DocumentSymbol | vscode.SymbolInformation>, name: string): vscode.DocumentSymbol | vscode.SymbolInformation | undefined {
  for (const s of symbols) {
    if (s.name === name) {
      return s;
    }
    const children = 'children' in s ? s.children : undefined;
    const inner = children?.length ? findSymbol(children, name) : undefined;
    if (inner) {
      return inner;
    }
  }
  return undefined;
}
