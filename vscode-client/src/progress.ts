/**
 * Server work-done progress shown as cancellable notifications (pure: the editor side is injected).
 *
 * The server runs `nnie.triage`, `nnie.reference` and `nnie.emulate` with work-done progress it
 * creates (`window/workDoneProgress/create`); only `window/workDoneProgress/cancel` with that
 * token stops the subprocess (docs/editor-protocol.md). vscode-languageclient shows such progress
 * in the status bar, where it cannot be cancelled: this tracker shows cancellable progress as a
 * notification with a Cancel button that sends the cancel notification.
 */

export interface ProgressBegin {
  kind: 'begin';
  title: string;
  cancellable?: boolean;
  message?: string;
  percentage?: number;
}
export interface ProgressReport {
  kind: 'report';
  message?: string;
  percentage?: number;
}
export interface ProgressEnd {
  kind: 'end';
  message?: string;
}
export type ProgressValue = ProgressBegin | ProgressReport | ProgressEnd;

export interface Disposable {
  dispose(): void;
}

/** What the tracker needs from the editor and the language client. */
export interface ProgressHost {
  /** Subscribe to `$/progress` for one token. */
  onProgress(token: string | number, handler: (value: ProgressValue) => void): Disposable;
  /** Send `window/workDoneProgress/cancel`. */
  cancel(token: string | number): void;
  /** Show progress; `cancellable` shows a Cancel button; the task runs until the promise settles. */
  show(
    options: { title: string; cancellable: boolean },
    task: (report: (update: { message?: string; increment?: number }) => void, onCancel: (listener: () => void) => void) => Promise<void>,
  ): void;
}

export class ProgressTracker {
  /** Tokens whose progress has not ended. */
  readonly active = new Set<string | number>();

  constructor(private readonly host: ProgressHost) {}

  /** Handler of `window/workDoneProgress/create`. */
  create(token: string | number): void {
    if (this.active.has(token)) {
      return;
    }
    this.active.add(token);
    let report: ((update: { message?: string; increment?: number }) => void) | undefined;
    let finish: (() => void) | undefined;
    let ended = false;
    let reported = 0;
    const percentage = (value: number | undefined): number | undefined => {
      if (typeof value !== 'number') {
        return undefined;
      }
      const clamped = Math.max(0, Math.min(100, value));
      const delta = Math.max(0, clamped - reported);
      reported += delta;
      return delta;
    };
    const subscription = this.host.onProgress(token, (value) => {
      if (value.kind === 'begin') {
        this.host.show({ title: value.title, cancellable: !!value.cancellable }, (progress, onCancel) => {
          report = progress;
          onCancel(() => this.host.cancel(token));
          progress({ message: value.message, increment: percentage(value.percentage) });
          return new Promise<void>((resolve) => {
            finish = resolve;
            if (ended) {
              resolve();
            }
          });
        });
      } else if (value.kind === 'report') {
        report?.({ message: value.message, increment: percentage(value.percentage) });
      } else {
        ended = true;
        this.active.delete(token);
        finish?.();
        subscription.dispose();
      }
    });
  }
}
