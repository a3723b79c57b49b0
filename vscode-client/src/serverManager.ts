/**
 * Starts, stops and restarts the language server; shows its state in the status bar.
 *
 * The server is the one bundled in the extension (bundle.ts), run by the user's Python 3.10+
 * (serverCommand.ts decides which, and probes it first). `nnie.server.command` replaces all of
 * that with a command of the user's own.
 */
import * as vscode from 'vscode';
import {
  CloseAction,
  type ErrorHandler,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
  type StaticFeature,
  TransportKind,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
} from 'vscode-languageclient/node';
import { type BundleInfo, describeBundle } from './bundle';
import { type InstallPlace, installCommandLine, type MissingPackageData, problemOf } from './packageInstall';
import { PackageInstaller } from './packageInstaller';
import { ProgressTracker, type ProgressValue } from './progress';
import { pythonExtensionInterpreter } from './python';
import {
  commandIn,
  describeCommand,
  explicitServerCommand,
  type ImportStrategy,
  interpreterCandidates,
  judgeProbe,
  launchFailureMessage,
  noPythonMessage,
  pipInstallCommand,
  probeInterpreter,
  type ServerCommand,
  serverCommandFor,
  triageUnavailableMessage,
  type Verdict,
} from './serverCommand';
import { filterConfigurationResult, initializationOptions } from './settings';
import { describeSetting, type Inspected } from './settingsScope';
import { DOCUMENT_SELECTOR, type StatusView } from './statusView';
import { TraceChannel } from './traceChannel';

export { DOCUMENT_SELECTOR, isOurs, LANGUAGES, StatusView } from './statusView';

export function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('nnie');
}


/** A message with a "Copy Command" button when it names a command to run. */
export async function showActionableError(
  output: vscode.LogOutputChannel,
  message: string,
  command?: string,
  level: 'error' | 'warning' | 'info' = 'error',
): Promise<void> {
  const buttons = [...(command ? ['Copy Command'] : []), 'Open Settings', 'Show Output'];
  const show = level === 'error' ? vscode.window.showErrorMessage : level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const choice = await show(message, ...buttons);
  if (choice === 'Copy Command' && command) {
    await vscode.env.clipboard.writeText(command);
    void vscode.window.setStatusBarMessage('NNIE: command copied to the clipboard', 4000);
  } else if (choice === 'Open Settings') {
    void vscode.commands.executeCommand('workbench.action.openSettings', 'nnie.interpreter');
  } else if (choice === 'Show Output') {
    output.show(true);
  }
}

export interface ManagerOptions {
  /** Hook for the server's own commands (code lenses): see triage/ui.ts. */
  executeCommand?: Middleware['executeCommand'];
  /** Where the extension installs missing Python packages (`<globalStorage>/python-packages`; packageInstall.ts). */
  packagesRoot?: string;
}

export class ServerManager implements vscode.Disposable {
  client: LanguageClient | undefined;
  private command: ServerCommand | undefined;
  /** The interpreter running the server and what its probe said (for the triage messages). */
  python: { argv: string[]; version?: string; verdict?: Verdict; packagesDir?: string; pipWheel?: string } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private wanted = false;
  private readonly disposables: vscode.Disposable[] = [];
  private warnedTriage = false;
  private progressRegistration: vscode.Disposable | undefined;

