/**
 * The compiled model (`.wk`) in VS Code: a read-only custom editor that shows what the file holds —
 * the table the server renders (`nnie.describeWk`, docs/editor-protocol.md), never a binary dump —
 * and `nnie.openWk`, which the cfg's code lens ("built: 8-bit [I], 1 segment, 9 outputs, needs …")
 * runs. The VSIX alone is enough: the server's `.wk` reader needs no numpy.
 */
import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import { type WkView, wkMessagePage, wkPage, wkPathOf } from './wkPage';
import type { ServerManager } from './serverManager';

export const WK_VIEW_TYPE = 'nnie.wkViewer';
export const DESCRIBE_WK = 'nnie.describeWk';
/** The client command the cfg's code lens runs (registered below by its literal id). */
export const OPEN_WK = 'nnie.openWk';

class WkDocument implements vscode.CustomDocument {
  constructor(readonly uri: vscode.Uri) {}
  dispose(): void {}
}

export class WkEditorProvider implements vscode.CustomReadonlyEditorProvider<WkDocument> {
  constructor(private readonly mgr: ServerManager) {}

  openCustomDocument(uri: vscode.Uri): WkDocument {
    return new WkDocument(uri);
  }

  async resolveCustomEditor(document: WkDocument, panel: vscode.WebviewPanel): Promise<void> {
    panel.webview.options = { enableScripts: false };
    const render = async (): Promise<void> => {
      panel.webview.html = await this.page(document.uri, panel.webview.cspSource);
    };
    // a rebuild by nnie_mapper rewrites the file: show the new one
    const folder = vscode.Uri.joinPath(document.uri, '..');
    const name = document.uri.path.split('/').pop() ?? '';
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, name));
    const again = (): void => void render();
    watcher.onDidChange(again);
    watcher.onDidCreate(again);
    panel.onDidDispose(() => watcher.dispose());
    await render();
  }

  private async page(uri: vscode.Uri, cspSource: string): Promise<string> {
    const name = uri.path.split('/').pop() ?? uri.toString();
    if (uri.scheme !== 'file') {
      return wkMessagePage(name, 'only .wk files on disk can be shown', cspSource);
    }
    const client = await this.mgr.runningClient();
    if (!client) {
      return wkMessagePage(name, 'the NNIE language server is not running (see the NNIE output)', cspSource);
    }
    try {
      const view = (await client.sendRequest(ExecuteCommandRequest.type, { command: DESCRIBE_WK, arguments: [{ path: uri.fsPath }] })) as WkView;
      this.mgr.log(`${DESCRIBE_WK} ${uri.fsPath}: ${view.summary ?? view.error ?? ''}`);
      return wkPage(view.html, cspSource);
    } catch (e) {
      return wkMessagePage(name, `could not be described: ${e instanceof Error ? e.message : String(e)}`, cspSource);
    }
  }
}

async function openWk(arg: unknown): Promise<void> {
  let path = wkPathOf(arg);
  if (!path) {
    const picked = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { 'NNIE compiled model': ['wk'] } });
    path = picked?.[0]?.fsPath;
  }
  if (path) {
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(path), WK_VIEW_TYPE);
  }
}

export function registerWkView(mgr: ServerManager): vscode.Disposable[] {
  return [
    vscode.window.registerCustomEditorProvider(WK_VIEW_TYPE, new WkEditorProvider(mgr), {
      supportsMultipleEditorsPerDocument: true,
      webviewOptions: { retainContextWhenHidden: false },
    }),
    vscode.commands.registerCommand('nnie.openWk', openWk),
  ];
}
