/**
 * How the triage UI talks to the server: `send` (an `executeCommand` request, refused up front when
 * the server does not offer the command) and `guard` (a cancelled request ends quietly, a failed one
 * shows its message once — a missing optional package as the offer to install it).
 */
import * as vscode from 'vscode';
import { ExecuteCommandRequest, type LanguageClient, ResponseError } from 'vscode-languageclient/node';
import { type ServerManager, showActionableError } from '../serverManager';
import { missingPackageOf } from './model';

/** LSP error codes (JSON-RPC): the request was cancelled. */
const REQUEST_CANCELLED = -32800;

export class TriageRequests {
  constructor(
    readonly mgr: ServerManager,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  async send<T>(client: LanguageClient, command: string, args: object): Promise<T> {
    const advertised = client.initializeResult?.capabilities.executeCommandProvider?.commands;
    if (advertised && !advertised.includes(command)) {
      throw new Error(`this nnie-lsp server does not provide "${command}" (it offers: ${advertised.join(', ') || 'no commands'}); the extension's bundled server does`);
    }
    this.mgr.log(`${command} ${JSON.stringify(args)}`);
    this.mgr.claimProgress();
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] })) as T;
  }

  /**
   * Runs a request; a cancelled one ends quietly, a failed one shows its message — one notification
   * per event. The server already wrote the outcome of its own requests to the log (one line), so
   * only a failure on this side is logged here. Undefined on either.
   */
  async guard<T>(what: string, job: () => Promise<T>): Promise<T | undefined> {
    try {
      return await job();
    } catch (e) {
      if ((e instanceof ResponseError && e.code === REQUEST_CANCELLED) || e instanceof vscode.CancellationError) {
        void vscode.window.setStatusBarMessage(`${what}: cancelled`, 5000);
        return undefined;
      }
      const detail = e instanceof Error ? e.message : String(e);
      if (!(e instanceof ResponseError)) {
        this.mgr.logError(`${what} failed: ${detail}`);
      }
      const missing = e instanceof ResponseError ? missingPackageOf(e.data) : undefined;
      if (missing) {
        // e.g. "NNIE reference (Caffe forward) needs OpenCV (…), which <python> cannot import. Install …"
        // one message: an "Install <package>" button (into the extension's folder) where it can work, else the server's remedy
        void this.mgr.offerMissingPackage(missing, detail);
      } else if (/\bnumpy\b|google\.protobuf/i.test(detail) && /No module named/.test(detail) && this.mgr.pipCommand()) {
        const command = this.mgr.pipCommand()!;
        void showActionableError(this.output, `${what} failed: ${detail} — Fix: run ${command}`, command);
      } else {
        void vscode.window.showErrorMessage(`${what} failed: ${detail}`, 'Show Output').then((c) => c && this.output.show(true));
      }
      return undefined;
    }
  }
}
