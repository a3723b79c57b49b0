/**
 * The triage's input pickers: the quick pick of the input folders — the three dump folders and the
 * ONNX model's dumps (`framework`) — (Enter runs; the rows are picker.ts) and the folder
 * dialog for one of them, which refuses a folder without dumps with the reason.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  CHOOSE_FOLDER,
  type Discovery,
  dialogStartFolder,
  type FolderState,
  folderProblem,
  INPUT_LABEL,
  type PickedKind,
  SERVER_COMMANDS,
  type TriageInputs,
} from './model';
import { inputRows, runDetail } from './picker';
import type { TriageRequests } from './requests';

interface InputItem extends vscode.QuickPickItem {
  action: 'run' | 'choose' | 'clear';
  input?: PickedKind;
}

const OPEN_LABEL: Record<PickedKind, string> = {
  reference: 'Use as reference',
  sim: 'Use as simulation',
  sim16: 'Use as 16-bit run',
  framework: 'Use as ONNX model dumps',
  board: 'Use as board dumps',
};

/** The inputs picker: Enter runs; a row opens the folder dialog for that input. */
export async function pickInputs(
  requests: TriageRequests,
  client: LanguageClient,
  inputs: TriageInputs,
  cfg: string | undefined,
  cfgFolder: string | undefined,
  root: string | undefined,
  discovery: Discovery | undefined,
): Promise<TriageInputs | undefined> {
  const base = cfgFolder ?? root;
  for (;;) {
    const items: InputItem[] = [
      { action: 'run', label: '$(play) Run triage', description: cfg ? basename(cfg) : 'no cfg', detail: runDetail(inputs) },
      ...inputRows(inputs, base, discovery),
    ];
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
      await chooseFolder(requests, client, pick.input, inputs, cfgFolder, root);
    }
  }
}

/** A folder dialog for one input; a folder without dumps is refused with the reason (and the dialog offered again). */
export async function chooseFolder(
  requests: TriageRequests,
  client: LanguageClient,
  kind: PickedKind,
  inputs: TriageInputs,
  cfgFolder: string | undefined,
  root: string | undefined,
): Promise<boolean> {
  for (;;) {
    const start = dialogStartFolder(kind, inputs, cfgFolder, root);
    const picked = await vscode.window.showOpenDialog({
      canSelectFiles: false,
      canSelectFolders: true,
      canSelectMany: false,
      defaultUri: start ? vscode.Uri.file(start) : undefined,
      title: `NNIE triage: folder with the ${INPUT_LABEL[kind].replace(', optional', ' (optional)')}`,
      openLabel: OPEN_LABEL[kind],
    });
    if (!picked?.length) {
      return false;
    }
    const state = await requests.guard('NNIE: checking the folder', () => requests.send<FolderState>(client, SERVER_COMMANDS.checkFolder, { folder: picked[0].fsPath }));
    const problem = folderProblem(kind, state);
    if (!problem) {
      inputs[kind] = { path: picked[0].fsPath, origin: 'chosen' };
      return true;
    }
    const again = await vscode.window.showWarningMessage(problem, { modal: true }, CHOOSE_FOLDER);
    if (again !== CHOOSE_FOLDER) {
      return false;
    }
  }
}
