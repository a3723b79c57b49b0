/**
 * Pure logic (no `vscode` import): installing a Python package the server lacks into a folder the
 * extension manages, so that every command works with the VSIX alone and any Python 3.10+.
 *
 * Where: `<globalStorage>/python-packages/cp311-linux_x86_64/` — one folder per CPython version and
 * platform (their native wheels differ), named by the bundled launcher (`launch.py --check` reports
 * it as `packages_dir`; it puts the folder on the import path after the bundle's own libraries).
 *
 * How: `<the server's python> <bundled/wheels/pip-*.whl>/pip install --target <folder> <requirement>`.
 * pip runs from the wheel the VSIX carries (as ensurepip does), so the chosen interpreter needs
 * neither pip, nor ensurepip, nor venv; `--target` also works for a system Python that PEP 668 marks
 * as managed by its package manager (pip refuses only installs into the environment itself). The
 * packages come from PyPI (or the user's pip configuration: index, proxy).
 */

/** The `missingPackage` object of a server error (`data.missingPackage`, docs/editor-protocol.md). */
export interface MissingPackageData {
  module: string;
  package: string;
  extra?: string;
  requirement: string;
  command?: string | null;
  python?: string;
  /** The message without its remedy (servers from 0.1.0 on). */
  problem?: string;
}

/** What an install needs: the server's interpreter, the bundled pip wheel, the target folder. */
export interface InstallPlace {
  python: readonly string[];
  pipWheel: string;
  folder: string;
  /** `3.11.7`, for the message. */
  version?: string;
}

/** `pip install` through the bundled pip wheel into the managed folder: the argv after the interpreter. */
export function installArgs(pipWheel: string, folder: string, requirements: readonly string[]): string[] {
  // `<wheel>/pip` runs pip's __main__ from inside the zip (a wheel is one); --upgrade replaces what an
  // earlier install put there (the folder holds every package the extension installed for this Python)
  return [
    `${pipWheel}/pip`,
    'install',
    '--disable-pip-version-check',
    '--no-input',
    '--no-warn-script-location',
    '--prefer-binary',
    '--upgrade',
    '--target',
    folder,
    ...requirements,
  ];
}

function quote(a: string): string {
  return /[\s"'&()|;<>$`]/.test(a) ? `"${a.replace(/(["\\$`])/g, '\\$1')}"` : a;
}

/** The same install as one shell command (logged, and for a "Copy Command" button). */
export function installCommandLine(place: InstallPlace, requirements: readonly string[]): string {
  return [...place.python, ...installArgs(place.pipWheel, place.folder, requirements)].map(quote).join(' ');
}

/** The question before installing: what (the requirement), for which Python, where, and what follows. */
export function installPrompt(problem: string, what: string, requirements: readonly string[], place: InstallPlace): string {
  const python = place.version ? `Python ${place.version.split('.').slice(0, 2).join('.')}` : place.python.join(' ');
  const head = problem.trim() ? `${problem.trim().replace(/^(?!NNIE\b)/, 'NNIE: ')} ` : 'NNIE: ';
  return (
    `${head}Install ${requirements.join(' ')} (${what}, from PyPI) for ${python} into the extension's own folder ` +
    `${place.folder}? The language server then restarts with it.`
  );
}

/** What follows a command that failed for the missing package: run it again. */
export const RUN_AGAIN = 'Run the command again.';

/**
 * The message after a successful install: what, that the server restarted, `next` — what the user
 * can do now (`RUN_AGAIN` after a failed command; at start-up, when no command ran, what the
 * package enables) — and last, where (a long path: a toast cut short keeps what matters).
 */
export function installedMessage(what: string, folder: string, next: string = RUN_AGAIN): string {
  return `NNIE: ${what} installed; the language server restarted with it.${next.trim() ? ` ${next.trim()}` : ''} (Folder: ${folder})`;
}

/** The button that installs. */
export function installButton(what: string): string {
  return `Install ${what}`;
}

/** The sentence of a missing-package error without its remedy (servers that send no `problem`). */
export function problemOf(missing: MissingPackageData, message: string): string {
  if (missing.problem) {
    return missing.problem;
  }
  const end = message.indexOf(' cannot import.');
  return end > 0 ? message.slice(0, end + ' cannot import.'.length) : message;
}

/** The last lines of pip's output that say why it failed (for the error message). */
export function pipFailure(output: string): string {
  const lines = output.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const errors = lines.filter((l) => /^(ERROR|error):/.test(l));
  return (errors.length ? errors : lines).slice(-3).join(' ').slice(0, 600) || 'no output';
}
