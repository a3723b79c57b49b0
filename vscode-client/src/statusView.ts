/** The server state in the status bar and the language status item (click: the NNIE output). */
import * as vscode from 'vscode';
import { NNIE_CFG_LANGUAGE, PROTOTXT_LANGUAGE } from './constants';

export const LANGUAGES = [PROTOTXT_LANGUAGE, NNIE_CFG_LANGUAGE];
export const DOCUMENT_SELECTOR = LANGUAGES.map((language) => ({ language }));

type ServerState = 'stopped' | 'starting' | 'running' | 'error';

export function isOurs(doc: vscode.TextDocument | undefined): boolean {
  return !!doc && LANGUAGES.includes(doc.languageId);
}

export class StatusView implements vscode.Disposable {
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
