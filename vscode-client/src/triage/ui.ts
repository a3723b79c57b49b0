/**
 * The triage in VS Code: palette commands with folder pickers, the result notification ("Open
 * Report", "Apply Fixes"), the text report in the "NNIE Triage" output channel, the report webview,
 * and the server's own lens commands (nnie_lsp/docs/editor-protocol.md).
 *
 * Palette commands use their own ids (`nnie.runTriage` …): the server's ids (`nnie.triage` …) are
 * registered by vscode-languageclient, and reach `executeCommand` below when a code lens runs them.
 * The requests themselves are in requests.ts, the choice of the cfg in target.ts, the
 * input pickers in inputs.ts.
 */
import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import type { Middleware } from 'vscode-languageclient/node';
import { NNIE_CFG_LANGUAGE, PROTOTXT_LANGUAGE } from '../constants';
import type { ReportView } from './report/view';
import { config, type ServerManager } from '../serverManager';
import {
  buildTriageArguments,
  CHOOSE_FOLDER,
  CHOOSE_OTHER,
  defaultJobFolder,
  describeJobResult,
  type Discovery,
  type EditorRecord,
  type FolderSettings,
  type FolderState,
  initialInputs,
  missingInputsPrompt,
  missingPrototxtPrompt,
  NEXT_STEP,
  OVERWRITE,
  outputPrompt,
  SERVER_COMMANDS,
  SHOW_IN_CFG,
  summarizeTriageResult,
  type ToolInputs,
  toolInputsMessage,
  type TriageArguments,
} from './model';
import { askForCard, askTransposed } from '../cardDialog';
import { chooseFolder, pickInputs } from './inputs';
import { TriageRequests } from './requests';
import { chooseTarget, type Target } from './target';

export class TriageUi implements vscode.Disposable {
  readonly channel: vscode.OutputChannel;
  private readonly requests: TriageRequests;

  constructor(
    private readonly mgr: ServerManager,
    output: vscode.LogOutputChannel,
    private readonly reports: ReportView,
  ) {
    this.channel = vscode.window.createOutputChannel('NNIE Triage');
    this.requests = new TriageRequests(mgr, output);
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
    // The server's own commands run from a code lens: sent directly (vscode-languageclient's
    // default path would log the failure once more and turn a Cancel into an error).
    if (command === SERVER_COMMANDS.triage || command === SERVER_COMMANDS.applyFixes) {
      const client = await this.mgr.runningClient();
      if (!client) {
        return undefined;
      }
      if (command === SERVER_COMMANDS.triage) {
        if (arg.regenerate === true && !(await this.saveInputs(arg))) {
          return undefined;
        }
        const result = await this.requests.guard('NNIE triage', () => this.requests.send<unknown>(client, command, arg));
        if (result !== undefined) {
          this.showResult(result);
        }
        return result;
      }
      const result = await this.requests.guard('NNIE: applying the triage fixes', () => this.requests.send<unknown>(client, command, arg));
      if (result !== undefined) {
        this.announceApplied(result, arg as Target);
      }
      return result;
    }
    return next(command, args);
  };

  // ---------------------------------------------------------------- triage

