/** The triage's HTML report in a webview (one panel, reused). */
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import { missingReportPage, reportForWebview } from './reportHtml';

export const REPORT_VIEW_TYPE = 'nnie.triageReport';

export class ReportView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  /** The report the panel shows (for tests and the log). */
  shown: string | undefined;

  constructor(private readonly log: (message: string) => void) {}

  /** Opens (or refreshes) the panel with the report at `htmlPath`; true when the file was read. */
  async open(htmlPath: string): Promise<boolean> {
    const uri = vscode.Uri.file(htmlPath);
    const title = `NNIE triage: ${basename(dirname(dirname(htmlPath)))}/${basename(htmlPath, '.html')}`;
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        REPORT_VIEW_TYPE,
        title,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
        { enableScripts: false, enableFindWidget: true, localResourceRoots: [] },
      );
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.shown = undefined;
      });
    }
    this.panel.title = title;
    let ok = true;
    try {
      const bytes = await vscode.workspace.fs.readFile(uri);
      this.panel.webview.html = reportForWebview(new TextDecoder('utf-8').decode(bytes), this.panel.webview.cspSource);
    } catch (e) {
      ok = false;
      const reason = e instanceof Error ? e.message : String(e);
      this.log(`Triage report ${htmlPath}: ${reason}`);
      this.panel.webview.html = missingReportPage(htmlPath, reason, this.panel.webview.cspSource);
    }
    this.shown = htmlPath;
    this.panel.reveal(undefined, false);
    return ok;
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
