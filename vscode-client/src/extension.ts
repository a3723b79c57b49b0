import * as vscode from 'vscode';
import {
  CloseAction,
  type ErrorHandler,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { DEFAULT_CFG_FILE_PATTERNS, NNIE_CFG_LANGUAGE, PROTOTXT_LANGUAGE } from './constants';
import { onPythonInterpreterChanged, pythonExtensionInterpreter } from './python';
import { checkServerImportable, describeCommand, importFailureMessage, resolveServerCommand, type ServerCommand } from './serverCommand';
import { filterConfigurationResult, initializationOptions } from './settings';
import { shouldClaimAsNnieCfg } from './sniff';
import { TraceChannel } from './traceChannel';
import { buildTriageArguments, summarizeTriageResult, TRIAGE_COMMAND } from './triage';

const LANGUAGES = [PROTOTXT_LANGUAGE, NNIE_CFG_LANGUAGE];
const DOCUMENT_SELECTOR = LANGUAGES.map((language) => ({ language }));
const FIX_ALL_KIND = vscode.CodeActionKind.SourceFixAll.append('nnie');

type ServerState = 'stopped' | 'starting' | 'running' | 'error';

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('nnie');
}

function isOurs(doc: vscode.TextDocument | undefined): boolean {
  return !!doc && LANGUAGES.includes(doc.languageId);
}

class StatusView implements vscode.Disposable {
  private readonly bar: vscode.StatusBarItem;
  private readonly lang: vscode.LanguageStatusItem;
  private state: ServerState = 'stopped';

  constructor() {
    this.bar = vscode.window.createStatusBarItem('nnie.status', vscode.StatusBarAlignment.Right, 100);
    this.bar.name = 'NNIE Language Server';
    this.bar.command = 'nnie.showOutput';
    this.lang = vscode.languages.createLanguageStatusItem('nnie.server', DOCUMENT_SELECTOR);
    this.lang.name = 'NNIE Language Server';
    this.lang.command = { title: 'Show Output', command: 'nnie.showOutput' };
    this.set('stopped');
  }

  set(state: ServerState, detail?: string): void {
    this.state = state;
    const label: Record<ServerState, [string, string]> = {
      stopped: ['$(circle-slash) NNIE', 'stopped'],
      starting: ['$(sync~spin) NNIE', 'starting…'],
      running: ['$(check) NNIE', 'running'],
      error: ['$(error) NNIE', 'error'],
    };
    const [text, word] = label[state];
    const tooltip = `NNIE language server: ${word}${detail ? `\n${detail}` : ''}\nClick to show the NNIE output.`;
    this.bar.text = text;
    this.bar.tooltip = tooltip;
    this.bar.backgroundColor = state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.lang.text = text;
    this.lang.detail = detail ? `${word} — ${detail}` : word;
    this.lang.busy = state === 'starting';
    this.lang.severity = state === 'error' ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
    this.refreshVisibility();
  }

  refreshVisibility(): void {
    if (this.state === 'error' || isOurs(vscode.window.activeTextEditor?.document)) {
      this.bar.show();
    } else {
      this.bar.hide();
    }
  }

  dispose(): void {
    this.bar.dispose();
    this.lang.dispose();
  }
}

class ServerManager implements vscode.Disposable {
  client: LanguageClient | undefined;
  private command: ServerCommand | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private wanted = false;
  private readonly disposables: vscode.Disposable[] = [];