  async runTriage(given?: Target): Promise<void> {
    const target = given ?? (await chooseTarget(this.requests, 'any'));
    if (!target) {
      return;
    }
    const client = await this.mgr.runningClient();
    if (!client) {
      return;
    }
    const discovery = await this.requests.guard('NNIE: finding the triage inputs', () => this.requests.send<Discovery>(client, SERVER_COMMANDS.discover, target));
    if (!discovery) {
      return;
    }
    const cfg = target.cfg ?? discovery.cfg ?? undefined;
    const prototxt = target.prototxt ?? discovery.prototxt ?? undefined;
    const cfgFolder = cfg ? dirname(cfg) : discovery.folder ?? (prototxt ? dirname(prototxt) : undefined);
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    for (const note of discovery.notes ?? []) {
      this.mgr.log(`discovery: ${note}`);
    }
    // The cfg names a prototxt that does not exist: say so before anything runs.
    const noNet = missingPrototxtPrompt(discovery);
    if (noNet) {
      const choice = await vscode.window.showWarningMessage(noNet.message, { modal: true, detail: noNet.detail }, 'Open the cfg', 'Run Anyway');
      if (choice === 'Open the cfg' && cfg) {
        await this.openAt(cfg, '[prototxt_file]');
        return;
      }
      if (choice !== 'Run Anyway') {
        return;
      }
    }
    const settings = config();
    const folderSettings: FolderSettings = {
      reference: settings.get<string>('triage.referenceFolder'),
      sim: settings.get<string>('triage.simFolder'),
      sim16: settings.get<string>('triage.sim16Folder'),
    };
    const inputs = initialInputs(discovery, folderSettings, cfgFolder, root, (p) => existsSync(p));
    // Inputs not found: what was looked for and where, and the next step that makes them.
    const missing = (['reference', 'sim'] as const).filter((k) => !inputs[k]);
    if (missing.length) {
      const prompt = missingInputsPrompt(missing, discovery, cfg);
      const buttons = cfg ? prompt.buttons : [CHOOSE_FOLDER];
      const choice = await vscode.window.showWarningMessage(prompt.message, { modal: true, detail: prompt.detail }, ...buttons);
      if (!choice) {
        return;
      }
      if (choice !== CHOOSE_FOLDER) {
        const kind = missing.find((k) => NEXT_STEP[k].button === choice)!;
        await this.runJob(NEXT_STEP[kind].command, { cfg, prototxt, then: 'triage' });
        return;
      }
      for (const kind of missing) {
        if (!(await chooseFolder(this.requests, client, kind, inputs, cfgFolder, root))) {
          return;
        }
      }
    }
    const chosen = await pickInputs(this.requests, client, inputs, cfg, cfgFolder, root, discovery);
    if (!chosen) {
      return;
    }
    const args = buildTriageArguments(chosen, cfg, prototxt);
    const result = await this.requests.guard('NNIE triage', () => this.requests.send<unknown>(client, SERVER_COMMANDS.triage, args));
    if (result !== undefined) {
      this.showResult(result);
    }
  }

