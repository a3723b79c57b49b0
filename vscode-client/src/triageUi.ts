/**
 * The triage in VS Code: palette commands with folder pickers, the result notification ("Open
 * Report", "Apply Fixes"), the text report in the "NNIE Triage" output channel, the report webview,
 * and the server's own lens commands (nnie_lsp/docs/editor-protocol.md).
 *
 * Palette commands use their own ids (`nnie.runTriage` …): the server's ids (`nnie.triage` …) are
 * registered by vscode-languageclient, and reach `executeCommand` below when a code lens runs them.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import { ExecuteCommandRequest, type LanguageClient, type Middleware, ResponseError } from 'vscode-languageclient/node';
import { DEFAULT_CFG_FILE_PATTERNS, NNIE_CFG_LANGUAGE, PROTOTXT_LANGUAGE } from './constants';
import type { ReportView } from './reportView';
import { config, type ServerManager, showActionableError } from './serverManager';
import { shouldClaimAsNnieCfg } from './sniff';
import {
  buildTriageArguments,
  defaultJobFolder,
  describeJobResult,
  type Discovery,
  dialogStartFolder,
  type FolderSettings,
  INPUT_KINDS,
  INPUT_LABEL,
  type InputKind,
  initialInputs,
  SERVER_COMMANDS,
  shortPath,
  summarizeTriageResult,
  type TriageInputs,
} from './triage';

/** LSP error codes (JSON-RPC): the request was cancelled. */
const REQUEST_CANCELLED = -32800;

type Target = { cfg?: string; prototxt?: string };

interface InputItem extends vscode.QuickPickItem {
  action: 'run' | 'choose' | 'clear';
  input?: InputKind;
}

export class TriageUi implements vscode.Disposable {
  readonly channel: vscode.OutputChannel;

  constructor(
    private readonly mgr: ServerManager,
    private readonly output: vscode.LogOutputChannel,
    private readonly reports: ReportView,
  ) {
    this.channel = vscode.window.createOutputChannel('NNIE Triage');
  }

