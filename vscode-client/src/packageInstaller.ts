/**
 * The one-click install (the `vscode` side of packageInstall.ts): asks, runs pip from the bundled
 * wheel into the extension's folder with a cancellable progress notification, restarts the server.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import * as vscode from 'vscode';
import { type InstallPlace, installArgs, installButton, installCommandLine, installedMessage, installPrompt, pipFailure } from './packageInstall';

export class PackageInstaller {
  private installing = false;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly restart: () => Promise<void>,
  ) {}

  /**
   * The message for a missing package: with an install button when `place` is known and every
   * requirement too, else `fallback` (the remedy without the extension's help). `next`: what the
   * message after the install tells the user to do (default: run the command again). Its "Copy
   * Command" copies the install the button runs (the bundled pip wheel: it works without pip in the
   * interpreter), not the fallback's remedy, which installs elsewhere and may need pip.
   */
  offer(
    problem: string,
    what: string,
    requirements: Array<string | undefined>,
    place: InstallPlace | undefined,
    level: 'error' | 'warning',
    fallback: () => Promise<void>,
    next?: string,
  ): Promise<void> {
    if (!place || !requirements.length || requirements.some((r) => !r)) {
      return fallback();
    }
    const wanted = requirements as string[];
    return this.ask(installPrompt(problem, what, wanted, place), what, wanted, place, installCommandLine(place, wanted), level, next);
  }

  /** One message: the question with an install button, Copy Command (the server's remedy) and Show Output. */
  async ask(prompt: string, what: string, requirements: string[], place: InstallPlace, copy: string | undefined, level: 'error' | 'warning', next?: string): Promise<void> {
    const install = installButton(what);
    const buttons = [install, ...(copy ? ['Copy Command'] : []), 'Show Output'];
    const show = level === 'error' ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
    const choice = await show(prompt, ...buttons);
    if (choice === install) {
      await this.installPackages(what, requirements, place, next);
    } else if (choice === 'Copy Command' && copy) {
      await vscode.env.clipboard.writeText(copy);
      void vscode.window.setStatusBarMessage('NNIE: command copied to the clipboard', 4000);
    } else if (choice === 'Show Output') {
      this.output.show(true);
    }
  }

  /** Installs `requirements` into the extension's folder for the server's Python, then restarts the server. */
  async installPackages(what: string, requirements: string[], place: InstallPlace, next?: string): Promise<boolean> {
    if (this.installing) {
      void vscode.window.showInformationMessage('NNIE: an install is already running.');
      return false;
    }
    this.installing = true;
    try {
      mkdirSync(place.folder, { recursive: true });
      this.output.info(`Installing ${requirements.join(' ')} into ${place.folder}: ${installCommandLine(place, requirements)}`);
      const outcome = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `NNIE: installing ${what} into the extension's folder`, cancellable: true },
        (progress, token) => this.runPip(place, requirements, (line) => progress.report({ message: line.slice(0, 120) }), token),
      );
      if (outcome.kind === 'cancelled') {
        this.output.info(`Install of ${what} cancelled.`);
        void vscode.window.setStatusBarMessage(`NNIE: install of ${what} cancelled`, 5000);
        return false;
      }
      if (outcome.kind === 'failed') {
        const why = pipFailure(outcome.output);
        this.output.error(`Installing ${what} failed (${outcome.code}): ${why}`);
        const choice = await vscode.window.showErrorMessage(`NNIE: installing ${what} into ${place.folder} failed: ${why}`, 'Show Output');
        if (choice) {
          this.output.show(true);
        }
        return false;
      }
      this.output.info(`Installed ${what} into ${place.folder}; restarting the language server.`);
      await this.restart();
      void vscode.window.showInformationMessage(installedMessage(what, place.folder, next));
      return true;
    } finally {
      this.installing = false;
    }
  }

  private runPip(
    place: InstallPlace,
    requirements: string[],
    onLine: (line: string) => void,
    token: vscode.CancellationToken,
  ): Promise<{ kind: 'done' } | { kind: 'cancelled' } | { kind: 'failed'; code: string; output: string }> {
    return new Promise((resolve) => {
      const [command, ...pre] = place.python;
      // PYTHONPATH off: pip must not see the bundle's libraries (it installs for this Python alone)
      const env: NodeJS.ProcessEnv = { ...process.env, PYTHONIOENCODING: 'utf-8', PIP_DISABLE_PIP_VERSION_CHECK: '1' };
      delete env.PYTHONPATH;
      const child = spawn(command, [...pre, ...installArgs(place.pipWheel, place.folder, requirements)], { env, windowsHide: true });
      let output = '';
      const feed = (chunk: Buffer): void => {
        const text = chunk.toString('utf8');
        output = (output + text).slice(-20000);
        for (const line of text.split(/\r?\n/).filter((l) => l.trim())) {
          this.output.trace(`pip: ${line}`);
          onLine(line.trim());
        }
      };
      child.stdout.on('data', feed);
      child.stderr.on('data', feed);
      const cancel = token.onCancellationRequested(() => child.kill());
      child.on('error', (e) => {
        cancel.dispose();
        resolve({ kind: 'failed', code: 'not started', output: String(e.message) });
      });
      child.on('close', (code, signal) => {
        cancel.dispose();
        if (token.isCancellationRequested) {
          resolve({ kind: 'cancelled' });
        } else if (code === 0) {
          resolve({ kind: 'done' });
        } else {
          resolve({ kind: 'failed', code: signal ?? `exit ${code}`, output });
        }
      });
    });
  }

}