  private readonly trace: TraceChannel;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly status: StatusView,
  ) {
    this.trace = new TraceChannel(output);
    this.disposables.push(this.trace);
  }

  log(message: string): void {
    this.output.info(message);
  }

  logError(message: string): void {
    this.output.error(message);
  }

  get state(): State | undefined {
    return this.client?.state;
  }

  get isWanted(): boolean {
    return this.wanted;
  }

  get source(): ServerCommand['source'] | undefined {
    return this.command?.source;
  }

  /** Serialises start/stop/restart. */
  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const next = this.queue.then(job, job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Starts the server once (no-op when already running or starting). */
  ensureStarted(): Promise<void> {
    if (this.wanted) {
      return this.queue.then(() => undefined);
    }
    this.wanted = true;
    return this.enqueue(() => this.doStart());
  }

  restart(): Promise<void> {
    this.wanted = true;
    return this.enqueue(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  stop(): Promise<void> {
    this.wanted = false;
    return this.enqueue(() => this.doStop());
  }

  private async resolveCommand(): Promise<ServerCommand> {
    const cfg = config();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const serverCommand = cfg.get<unknown>('server.command');
    const interpreter = cfg.get<unknown>('interpreter');
    const explicit =
      (Array.isArray(serverCommand) && serverCommand.length > 0) || (typeof interpreter === 'string' && interpreter.trim() !== '');
    if (!explicit) {
      const inspect = cfg.inspect('server.command');
      this.log(`nnie.server.command / nnie.interpreter not set (${JSON.stringify(inspect)}); trying the Python extension, then python3.`);
    }
    const extInterpreter = explicit ? undefined : await pythonExtensionInterpreter(folder, (m) => this.log(m));
    return resolveServerCommand({
      serverCommand,
      interpreter,
      pythonExtensionInterpreter: extInterpreter,
      workspaceFolder: folder?.scheme === 'file' ? folder.fsPath : undefined,
      home: process.env.HOME ?? process.env.USERPROFILE,
      env: process.env,
    });
  }

  private async doStart(): Promise<void> {
    if (this.client) {
      return;
    }
    this.status.set('starting');
    const cmd = await this.resolveCommand();
    this.command = cmd;
    const cwd = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
    this.log(`Server command (from ${cmd.source}): ${describeCommand(cmd)}`);

    if (cmd.python) {
      const check = await checkServerImportable(cmd.python, { cwd });
      if (!check.ok) {
        const message = importFailureMessage(check, cmd);
        this.logError(message);
        this.status.set('error', message);
        void vscode.window.showErrorMessage(message, 'Open Settings', 'Show Output').then((choice) => {
          if (choice === 'Open Settings') {
            void vscode.commands.executeCommand('workbench.action.openSettings', 'nnie.interpreter');
          } else if (choice === 'Show Output') {
            this.output.show(true);
          }
        });
        return;
      }
      this.log(`nnie_lsp is importable${check.version ? ` (version ${check.version})` : ''}.`);
    }

    const serverOptions: ServerOptions = {
      command: cmd.command,
      args: cmd.args,
      transport: TransportKind.stdio,
      options: { cwd, env: { ...process.env, PYTHONIOENCODING: 'utf-8' } },
    };
    // A server that dies before it ever ran (bad command, broken install) is not restarted five
    // times with five error toasts: stop at once and point at the output. Later crashes use the
    // default policy (restart up to 4 times in 3 minutes).
    let everRan = false;
    let fallback: ErrorHandler | undefined;
    const errorHandler: ErrorHandler = {
      error: (error, message, count) => fallback!.error(error, message, count),
      closed: () => {
        if (!everRan) {
          return {
            action: CloseAction.DoNotRestart,
            message: `NNIE: the language server exited during startup (${describeCommand(cmd)}). See the NNIE output for its error.`,
            handled: true,
          };
        }
        return fallback!.closed();
      },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      diagnosticCollectionName: 'nnie',
      outputChannel: this.output,
      traceOutputChannel: this.trace,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // The server part of the `nnie` settings; the locale goes in InitializeParams.locale.
      initializationOptions: () => initializationOptions((key, fallback) => config().get(key, fallback)),
      synchronize: { configurationSection: 'nnie' },
      middleware: {
        workspace: {
          // Never hand the server the client-only keys (server command, interpreter, cfg patterns):
          // it rejects settings objects with keys it does not know.
          configuration: async (params, token, next) => filterConfigurationResult(params.items, await next(params, token)) as never,
        },
      },
      errorHandler,
      initializationFailedHandler: (error) => {
        this.logError(`Initialization failed: ${String(error)}`);
        return false;
      },
    };
    const client = new LanguageClient('nnie', 'NNIE Language Server', serverOptions, clientOptions);
    fallback = client.createDefaultErrorHandler(4);
    this.client = client;
    this.disposables.push(
      client.onDidChangeState((e) => {
        if (this.client !== client) {
          return;
        }
        if (e.newState === State.Running) {
          everRan = true;
          const info = client.initializeResult?.serverInfo;
          this.status.set('running', info ? `${info.name}${info.version ? ` ${info.version}` : ''}` : describeCommand(cmd));
        } else if (e.newState === State.Starting) {
          this.status.set('starting');
        } else if (this.wanted) {
          this.status.set('error', 'the server stopped; see the NNIE output');
        } else {
          this.status.set('stopped');
        }
      }),
    );
    try {
      await client.start();
      const info = client.initializeResult?.serverInfo;
      this.log(`Server running${info ? `: ${info.name} ${info.version ?? ''}` : ''}.`);
    } catch (e) {
      const message = `NNIE: the language server failed to start (${describeCommand(cmd)}): ${e instanceof Error ? e.message : String(e)}`;
      this.logError(message);
      this.status.set('error', message);
      void vscode.window.showErrorMessage(message, 'Show Output', 'Open Settings').then((choice) => {
        if (choice === 'Show Output') {
          this.output.show(true);
        } else if (choice === 'Open Settings') {
          void vscode.commands.executeCommand('workbench.action.openSettings', 'nnie.server');
        }
      });
    }
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) {
      this.status.set('stopped');
      return;
    }
    try {
      if (client.isRunning()) {
        await client.stop(3000);
      }
    } catch (e) {
      this.log(`Stopping the server: ${String(e)}`);
    }
    try {
      await client.dispose(1000);
    } catch {
      // already disposed
    }
    this.status.set('stopped');
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

let manager: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('NNIE', { log: true });
  const status = new StatusView();
  manager = new ServerManager(output, status);
  const mgr = manager;
  context.subscriptions.push(output, status, mgr);
  mgr.log(`NNIE extension ${context.extension.packageJSON.version ?? ''} activated (VS Code ${vscode.version}, ${vscode.env.appName}).`);

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
      if (e.affectsConfiguration('nnie.server.command') || e.affectsConfiguration('nnie.interpreter')) {
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
    vscode.commands.registerCommand('nnie.runTriage', () => runTriage(mgr, output)),
  );
}

async function requireRunning(mgr: ServerManager): Promise<LanguageClient | undefined> {
  await mgr.ensureStarted();
  const client = mgr.client;
  if (!client || client.state !== State.Running) {
    const choice = await vscode.window.showErrorMessage('NNIE: the language server is not running.', 'Show Output', 'Restart Server');
    if (choice === 'Show Output') {
      void vscode.commands.executeCommand('nnie.showOutput');
    } else if (choice === 'Restart Server') {
      void vscode.commands.executeCommand('nnie.restartServer');
    }
    return undefined;
  }
  return client;
}

async function fixAll(mgr: ServerManager): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !isOurs(editor.document)) {
    void vscode.window.showInformationMessage('NNIE: open a prototxt or NNIE cfg file to fix.');
    return;
  }
  if (!(await requireRunning(mgr))) {
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

function pickDocument(language: string): string | undefined {
  const active = vscode.window.activeTextEditor?.document;
  if (active?.languageId === language && active.uri.scheme === 'file') {
    return active.uri.fsPath;
  }
  const visible = vscode.window.visibleTextEditors.map((e) => e.document);
  const doc = [...visible, ...vscode.workspace.textDocuments].find((d) => d.languageId === language && d.uri.scheme === 'file');
  return doc?.uri.fsPath;
}

async function runTriage(mgr: ServerManager, output: vscode.LogOutputChannel): Promise<void> {
  const defaultUri = vscode.workspace.workspaceFolders?.[0]?.uri;
  const reference = await vscode.window.showOpenDialog({
    canSelectFiles: false,
    canSelectFolders: true,
    canSelectMany: false,
    defaultUri,
    title: 'NNIE triage (1/2): folder with the reference (Caffe / float) layer dumps',
    openLabel: 'Use as reference',
  });
  if (!reference?.length) {
    return;
  }
  const sim = await vscode.window.showOpenDialog({
    canSelectFiles: false,
    canSelectFolders: true,
    canSelectMany: false,
    defaultUri: reference[0],
    title: 'NNIE triage (2/2): folder with the NNIE simulation (nnie_mapper / simulator) dumps',
    openLabel: 'Use as simulation',
  });
  if (!sim?.length) {
    return;
  }
  const client = await requireRunning(mgr);
  if (!client) {
    return;
  }
  const advertised = client.initializeResult?.capabilities.executeCommandProvider?.commands;
  if (advertised && !advertised.includes(TRIAGE_COMMAND)) {
    void vscode.window.showErrorMessage(
      `NNIE: this nnie-lsp server does not provide "${TRIAGE_COMMAND}" (it offers: ${advertised.join(', ') || 'no commands'}). Upgrade nnie-lsp.`,
    );
    return;
  }
  const args = buildTriageArguments(reference[0].fsPath, sim[0].fsPath, pickDocument(NNIE_CFG_LANGUAGE), pickDocument(PROTOTXT_LANGUAGE));
  mgr.log(`Triage: ${JSON.stringify(args)}`);
  let result: unknown;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'NNIE: comparing reference and simulation dumps…', cancellable: true },
      (_progress, token) => client.sendRequest(ExecuteCommandRequest.type, { command: TRIAGE_COMMAND, arguments: [args] }, token),
    );
  } catch (e) {
    const message = `NNIE triage failed: ${e instanceof Error ? e.message : String(e)}`;
    mgr.logError(message);
    void vscode.window.showErrorMessage(message, 'Show Output').then((c) => c && output.show(true));
    return;
  }
  const summary = summarizeTriageResult(result);
  if (summary.details) {
    mgr.log(`Triage result:\n${summary.details}`);
  }
  const buttons = summary.reportPath ? ['Open Report', 'Show Output'] : ['Show Output'];
  const show =
    summary.level === 'error'
      ? vscode.window.showErrorMessage
      : summary.level === 'warning'
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  const choice = await show(summary.message, ...buttons);
  if (choice === 'Open Report' && summary.reportPath) {
    const uri = /^[a-z][a-z0-9+.-]*:/i.test(summary.reportPath) && !/^[a-z]:[\\/]/i.test(summary.reportPath)
      ? vscode.Uri.parse(summary.reportPath)
      : vscode.Uri.file(summary.reportPath);
    await vscode.commands.executeCommand('vscode.open', uri);
  } else if (choice === 'Show Output') {
    output.show(true);
  }
}

export async function deactivate(): Promise<void> {
  if (manager) {
    await manager.stop();
    manager = undefined;
  }
}