  /** Opens `path` with the cursor on the first line holding `needle`. */
  private async openAt(path: string, needle: string): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
    const line = Math.max(0, doc.getText().split(/\r?\n/).findIndex((l) => l.includes(needle)));
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0) });
  }

  /**
   * Before a regenerate: the cfg (and prototxt) saved — the emulation is made from the files on
   * disk, and an unsaved fix would be lost. False when the user's file could not be saved.
   */
  private async saveInputs(arg: { cfg?: unknown; prototxt?: unknown }): Promise<boolean> {
    const paths = [arg.cfg, arg.prototxt].filter((p): p is string => typeof p === 'string' && p !== '');
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.isDirty && doc.uri.scheme === 'file' && paths.includes(doc.uri.fsPath)) {
        if (!(await doc.save())) {
          void vscode.window.showWarningMessage(`NNIE: ${basename(doc.uri.fsPath)} could not be saved; the emulation is made from the files on disk — save it, then regenerate.`);
          return false;
        }
      }
    }
    return true;
  }

  /** "Regenerate and triage again": the emulation made again with the current cfg, then compared (progress and Cancel as every triage). */
  async regenerate(args: TriageArguments, prototxt?: string): Promise<void> {
    const client = await this.mgr.runningClient();
    if (!client || !(await this.saveInputs({ cfg: args.cfg, prototxt: args.prototxt ?? prototxt }))) {
      return;
    }
    const result = await this.requests.guard('NNIE triage', () => this.requests.send<unknown>(client, SERVER_COMMANDS.triage, { ...args, regenerate: true }));
    if (result !== undefined) {
      this.showResult(result);
    }
  }

  /** The notification (verdict and first divergence, "Open Report", "Apply Fixes" — or, when the dumps predate the cfg, only "Regenerate and triage again"), the text report in the output channel. */
  showResult(raw: unknown): void {
    const summary = summarizeTriageResult(raw);
    this.channel.clear();
    this.channel.appendLine(summary.textReport);
    this.mgr.log(`Triage result: ${summary.message}${summary.reportHtml ? ` (report: ${summary.reportHtml})` : ''}`);
    const buttons: string[] = [];
    if (summary.regenerate) {
      buttons.push(summary.regenerate.label);
    }
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
      if (summary.regenerate && choice === summary.regenerate.label) {
        await this.regenerate(summary.regenerate.args, summary.prototxt);
      } else if (choice === 'Open Report' && summary.reportHtml) {
        await this.reports.open(summary.reportHtml);
      } else if (choice === applyLabel) {
        await this.applyFixes({ cfg: summary.cfg, prototxt: summary.prototxt });
      } else if (choice === 'Show Output') {
        this.channel.show(true);
      }
    });
  }

  private announceApplied(raw: unknown, target?: Target): void {
    const result = (raw ?? {}) as { applied?: boolean; fixes?: number; skipped?: unknown[] };
    const skipped = Array.isArray(result.skipped) ? result.skipped.map((s) => (typeof s === 'string' ? s : JSON.stringify(s))) : [];
    const why = skipped.length ? ` (left out: ${skipped.join('; ')})` : '';
    if (!result.applied) {
      const message = `NNIE: no triage fix applied${why}.`;
      this.mgr.log(message);
      void vscode.window.showWarningMessage(message);
      return;
    }
    void this.afterApplied(`NNIE: applied ${result.fixes ?? 0} triage fix(es)${why}`, target);
  }

  /**
   * After "Apply Fixes": the NNIE dumps now predate the cfg. The stored result says what makes
   * them again — for an emulation nnie-triage wrote, the one button "Regenerate and triage again";
   * for the mapper's dumps, the words "re-run nnie_mapper with the current cfg, then triage again".
   */
  private async afterApplied(applied: string, target: Target | undefined): Promise<void> {
    const client = target && (target.cfg || target.prototxt) ? await this.mgr.runningClient() : undefined;
    let stored: unknown;
    if (client && target) {
      try {
        stored = await this.requests.send<unknown>(client, SERVER_COMMANDS.result, target);
      } catch {
        stored = undefined;   // the fixes were applied: only the next step stays unknown
      }
    }
    const remake = (stored as { editor?: EditorRecord } | undefined)?.editor?.remake;
    const summary = stored ? summarizeTriageResult(stored) : undefined;
    if (summary?.regenerate) {
      const message = `${applied} — review the changes, then ${summary.regenerate.label.toLowerCase()} (the emulation is made again with the cfg as it is now).`;
      this.mgr.log(message);
      const choice = await vscode.window.showInformationMessage(message, summary.regenerate.label);
      if (choice === summary.regenerate.label) {
        await this.regenerate(summary.regenerate.args, summary.prototxt);
      }
      return;
    }
    const next = remake?.action === 'mapper' && remake.title ? remake.title : 're-run nnie_mapper with the current cfg, then triage again';
    const message = `${applied} — review the changes, save, and ${next}.`;
    this.mgr.log(message);
    void vscode.window.showInformationMessage(message);
  }

  async applyFixes(target: Target): Promise<void> {
    const client = await this.mgr.runningClient();
    if (!client) {
      return;
    }
    const result = await this.requests.guard('NNIE: applying the triage fixes', () => this.requests.send<unknown>(client, SERVER_COMMANDS.applyFixes, target));
    if (result !== undefined) {
      this.announceApplied(result, target);
    }
  }

  private async applyFixesForActive(): Promise<void> {
    const target = await chooseTarget(this.requests, 'any');
    if (target) {
      await this.applyFixes(target);
    }
  }

  /** "NNIE: Open Triage Report": the stored result's HTML report for the active cfg/prototxt. */
  private async openReportForActive(): Promise<void> {
    const target = await chooseTarget(this.requests, 'any');
    const client = target && (await this.mgr.runningClient());
    if (!target || !client) {
      return;
    }
    const stored = await this.requests.guard('NNIE: reading the stored triage result', () => this.requests.send<unknown>(client, SERVER_COMMANDS.result, target));
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
    const result = await this.requests.guard('NNIE: clearing the triage results', () => this.requests.send<{ cleared?: string[] }>(client, SERVER_COMMANDS.clear, target));
    if (result !== undefined) {
      const n = Array.isArray(result?.cleared) ? result.cleared.length : 0;
      this.channel.clear();
      void vscode.window.showInformationMessage(`NNIE: cleared ${n} stored triage result(s).`);
    }
  }

  // ---------------------------------------------------------------- reference / emulate

  /**
   * `nnie.reference` / `nnie.emulate` for a cfg. Before it runs, the output folder is checked by the
   * server: "Overwrite" is offered only for files an earlier run of nnie-triage wrote (other dumps
   * are never overwritten: only another folder is offered). With `then: 'triage'` (the next step
   * of a triage whose inputs were missing) the triage runs again afterwards.
   */
  async runJob(kind: 'reference' | 'emulate', given?: Target & { then?: 'triage' }): Promise<void> {
    const target = given?.cfg ? given : await chooseTarget(this.requests, 'cfg');
    const cfg = target?.cfg;
    if (!cfg) {
      return;
    }
    // what the cfg lacks comes first, at its line, before any question (bits, output folder)
    const early = await this.mgr.runningClient();
    if (!early) {
      return;
    }
    const checked = await this.requests.guard('NNIE: checking the cfg', () => this.requests.send<ToolInputs>(early, SERVER_COMMANDS.checkToolInputs, { kind, cfg }));
    if (checked === undefined) {
      return;
    }
    const lacking = toolInputsMessage(checked);
    if (lacking) {
      const first = checked.problems[0];
      const choice = await vscode.window.showErrorMessage(lacking, SHOW_IN_CFG);
      if (choice === SHOW_IN_CFG) {
        const range = new vscode.Range(first.line, first.character, first.end_line, first.end_character);
        await vscode.window.showTextDocument(vscode.Uri.file(first.path), { selection: range });
      }
      return;
    }
    let bits: 8 | 16 = 8;
    if (kind === 'emulate' && !given?.then) {
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
    const client = await this.mgr.runningClient();
    if (!client) {
      return;
    }
    // the Caffe side takes how the net was trained from the model card: without one, ask once
    if (kind === 'reference' && !(await askForCard(this.requests, client, cfg))) {
      return;
    }
    const args: Record<string, unknown> = { cfg };
    if (kind === 'emulate') {
      args.bits = bits;
      const transpose = await askTransposed(this.requests, client, cfg);
      if (transpose === undefined) {
        return;
      }
      if (transpose) {
        args.transpose = true;
      }
    }
    let out = defaultJobFolder(kind, cfg, bits);
    for (;;) {
      const state = await this.requests.guard('NNIE: checking the output folder', () => this.requests.send<FolderState>(client, SERVER_COMMANDS.checkFolder, { folder: out }));
      if (!state) {
        return;
      }
      const prompt = outputPrompt(state);
      if (!prompt) {
        break;
      }
      const useThem = kind === 'reference' && state.foreign_dumps > 0 && out === defaultJobFolder(kind, cfg) ? ['Run Triage With Them'] : [];
      const choice = await vscode.window.showWarningMessage(prompt.message, { modal: true, detail: prompt.detail }, ...useThem, ...prompt.buttons);
      if (choice === OVERWRITE) {
        args.overwrite = true;
        break;
      }
      if (choice === 'Run Triage With Them') {
        await this.runTriage({ cfg, prototxt: target?.prototxt });
        return;
      }
      if (choice !== CHOOSE_OTHER) {
        return;
      }
      const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, defaultUri: vscode.Uri.file(dirname(cfg)), openLabel: 'Write here' });
      if (!picked?.length) {
        return;
      }
      out = picked[0].fsPath;
      args.out = out;
    }
    const title = kind === 'reference' ? 'NNIE: computing the Caffe reference dumps' : `NNIE: emulating the ${bits}-bit NNIE dumps`;
    const result = await this.requests.guard(title, () => this.requests.send<unknown>(client, kind === 'reference' ? SERVER_COMMANDS.reference : SERVER_COMMANDS.emulate, args));
    if (result === undefined) {
      return;
    }
    const message = describeJobResult(kind, result);
    this.mgr.log(message);
    if (given?.then === 'triage') {
      void vscode.window.setStatusBarMessage(message, 8000);
      await this.runTriage({ cfg, prototxt: target?.prototxt });
      return;
    }
    const choice = await vscode.window.showInformationMessage(message, 'Run Triage');
    if (choice === 'Run Triage') {
      await this.runTriage({ cfg });
    }
  }

  dispose(): void {
    this.channel.dispose();
  }
}
