/**
 * The cfg (and prototxt) a triage command works on: the active cfg, the cfg that names the active
 * prototxt, or one of the workspace's cfgs — several are offered in a quick pick, never one chosen
 * silently.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { DEFAULT_CFG_FILE_PATTERNS, NNIE_CFG_LANGUAGE, PROTOTXT_LANGUAGE } from '../constants';
import { config } from '../serverManager';
import { shouldClaimAsNnieCfg } from '../sniff';
import { cfgChoices, type Discovery, SERVER_COMMANDS } from './model';
import type { TriageRequests } from './requests';

export type Target = { cfg?: string; prototxt?: string };

/**
 * The active cfg; for an active prototxt the cfg that names it (several: the user picks; none: the
 * prototxt alone, when `required` allows); else the workspace's cfgs — one is taken, several are
 * offered in a quick pick (never one chosen silently).
 */
export async function chooseTarget(requests: TriageRequests, required: 'cfg' | 'any'): Promise<Target | undefined> {
  const active = vscode.window.activeTextEditor?.document;
  if (active?.uri.scheme === 'file' && (active.languageId === NNIE_CFG_LANGUAGE || looksLikeCfg(active.uri.fsPath, active.languageId))) {
    return { cfg: active.uri.fsPath };
  }
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const open = vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file' && d.languageId === NNIE_CFG_LANGUAGE).map((d) => d.uri.fsPath);
  if (active?.uri.scheme === 'file' && active.languageId === PROTOTXT_LANGUAGE) {
    const prototxt = active.uri.fsPath;
    const client = await requests.mgr.runningClient();
    if (!client) {
      return undefined;
    }
    const found = await requests.guard('NNIE: finding the cfg of the prototxt', () => requests.send<Discovery>(client, SERVER_COMMANDS.discover, { prototxt }));
    if (!found) {
      return undefined;
    }
    const cfgs = found.cfgs ?? [];
    if (cfgs.length === 1 || (!cfgs.length && found.cfg)) {
      return { cfg: cfgs[0] ?? found.cfg ?? undefined, prototxt };
    }
    if (cfgs.length > 1) {
      const pick = await vscode.window.showQuickPick(cfgChoices(cfgs, open, root), {
        title: `NNIE: ${cfgs.length} cfgs name ${basename(prototxt)} — which one?`,
        placeHolder: 'The cfg of the run to use (its folder holds the dumps)',
      });
      return pick ? { cfg: pick.path, prototxt } : undefined;
    }
    if (required === 'any') {
      return { prototxt };
    }
  }
  const cfgs = new Set(open);
  for (const uri of await vscode.workspace.findFiles('**/*.cfg', '**/{node_modules,.git,.nnie-triage,.venv}/**', 500)) {
    if (looksLikeCfg(uri.fsPath, 'plaintext')) {
      cfgs.add(uri.fsPath);
    }
  }
  const list = [...cfgs];
  if (list.length === 1) {
    return { cfg: list[0] };
  }
  if (list.length === 0) {
    void vscode.window.showWarningMessage('NNIE: no nnie_mapper cfg found in the workspace: open the cfg of the net and run the command again.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(cfgChoices(list, open, root), {
    title: `NNIE: ${list.length} nnie_mapper cfgs in the workspace — which one?`,
    placeHolder: 'The cfg of the net (its folder holds the dumps)',
  });
  return pick ? { cfg: pick.path } : undefined;
}

/** A `.cfg` the extension claims (by name pattern or content) even before its language is switched. */
function looksLikeCfg(path: string, languageId: string): boolean {
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