  commands(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand('nnie.runTriage', () => this.runTriage()),
      vscode.commands.registerCommand('nnie.runReference', () => this.runJob('reference')),
      vscode.commands.registerCommand('nnie.runEmulate', () => this.runJob('emulate')),
      vscode.commands.registerCommand('nnie.triageApplyFixes', () => this.applyFixesForActive()),
      vscode.commands.registerCommand('nnie.showTriageReport', () => this.openReportForActive()),
      vscode.commands.registerCommand('nnie.clearTriage', () => this.clear()),
    ];
  }

  /** Server commands run from code lenses: the report opens in a webview; results are announced. */
  readonly executeCommand: NonNullable<Middleware['executeCommand']> = async (command, args, next) => {
    const arg = (args?.[0] ?? {}) as Record<string, unknown>;
    if (command === SERVER_COMMANDS.openReport && typeof arg.html === 'string') {
      return { shown: await this.reports.open(arg.html) };
    }
    if (command === SERVER_COMMANDS.triage) {
      this.mgr.claimProgress();
      const result = await this.guard('NNIE triage', () => Promise.resolve(next(command, args)));
      if (result !== undefined) {
        this.showResult(result);
      }
      return result;
    }
    if (command === SERVER_COMMANDS.applyFixes) {
      const result = await this.guard('NNIE: applying the triage fixes', () => Promise.resolve(next(command, args)));
      if (result !== undefined) {
        this.announceApplied(result);
      }
      return result;
    }
    return next(command, args);
  };

  // ---------------------------------------------------------------- plumbing

  private async send<T>(client: LanguageClient, command: string, args: object): Promise<T> {
    const advertised = client.initializeResult?.capabilities.executeCommandProvider?.commands;
    if (advertised && !advertised.includes(command)) {
      throw new Error(`this nnie-lsp server does not provide "${command}" (it offers: ${advertised.join(', ') || 'no commands'}); the extension's bundled server does`);
    }
    this.mgr.log(`${command} ${JSON.stringify(args)}`);
    this.mgr.claimProgress();
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] })) as T;
  }

  /** Runs a request; a cancelled one ends quietly, a failed one shows its message. Undefined on either. */
  private async guard<T>(what: string, job: () => Promise<T>): Promise<T | undefined> {
    try {
      return await job();
    } catch (e) {
      if (e instanceof ResponseError && e.code === REQUEST_CANCELLED) {
        this.mgr.log(`${what}: cancelled.`);
        void vscode.window.setStatusBarMessage(`${what}: cancelled`, 5000);
        return undefined;
      }
      const detail = e instanceof Error ? e.message : String(e);
      const message = `${what} failed: ${detail}`;
      this.mgr.logError(message);
      if (/\bcv2\b|opencv/i.test(detail) && this.mgr.opencvCommand()) {
        const command = this.mgr.opencvCommand()!;
        void showActionableError(this.output, `${message} — the Caffe reference needs OpenCV. Fix: run ${command}`, command);
      } else if (/\bnumpy\b|google\.protobuf/i.test(detail) && this.mgr.pipCommand()) {
        const command = this.mgr.pipCommand()!;
        void showActionableError(this.output, `${message} — Fix: run ${command}`, command);
      } else {
        void vscode.window.showErrorMessage(message, 'Show Output').then((c) => c && this.output.show(true));
      }
      return undefined;
    }
  }

  /** The cfg (and prototxt) a command works on: the active editor's, an open one, else one from the workspace. */
  private async chooseTarget(required: 'cfg' | 'any'): Promise<Target | undefined> {
    const active = vscode.window.activeTextEditor?.document;
    if (active?.uri.scheme === 'file' && (active.languageId === NNIE_CFG_LANGUAGE || this.looksLikeCfg(active.uri.fsPath, active.languageId))) {
      return { cfg: active.uri.fsPath };
    }
    if (active?.uri.scheme === 'file' && active.languageId === PROTOTXT_LANGUAGE && required === 'any') {
      return { prototxt: active.uri.fsPath };
    }
    const open = vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file' && d.languageId === NNIE_CFG_LANGUAGE);
    const cfgs = new Set(open.map((d) => d.uri.fsPath));
    if (cfgs.size !== 1) {
      for (const uri of await vscode.workspace.findFiles('**/*.cfg', '**/{node_modules,.git,.nnie-triage}/**', 500)) {
        if (this.looksLikeCfg(uri.fsPath, 'plaintext')) {
          cfgs.add(uri.fsPath);
        }
      }
    }
    const list = [...cfgs].sort();
    if (list.length === 1) {
      return { cfg: list[0] };
    }
    if (list.length === 0) {
      void vscode.window.showWarningMessage('NNIE: no nnie_mapper cfg found in the workspace: open the cfg of the net and run the command again.');
      return undefined;
    }
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const pick = await vscode.window.showQuickPick(
      list.map((path) => ({ label: basename(path), description: shortPath(dirname(path), root), path })),
      { title: 'NNIE: which nnie_mapper cfg?', placeHolder: 'The cfg of the net (its folder holds the dumps)' },
    );
    return pick ? { cfg: pick.path } : undefined;
  }

  /** A `.cfg` the extension claims (by name pattern or content) even before its language is switched. */
  private looksLikeCfg(path: string, languageId: string): boolean {
    if (!path.toLowerCase().endsWith('.cfg')) {
      return false;
    }
    const patterns = config().get<string[]>('cfgFilePatterns', [...DEFAULT_CFG_FILE_PATTERNS]);
    return !!shouldClaimAsNnieCfg({
      path,
      languageId,
      getText: () => readHead(path),
      patterns: Array.isArray(patterns) ? patterns : [...DEFAULT_CFG_FILE_PATTERNS],
    });
  }

  // ---------------------------------------------------------------- triage

  async runTriage(): Promise<void> {
    const target = await this.chooseTarget('any');
    if (!target) {
      return;
    }
    const client = await this.mgr.runningClient();
    if (!client) {
      return;
    }
    const discovery = await this.guard('NNIE: finding the triage inputs', () => this.send<Discovery>(client, SERVER_COMMANDS.discover, target));
    const cfg = target.cfg ?? discovery?.cfg ?? undefined;
    const prototxt = target.prototxt ?? discovery?.prototxt ?? undefined;
    const cfgFolder = cfg ? dirname(cfg) : discovery?.folder ?? (prototxt ? dirname(prototxt) : undefined);
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const settings = config();
    const folderSettings: FolderSettings = {
      reference: settings.get<string>('triage.referenceFolder'),
      sim: settings.get<string>('triage.simFolder'),
      sim16: settings.get<string>('triage.sim16Folder'),
    };
    const inputs = initialInputs(discovery, folderSettings, cfgFolder, root, (p) => existsSync(p));
    for (const note of discovery?.notes ?? []) {
      this.mgr.log(`discovery: ${note}`);
    }
    const chosen = await this.pickInputs(inputs, cfg, cfgFolder, root, discovery);
    if (!chosen) {
      return;
    }
    const args = buildTriageArguments(chosen, cfg, prototxt);
    const result = await this.guard('NNIE triage', () => this.send<unknown>(client, SERVER_COMMANDS.triage, args));
    if (result !== undefined) {
      this.showResult(result);
    }
  }

  /** The inputs picker: Enter runs; a row opens the folder dialog for that input. */
  private async pickInputs(
    inputs: TriageInputs,
    cfg: string | undefined,
    cfgFolder: string | undefined,
    root: string | undefined,
    discovery: Discovery | undefined,
  ): Promise<TriageInputs | undefined> {
    // The two required folders first, when nothing gave them.
    for (const kind of ['reference', 'sim'] as const) {
      if (!inputs[kind] && !(await this.chooseFolder(kind, inputs, cfgFolder, root))) {
        return undefined;
      }
    }
    const base = cfgFolder ?? root;
    const lookedFor16 = (discovery?.looked_for ?? [])
      .filter((l) => l.startsWith('sim16'))
      .map((l) => l.replace(/^sim16:\s*/, ''))
      .join('; ');
    for (;;) {
      const items: InputItem[] = [
        {
          action: 'run',
          label: '$(play) Run triage',
          description: cfg ? basename(cfg) : 'no cfg',
          detail: `Compares the reference and simulation dumps${inputs.sim16 ? ' and the 16-bit run' : ''}`,
        },
      ];
      for (const kind of INPUT_KINDS) {
        const choice = inputs[kind];
        const why =
          choice?.origin === 'discovered'
            ? `found: ${choice.why ?? 'beside the cfg'}`
            : choice?.origin === 'setting'
              ? `from the setting ${choice.why}`
              : choice
                ? 'chosen'
                : kind === 'sim16'
                  ? `none${lookedFor16 ? ` (looked for ${lookedFor16})` : ''}: pick to choose one`
                  : 'not set: pick to choose';
        items.push({ action: 'choose', input: kind, label: `$(folder) ${INPUT_LABEL[kind]}`, description: choice ? shortPath(choice.path, base) : '—', detail: why });
      }
      if (inputs.sim16) {
        items.push({ action: 'clear', input: 'sim16', label: '$(close) Run without the 16-bit run' });
      }
      const pick = await vscode.window.showQuickPick(items, {
        title: `NNIE triage${cfg ? ` — ${basename(cfg)}` : ''}`,
        placeHolder: 'Enter runs the triage; pick a folder row to change it',
        ignoreFocusOut: true,
        matchOnDescription: true,
      });
      if (!pick) {
        return undefined;
      }
      if (pick.action === 'run') {
        return inputs;
      }
      if (pick.action === 'clear' && pick.input) {
        delete inputs[pick.input];
      } else if (pick.input) {
        await this.chooseFolder(pick.input, inputs, cfgFolder, root);
      }
    }
  }

  private async chooseFolder(kind: InputKind, inputs: TriageInputs, cfgFolder: string | undefined, root: string | undefined): Promise<boolean> {
    const start = dialogStartFolder(kind, inputs, cfgFolder, root);
    const picked = await vscode.window.showOpenDialog({
      canSelectFiles: false,
      canSelectFolders: true,
      canSelectMany: false,
      defaultUri: start ? vscode.Uri.file(start) : undefined,
      title: `NNIE triage: folder with the ${INPUT_LABEL[kind].replace(', optional', ' (optional)')}`,
      openLabel: kind === 'reference' ? 'Use as reference' : kind === 'sim' ? 'Use as simulation' : 'Use as 16-bit run',
    });
    if (!picked?.length) {
      return false;
    }
    inputs[kind] = { path: picked[0].fsPath, origin: 'chosen' };
    return true;
  }

  /** The notification (verdict and first divergence, "Open Report", "Apply Fixes"), the text report in the output channel. */
  showResult(raw: unknown): void {
    const summary = summarizeTriageResult(raw);
    this.channel.clear();
    this.channel.appendLine(summary.textReport);
    this.mgr.log(`Triage result: ${summary.message}${summary.reportHtml ? ` (report: ${summary.reportHtml})` : ''}`);
    const buttons: string[] = [];
    if (summary.reportHtml) {
      buttons.push('Open Report');
    }
    const applyLabel = `Apply Fixes (${summary.applicableFixes})`;
    if (summary.applicableFixes > 0) {
      buttons.push(applyLabel);
    }
    buttons.push('Show Output');
    const show =
      summary.level === 'error' ? vscode.window.showErrorMessage : summary.level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(summary.message, ...buttons).then(async (choice) => {
      if (choice === 'Open Report' && summary.reportHtml) {
        await this.reports.open(summary.reportHtml);
      } else if (choice === applyLabel) {
        await this.applyFixes({ cfg: summary.cfg, prototxt: summary.prototxt });
      } else if (choice === 'Show Output') {
        this.channel.show(true);
      }
    });
  }

  private announceApplied(raw: unknown): void {
    const result = (raw ?? {}) as { applied?: boolean; fixes?: number; skipped?: unknown[] };
    const skipped = Array.isArray(result.skipped) ? result.skipped.map((s) => (typeof s === 'string' ? s : JSON.stringify(s))) : [];
    const why = skipped.length ? ` (left out: ${skipped.join('; ')})` : '';
    const message = result.applied
      ? `NNIE: applied ${result.fixes ?? 0} triage fix(es)${why} — review the changes, save, and run the mapper again.`
      : `NNIE: no triage fix applied${why}.`;
    this.mgr.log(message);
    void (result.applied ? vscode.window.showInformationMessage(message) : vscode.window.showWarningMessage(message));
  }

  async applyFixes(target: Target): Promise<void> {
    const client = await this.mgr.runningClient();
    if (!client) {
      return;
    }
    const result = await this.guard('NNIE: applying the triage fixes', () => this.send<unknown>(client, SERVER_COMMANDS.applyFixes, target));
    if (result !== undefined) {
      this.announceApplied(result);
    }
  }

  private async applyFixesForActive(): Promise<void> {
    const target = await this.chooseTarget('any');
    if (target) {
      await this.applyFixes(target);
    }
  }

  /** "NNIE: Open Triage Report": the stored result's HTML report for the active cfg/prototxt. */
  private async openReportForActive(): Promise<void> {
    const target = await this.chooseTarget('any');
    const client = target && (await this.mgr.runningClient());
    if (!target || !client) {
      return;
    }
    const stored = await this.guard('NNIE: reading the stored triage result', () => this.send<unknown>(client, SERVER_COMMANDS.result, target));
    const summary = stored ? summarizeTriageResult(stored) : undefined;
    if (!summary?.reportHtml) {
      void vscode.window.showInformationMessage('NNIE: no triage result is stored for this file: run NNIE: Run Accuracy Triage… first.');
      return;
    }
    await this.reports.open(summary.reportHtml);
  }

  private async clear(): Promise<void> {
    const active = vscode.window.activeTextEditor?.document;
    const own = active?.uri.scheme === 'file' && (active.languageId === NNIE_CFG_LANGUAGE || active.languageId === PROTOTXT_LANGUAGE);
    let target: Target = {};
    if (own && active) {
      const key = active.languageId === NNIE_CFG_LANGUAGE ? 'cfg' : 'prototxt';
      const pick = await vscode.window.showQuickPick(
        [
          { label: `Clear the results of ${basename(active.uri.fsPath)}`, target: { [key]: active.uri.fsPath } as Target },
          { label: 'Clear every stored triage result', target: {} as Target },
        ],
        { title: 'NNIE: clear triage results' },
      );
      if (!pick) {
        return;
      }
      target = pick.target;
    }
    const client = await this.mgr.runningClient();
    if (!client) {
      return;
    }
    const result = await this.guard('NNIE: clearing the triage results', () => this.send<{ cleared?: string[] }>(client, SERVER_COMMANDS.clear, target));
    if (result !== undefined) {
      const n = Array.isArray(result?.cleared) ? result.cleared.length : 0;
      this.channel.clear();
      void vscode.window.showInformationMessage(`NNIE: cleared ${n} stored triage result(s).`);
    }
  }

  // ---------------------------------------------------------------- reference / emulate

  async runJob(kind: 'reference' | 'emulate'): Promise<void> {
    const target = await this.chooseTarget('cfg');
    const cfg = target?.cfg;
    if (!cfg) {
      return;
    }
    let bits: 8 | 16 = 8;
    if (kind === 'emulate') {
      const pick = await vscode.window.showQuickPick(
        [
          { label: '8-bit', description: 'like [compile_mode] 0', bits: 8 as const },
          { label: '16-bit', description: 'like [compile_mode] 1: the run that confirms or rejects quantization', bits: 16 as const },
        ],
        { title: 'NNIE: emulate which NNIE run?' },
      );
      if (!pick) {
        return;
      }
      bits = pick.bits;
    }
    const args: Record<string, unknown> = { cfg };
    if (kind === 'emulate') {
      args.bits = bits;
    }
    const out = defaultJobFolder(kind, cfg, bits);
    const existing = countFiles(out);
    if (existing > 0) {
      const choice = await vscode.window.showWarningMessage(
        `NNIE: ${basename(out)}/ beside the cfg already holds ${existing} file(s).`,
        { modal: true, detail: 'Overwrite them, or write the dumps to another folder?' },
        'Overwrite',
        'Choose Another Folder…',
      );
      if (choice === 'Overwrite') {
        args.overwrite = true;
      } else if (choice === 'Choose Another Folder…') {
        const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, defaultUri: vscode.Uri.file(dirname(cfg)), openLabel: 'Write here' });
        if (!picked?.length) {
          return;
        }
        args.out = picked[0].fsPath;
        args.overwrite = countFiles(picked[0].fsPath) > 0;
      } else {
        return;
      }
    }
    const client = await this.mgr.runningClient();
    if (!client) {
      return;
    }
    const title = kind === 'reference' ? 'NNIE: computing the Caffe reference dumps' : `NNIE: emulating the ${bits}-bit NNIE dumps`;
    const result = await this.guard(title, () => this.send<unknown>(client, kind === 'reference' ? SERVER_COMMANDS.reference : SERVER_COMMANDS.emulate, args));
    if (result === undefined) {
      return;
    }
    const message = describeJobResult(kind, result);
    this.mgr.log(message);
    const choice = await vscode.window.showInformationMessage(message, 'Run Triage');
    if (choice === 'Run Triage') {
      await vscode.window.showTextDocument(vscode.Uri.file(cfg), { preview: true });
      await this.runTriage();
    }
  }

  dispose(): void {
    this.channel.dispose();
  }
}

function readHead(path: string): string {
  try {
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(16384);
      const n = readSync(fd, buffer, 0, buffer.length, 0);
      return buffer.subarray(0, n).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

function countFiles(folder: string): number {
  try {
    return statSync(folder).isDirectory() ? readdirSync(folder).length : 0;
  } catch {
    return 0;
  }
}