  private readonly trace: TraceChannel;
  /** Installs a missing Python package into the extension's folder, then restarts the server. */
  readonly installer: PackageInstaller;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly status: StatusView,
    readonly bundle: BundleInfo,
    private readonly options: ManagerOptions = {},
  ) {
    this.trace = new TraceChannel(output);
    this.disposables.push(this.trace);
    this.installer = new PackageInstaller(output, () => this.restart());
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

  /** The command that installs the bundled wheel into the server's interpreter. */
  pipCommand(): string | undefined {
    return this.python ? pipInstallCommand(this.python.argv, this.bundle.wheel) : undefined;
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

  /** The running client, or undefined after telling the user why there is none. */
  async runningClient(): Promise<LanguageClient | undefined> {
    await this.ensureStarted();
    const client = this.client;
    if (!client || client.state !== State.Running) {
      const choice = await vscode.window.showErrorMessage('NNIE: the language server is not running.', 'Show Output', 'Restart Server');
      if (choice === 'Show Output') {
        this.output.show(true);
      } else if (choice === 'Restart Server') {
        void vscode.commands.executeCommand('nnie.restartServer');
      }
      return undefined;
    }
    return client;
  }

  private logSettings(): void {
    const cfg = config();
    for (const key of ['server.command', 'interpreter', 'server.importStrategy']) {
      this.log(describeSetting(`nnie.${key}`, cfg.get<unknown>(key), cfg.inspect<unknown>(key) as Inspected<unknown> | undefined));
    }
  }

  /** Decides the command; undefined (after telling the user) when no interpreter can run the server. */
  private async resolveCommand(cwd: string | undefined): Promise<ServerCommand | undefined> {
    const cfg = config();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const strategy: ImportStrategy = cfg.get<string>('server.importStrategy') === 'fromEnvironment' ? 'fromEnvironment' : 'useBundled';
    const input = {
      serverCommand: cfg.get<unknown>('server.command'),
      interpreter: cfg.get<unknown>('interpreter'),
      workspaceFolder: folder?.scheme === 'file' ? folder.fsPath : undefined,
      home: process.env.HOME ?? process.env.USERPROFILE,
      env: process.env,
    };
    this.logSettings();
    this.log(describeBundle(this.bundle));
    const launcher = this.bundle.launcher;
    const explicit = explicitServerCommand(input);
    if (explicit) {
      if (explicit.python && launcher) {
        // `<python> … -m nnie_lsp`: check that environment's own nnie-lsp (the bundle is not used).
        const verdict = judgeProbe(await probeInterpreter(explicit.python, launcher, { strategy: 'fromEnvironment', cwd }));
        if (verdict.kind !== 'ready') {
          this.fail(launchFailureMessage(verdict, explicit.python, this.bundle.wheel));
          return undefined;
        }
        this.python = { argv: explicit.python, verdict };
      }
      return explicit;
    }
    const needExtension = !(typeof input.interpreter === 'string' && input.interpreter.trim());
    const fromExtension = needExtension ? await pythonExtensionInterpreter(folder, (m) => this.log(m)) : undefined;
    if (needExtension) {
      this.log(fromExtension ? `Python extension's interpreter: ${fromExtension.join(' ')}` : 'No interpreter from the Python extension (not installed or none selected).');
    }
    const tried: Array<{ python: string[]; outcome: string }> = [];
    for (const candidate of interpreterCandidates({ ...input, pythonExtensionInterpreter: fromExtension })) {
      if (!launcher) {
        // A build without the launcher (never shipped): start `-m nnie_lsp` unchecked.
        return serverCommandFor(candidate, undefined, strategy);
      }
      const probe = await probeInterpreter(candidate.python, launcher, { strategy, cwd, env: this.probeEnv() });
      const verdict = judgeProbe(probe);
      const version = probe.kind === 'ok' ? probe.report.python : undefined;
      this.log(`Interpreter ${candidate.python.join(' ')} (${candidate.source}): ${version ? `Python ${version}, ` : ''}${verdict.kind === 'ready' ? 'can run the server' : `${verdict.kind} — ${verdict.detail}`}`);
      if (probe.kind === 'ok' && probe.report.nnie_lsp_file) {
        this.log(`  nnie_lsp ${probe.report.nnie_lsp ?? ''} from ${probe.report.nnie_lsp_file}`);
      }
      if (verdict.kind === 'ready') {
        const report = probe.kind === 'ok' ? probe.report : undefined;
        this.python = {
          argv: candidate.python,
          version,
          verdict,
          packagesDir: report?.packages_dir ?? undefined,
          pipWheel: report?.pip_wheel ?? this.bundle.pipWheel,
        };
        if (report?.packages_dir && report.bundle_paths?.includes(report.packages_dir)) {
          this.log(`  with the packages the extension installed for this Python: ${report.packages_dir}`);
        }
        if (verdict.missingForTriage.length > 0) {
          const message = triageUnavailableMessage(candidate.python, version ?? '?', verdict.missingForTriage, this.bundle.wheel, this.bundle.manifest.target);
          // the log names the remedy that works: the extension's own install (no pip needed) where it can offer one
          const { place, requirements } = this.triageInstall(verdict.missingForTriage, strategy);
          this.output.warn(
            place && requirements.every((r) => r)
              ? `${message.replace(/ Fix: run .*$/, '')} The extension offers to install ${requirements.join(' ')} into its own folder: ${installCommandLine(place, requirements as string[])}`
              : message,
          );
          if (!this.warnedTriage) {
            this.warnedTriage = true;
            void this.offerTriageModules(verdict.missingForTriage, message, strategy);
          }
        }
        if (verdict.missingForReference) {
          // The remedy depends on the interpreter (pip, a venv without pip, a system Python): the
          // server says which one works when a command needs OpenCV, and the extension offers to
          // install it into its own folder.
          this.log(`OpenCV (cv2) is not importable with ${candidate.python.join(' ')}: Compute Caffe Reference Dumps and Emulate NNIE Simulation Dumps need it; running one offers to install it.`);
        }
        const command = serverCommandFor(candidate, launcher, strategy);
        if (command.bundled && this.options.packagesRoot) {
          command.env = { ...(command.env ?? {}), NNIE_PACKAGES_ROOT: this.options.packagesRoot };
        }
        return command;
      }
      if (candidate.final) {
        this.fail(launchFailureMessage(verdict, candidate.python, this.bundle.wheel));
        return undefined;
      }
      tried.push({ python: candidate.python, outcome: verdict.kind === 'not-found' ? 'not found' : version ? `Python ${version}${verdict.kind === 'too-old' ? ' (too old)' : `: ${verdict.detail}`}` : verdict.detail });
    }
    this.fail(noPythonMessage(tried));
    return undefined;
  }

  private probeEnv(): NodeJS.ProcessEnv {
    return this.options.packagesRoot ? { ...process.env, NNIE_PACKAGES_ROOT: this.options.packagesRoot } : process.env;
  }

  /** Where a missing package can be installed for the server's Python (probed), or undefined (own server command, fromEnvironment, an old bundle). */
  installPlace(requireBundled = true): InstallPlace | undefined {
    const python = this.python;
    if ((requireBundled && !this.command?.bundled) || !python?.packagesDir || !python.pipWheel) {
      return undefined;
    }
    return { python: python.argv, pipWheel: python.pipWheel, folder: python.packagesDir, version: python.version };
  }

  /** Where and what to install for the triage modules the server's Python lacks (no place: the extension cannot install). */
  private triageInstall(modules: string[], strategy: ImportStrategy): { place: InstallPlace | undefined; requirements: Array<string | undefined> } {
    return {
      place: strategy === 'useBundled' ? this.installPlace(false) : undefined,
      requirements: modules.map((m) => this.bundle.manifest.module_requirements?.[m]),
    };
  }

  /** At start-up (before the command is set): triage needs numpy/protobuf and the bundle has none for this Python (the universal VSIX). */
  private offerTriageModules(modules: string[], message: string, strategy: ImportStrategy): Promise<void> {
    const what = modules.join(' and ');
    const target = this.bundle.manifest.target;
    const problem = `the language server runs, but accuracy triage needs ${what}, which the extension${target ? ` (${target})` : ''} does not carry for this Python.`;
    const { place, requirements } = this.triageInstall(modules, strategy);
    // nothing was run yet: the message after the install says what works now, not "run the command again"
    return this.installer.offer(problem, what, requirements, place, 'warning', () => showActionableError(this.output, message, commandIn(message), 'warning'), 'Accuracy triage can run now.');
  }

  /**
   * A command failed for a missing optional package (`data.missingPackage` of the server's error):
   * one message with an install button when the extension can install it, else the server's own
   * remedy with its command to copy.
   */
  offerMissingPackage(missing: MissingPackageData, message: string): Promise<void> {
    const copy = missing.command ?? undefined;
    return this.installer.offer(problemOf(missing, message), missing.package, [missing.requirement], this.installPlace(), 'error', () =>
      showActionableError(this.output, /^NNIE\b/.test(message) ? message : `NNIE: ${message}`, copy),
    );
  }

  private fail(message: string): void {
    this.logError(message);
    this.status.set('error', message);
    void showActionableError(this.output, message, commandIn(message));
  }

  private async doStart(): Promise<void> {
    if (this.client) {
      return;
    }
    this.status.set('starting');
    const cwd = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
    const cmd = await this.resolveCommand(cwd);
    if (!cmd) {
      return;
    }
    this.command = cmd;
    this.log(`Server command (from ${cmd.source}${cmd.bundled ? ', bundled server' : ''}): ${describeCommand(cmd)}`);

    const serverOptions: ServerOptions = {
      command: cmd.command,
      args: cmd.args,
      transport: TransportKind.stdio,
      options: { cwd, env: { ...process.env, PYTHONIOENCODING: 'utf-8', ...(cmd.env ?? {}) } },
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
      initializationOptions: () => initializationOptions((key, fallbackValue) => config().get(key, fallbackValue)),
      synchronize: { configurationSection: 'nnie' },
      middleware: {
        workspace: {
          // Never hand the server the client-only keys (server command, interpreter, cfg patterns,
          // triage folders): it rejects settings objects with keys it does not know.
          configuration: async (params, token, next) => filterConfigurationResult(params.items, await next(params, token)) as never,
        },
        executeCommand: this.options.executeCommand,
      },
      errorHandler,
      initializationFailedHandler: (error) => {
        this.logError(`Initialization failed: ${String(error)}`);
        return false;
      },
    };
    const client = new LanguageClient('nnie', 'NNIE Language Server', serverOptions, clientOptions);
    client.registerFeature(commandOutcomesFeature);
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
      this.claimProgress();
      const info = client.initializeResult?.serverInfo;
      this.log(`Server running${info ? `: ${info.name} ${info.version ?? ''}` : ''}.`);
    } catch (e) {
      const message = `NNIE: the language server failed to start (${describeCommand(cmd)}): ${e instanceof Error ? e.message : String(e)}`;
      this.fail(message);
    }
  }

  /**
   * (Re)installs the notification progress handler on the running client. vscode-languageclient
   * installs its own handler again whenever it restarts the server by itself (after a crash), so
   * the triage UI calls this before each request that shows progress.
   */
  claimProgress(): void {
    const client = this.client;
    if (!client || client.state !== State.Running) {
      return;
    }
    this.progressRegistration?.dispose();
    this.progressRegistration = showProgressAsNotifications(client);
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
    this.progressRegistration?.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

/**
 * Tells the server (`experimental.nnie.commandOutcomes`) that this client shows the outcome of
 * every command itself (triage/ui.ts): the server then sends no window/showMessage of its own for
 * them, so each event is one notification, not two.
 */
export const commandOutcomesFeature: StaticFeature = {
  fillClientCapabilities(capabilities) {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, nnie: { ...((experimental.nnie as object) ?? {}), commandOutcomes: true } };
  },
  initialize() {},
  getState: () => ({ kind: 'static' }),
  clear() {},
};

/**
 * The server's work-done progress (triage, reference, emulate) as notifications with a Cancel
 * button that sends `window/workDoneProgress/cancel` (see progress.ts). Replaces
 * vscode-languageclient's status-bar handler of `window/workDoneProgress/create`.
 */
function showProgressAsNotifications(client: LanguageClient): vscode.Disposable {
  const tracker = new ProgressTracker({
    onProgress: (token, handler) => client.onProgress(WorkDoneProgress.type, token, (value) => handler(value as ProgressValue)),
    cancel: (token) => void client.sendNotification(WorkDoneProgressCancelNotification.type, { token }),
    show: (options, task) =>
      void vscode.window.withProgress(
        {
          location: options.cancellable ? vscode.ProgressLocation.Notification : vscode.ProgressLocation.Window,
          title: /^NNIE\b/.test(options.title) ? options.title : `NNIE: ${options.title}`,
          cancellable: options.cancellable,
        },
        (progress, token) => task((update) => progress.report(update), (listener) => token.onCancellationRequested(listener)),
      ),
  });
  return client.onRequest(WorkDoneProgressCreateRequest.type, (params) => {
    tracker.create(params.token);
  });
}
