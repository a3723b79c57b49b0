import * as vscode from 'vscode';

/**
 * vscode-languageclient 11 traces only when its trace channel's log level is
 * `Trace`, which users can set only through "Developer: Set Log Level". This
 * adapter makes the `nnie.trace.server` setting alone control tracing: it
 * reports `Trace` while the setting is `messages`/`verbose` and writes the
 * trace lines into the main "NNIE" output channel.
 */
export class TraceChannel implements vscode.LogOutputChannel {
  private readonly emitter = new vscode.EventEmitter<vscode.LogLevel>();
  private readonly listener: vscode.Disposable;
  private level: vscode.LogLevel;
  readonly onDidChangeLogLevel = this.emitter.event;

  constructor(private readonly target: vscode.LogOutputChannel) {
    this.level = TraceChannel.levelFromSettings();
    this.listener = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('nnie.trace.server')) {
        this.level = TraceChannel.levelFromSettings();
        this.emitter.fire(this.level);
      }
    });
  }

  private static levelFromSettings(): vscode.LogLevel {
    const value = vscode.workspace.getConfiguration('nnie').get<string>('trace.server', 'off');
    return value === 'messages' || value === 'verbose' ? vscode.LogLevel.Trace : vscode.LogLevel.Info;
  }

  get name(): string {
    return this.target.name;
  }

  get logLevel(): vscode.LogLevel {
    return this.level;
  }

  trace(message: string, ...args: unknown[]): void {
    if (this.level === vscode.LogLevel.Trace) {
      // Written at info level so that it shows without changing the channel's own log level.
      this.target.info(`[trace] ${message}`, ...args);
    }
  }

  debug(message: string, ...args: unknown[]): void {
    this.target.debug(message, ...args);
  }

  info(message: string, ...args: unknown[]): void {
    this.target.info(message, ...args);
  }

  warn(message: string, ...args: unknown[]): void {
    this.target.warn(message, ...args);
  }

  error(error: string | Error, ...args: unknown[]): void {
    this.target.error(error, ...args);
  }

  append(value: string): void {
    this.target.append(value);
  }

  appendLine(value: string): void {
    this.target.appendLine(value);
  }

  replace(value: string): void {
    this.target.replace(value);
  }

  clear(): void {
    this.target.clear();
  }

  show(preserveFocus?: boolean): void;
  show(column?: vscode.ViewColumn, preserveFocus?: boolean): void;
  show(a?: boolean | vscode.ViewColumn, b?: boolean): void {
    if (typeof a === 'boolean' || a === undefined) {
      this.target.show(a);
    } else {
      this.target.show(a, b);
    }
  }

  hide(): void {
    this.target.hide();
  }

  dispose(): void {
    this.listener.dispose();
    this.emitter.dispose();
  }
}
