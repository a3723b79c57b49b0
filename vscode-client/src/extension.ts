/** Activation: wires the server manager, the cfg claiming, the settings and the commands. */
import { join } from 'node:path';
import * as vscode from 'vscode';
import { State } from 'vscode-languageclient/node';
import { readBundle } from './bundle';
import { DEFAULT_CFG_FILE_PATTERNS, NNIE_CFG_LANGUAGE } from './constants';
import { onPythonInterpreterChanged } from './python';
import { ReportView } from './triage/report/view';
import { config, isOurs, ServerManager, StatusView } from './serverManager';
import { shouldClaimAsNnieCfg } from './sniff';
import { TriageUi } from './triage/ui';
import { registerWkView } from './wkView';

const FIX_ALL_KIND = vscode.CodeActionKind.SourceFixAll.append('nnie');

let manager: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('NNIE', { log: true });
  const status = new StatusView();
  const reports = new ReportView((m) => output.info(m));
  // The triage UI needs the manager and the manager's middleware needs the triage UI.
  let triage: TriageUi | undefined;
  manager = new ServerManager(output, status, readBundle(context.extensionPath), {
    executeCommand: (command, args, next) => (triage ? triage.executeCommand(command, args, next) : next(command, args)),
    // Python packages the extension installs when one is missing (packageInstall.ts); globalStorage
    // is per machine (a remote window: the remote's), like the interpreter that uses them.
    packagesRoot: join(context.globalStorageUri.fsPath, 'python-packages'),
  });
  const mgr = manager;
  triage = new TriageUi(mgr, output, reports);
  context.subscriptions.push(output, status, reports, mgr, triage);
  mgr.log(`NNIE extension ${context.extension.packageJSON.version ?? ''} activated (VS Code ${vscode.version}, ${vscode.env.appName}, ${process.platform}-${process.arch}).`);

  // --- claiming .cfg files as nnie-cfg -------------------------------------
  const claimed = new Set<string>();
  const claim = async (doc: vscode.TextDocument): Promise<void> => {
    const key = doc.uri.toString();
    if (claimed.has(key)) {
      return;
    }
    const patterns = config().get<string[]>('cfgFilePatterns', [...DEFAULT_CFG_FILE_PATTERNS]);
    const reason = shouldClaimAsNnieCfg({
      path: doc.uri.scheme === 'file' ? doc.uri.fsPath : doc.uri.path,
      languageId: doc.languageId,
      getText: () => doc.getText(new vscode.Range(0, 0, Math.min(doc.lineCount, 2000), 0)),
      patterns: Array.isArray(patterns) ? patterns : [...DEFAULT_CFG_FILE_PATTERNS],
    });
    if (!reason) {
      return;
    }
    claimed.add(key);
    try {
      await vscode.languages.setTextDocumentLanguage(doc, NNIE_CFG_LANGUAGE);
      mgr.log(`Treating ${doc.uri.fsPath || doc.uri.toString()} as an NNIE mapper cfg (matched by ${reason}).`);
    } catch (e) {
      mgr.log(`Could not set the language of ${doc.uri.toString()}: ${String(e)}`);
    }
  };

  const onOpen = (doc: vscode.TextDocument): void => {
    if (isOurs(doc)) {
      void mgr.ensureStarted();
    } else {
      void claim(doc);
    }
  };
  context.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument(onOpen),
    vscode.window.onDidChangeActiveTextEditor(() => status.refreshVisibility()),
  );
  for (const doc of vscode.workspace.textDocuments) {
    onOpen(doc);
  }

  // --- settings ------------------------------------------------------------
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('nnie.server') || e.affectsConfiguration('nnie.interpreter')) {
        if (mgr.isWanted) {
          mgr.log('Server command settings changed: restarting.');
          void mgr.restart();
        }
      }
      if (e.affectsConfiguration('nnie.cfgFilePatterns')) {
        for (const doc of vscode.workspace.textDocuments) {
          void claim(doc);
        }
      }
    }),
  );
  void onPythonInterpreterChanged(() => {
    if (mgr.isWanted && (mgr.source === 'python-extension' || mgr.source === 'default')) {
      mgr.log('Python interpreter changed in the Python extension: restarting.');
      void mgr.restart();
    }
  }).then((d) => d && context.subscriptions.push(d));

  // --- commands ------------------------------------------------------------
  context.subscriptions.push(
    vscode.commands.registerCommand('nnie.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('nnie.restartServer', async () => {
      mgr.log('Restart requested.');
      await mgr.restart();
      if (mgr.state === State.Running) {
        void vscode.window.setStatusBarMessage('NNIE language server restarted', 3000);
      }
    }),
    vscode.commands.registerCommand('nnie.fixAll', () => fixAll(mgr)),
    ...triage.commands(),
    ...registerWkView(mgr),
  );
}

async function fixAll(mgr: ServerManager): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !isOurs(editor.document)) {
    void vscode.window.showInformationMessage('NNIE: open a prototxt or NNIE cfg file to fix.');
    return;
  }
  if (!(await mgr.runningClient())) {
    return;
  }
  const doc = editor.document;
  const full = new vscode.Range(0, 0, doc.lineCount, 0);
  const actions =
    (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
      'vscode.executeCodeActionProvider',
      doc.uri,
      full,
      FIX_ALL_KIND.value,
      1,
    )) ?? [];
  const fixes = actions.filter(
    (a): a is vscode.CodeAction => 'kind' in a && !!a.kind && FIX_ALL_KIND.contains(a.kind),
  );
  if (fixes.length === 0) {
    void vscode.window.setStatusBarMessage('NNIE: nothing to fix automatically', 4000);
    return;
  }
  const fix = fixes[0];
  let changed = false;
  if (fix.edit) {
    changed = await vscode.workspace.applyEdit(fix.edit);
  }
  if (fix.command) {
    await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []));
    changed = true;
  }
  void vscode.window.setStatusBarMessage(changed ? `NNIE: ${fix.title}` : 'NNIE: nothing to fix automatically', 4000);
}

export async function deactivate(): Promise<void> {
  if (manager) {
    await manager.stop();
    manager = undefined;
  }
}
