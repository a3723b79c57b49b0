/**
 * The triage's input pickers: the quick pick of the three input folders (Enter runs) and the folder
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
  INPUT_KINDS,
  INPUT_LABEL,
  type InputKind,
  SERVER_COMMANDS,
  shortPath,
  type TriageInputs,
} from './triage';
import type { TriageRequests } from './triageRequests';

interface InputItem extends vscode.QuickPickItem {
  action: 'run' | 'choose' | 'clear';
  input?: InputKind;
}

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
      await chooseFolder(requests, client, pick.input, inputs, cfgFolder, root);
    }
  }
}

/** A folder dialog for one input; a folder without dumps is refused with the reason (and the dialog offered again). */
export async function chooseFolder(
  requests: TriageRequests,
  client: LanguageClient,
  kind: InputKind,
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
      openLabel: kind === 'reference' ? 'Use as reference' : kind === 'sim' ? 'Use as simulation' : 'Use as 16-bit run',
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
