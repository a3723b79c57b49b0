/**
 * Pure logic (no `vscode` import): which Python starts the language server, how (the bundled
 * launcher or `-m nnie_lsp`), the probe that checks it can, and the message when it cannot.
 *
 * The extension ships the server (`bundled/`, see scripts/bundle_server.py) and runs it with the
 * user's Python 3.10+: `<python> bundled/tool/launch.py`. Order of the interpreters tried:
 * `nnie.server.command` (taken as is), `nnie.interpreter`, the Python extension's interpreter,
 * then `python3`, `python`, `python3.14` … `python3.10` from PATH (`py -3` first on Windows).
 */
import { execFile } from 'node:child_process';
import { SERVER_MODULE } from './constants';

export type CommandSource = 'nnie.server.command' | 'nnie.interpreter' | 'python-extension' | 'default';
export type ImportStrategy = 'useBundled' | 'fromEnvironment';

/** Python 3.10 is the oldest the server supports (pyproject `requires-python`). */
export const MINIMUM_PYTHON: readonly [number, number] = [3, 10];

export interface ResolveInput {
  /** `nnie.server.command` (string array; empty/invalid means unset). */
  serverCommand?: unknown;
  /** `nnie.interpreter` (empty means unset). */
  interpreter?: unknown;
  /** Interpreter selected in the Python extension, when it is installed. */
  pythonExtensionInterpreter?: string[] | string;
  /** Used to expand `${workspaceFolder}`. */
  workspaceFolder?: string;
  /** Used to expand `~` and `${userHome}`. */
  home?: string;
  /** Environment used to expand `${env:NAME}`. */
  env?: Record<string, string | undefined>;
  /** `process.platform` (decides the PATH candidates). */
  platform?: string;
}

/** One interpreter to try, with where it came from. */
export interface InterpreterCandidate {
  python: string[];
  source: CommandSource;
  /** An explicit choice (a setting): its failure is reported, no other interpreter is tried. */
  final: boolean;
}

export interface ServerCommand {
  command: string;
  args: string[];
  source: CommandSource;
  /** The interpreter argv (for the probe); undefined for arbitrary user commands (wrappers, containers). */
  python?: string[];
  /** Extra environment for the server process. */
  env?: Record<string, string>;
  /** True when the bundled launcher starts the server. */
  bundled?: boolean;
}

/** Expands `~`, `${userHome}`, `${workspaceFolder}` and `${env:NAME}`. */
export function expandVariables(value: string, input: Pick<ResolveInput, 'workspaceFolder' | 'home' | 'env'>): string {
  let out = value.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (whole, name: string, envName?: string) => {
    if (name === 'workspaceFolder') {
      return input.workspaceFolder ?? whole;
    }
    if (name === 'userHome') {
      return input.home ?? whole;
    }
    return (envName && input.env?.[envName]) ?? '';
  });
  if (input.home && (out === '~' || out.startsWith('~/'))) {
    out = input.home + out.slice(1);
  }
  return out;
}

function asStringArray(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) {
    return undefined;
  }
  const items = value.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  return items.length > 0 && items.length === value.length ? items : undefined;
}

/** Finds `-m nnie_lsp` in an argument vector and returns the part before it. */
export function pythonPrefixOf(argv: readonly string[]): string[] | undefined {
  for (let i = 1; i < argv.length - 1; i++) {
    if (argv[i] === '-m' && argv[i + 1] === SERVER_MODULE) {
      return argv.slice(0, i);
    }
  }
  return undefined;
}

/** `nnie.server.command` when it is set: the full command, started as it is. */
export function explicitServerCommand(input: ResolveInput): ServerCommand | undefined {
  const explicit = asStringArray(input.serverCommand);
  if (!explicit) {
    return undefined;
  }
  const argv = explicit.map((s) => expandVariables(s, input));
  return { command: argv[0], args: argv.slice(1), source: 'nnie.server.command', python: pythonPrefixOf(argv) };
}

/** PATH interpreters tried when nothing is configured, most likely first. */
export function defaultPythonNames(platform: string = process.platform): string[][] {
  const versioned = [14, 13, 12, 11, 10].map((minor) => [`python3.${minor}`]);
  return platform === 'win32' ? [['py', '-3'], ['python'], ['python3']] : [['python3'], ['python'], ...versioned];
}

/**
 * Interpreters to try, in order (without `nnie.server.command`, which is not an interpreter).
 * `nnie.interpreter` is final; the Python extension's choice falls back to PATH when it is too old.
 */
export function interpreterCandidates(input: ResolveInput): InterpreterCandidate[] {
  if (typeof input.interpreter === 'string' && input.interpreter.trim() !== '') {
    return [{ python: [expandVariables(input.interpreter.trim(), input)], source: 'nnie.interpreter', final: true }];
  }
  const out: InterpreterCandidate[] = [];
  const ext = input.pythonExtensionInterpreter;
  const extArgv = typeof ext === 'string' ? (ext.trim() ? [ext.trim()] : undefined) : asStringArray(ext);
  if (extArgv) {
    // e.g. ["conda", "run", "-n", "env", "python"] from older Python extension APIs.
    out.push({ python: extArgv, source: 'python-extension', final: false });
  }
  for (const python of defaultPythonNames(input.platform)) {
    out.push({ python, source: 'default', final: false });
  }
  return out;
}

/** How a probed interpreter starts the server: the bundled launcher, or its own `-m nnie_lsp`. */
export function serverCommandFor(
  candidate: InterpreterCandidate,
  launcher: string | undefined,
  strategy: ImportStrategy,
): ServerCommand {
  const [command, ...pre] = candidate.python;
  const env = { NNIE_IMPORT_STRATEGY: strategy, PYTHONIOENCODING: 'utf-8' };
  if (launcher && strategy === 'useBundled') {
    return { command, args: [...pre, launcher], source: candidate.source, python: candidate.python, env, bundled: true };
  }
  return { command, args: [...pre, '-m', SERVER_MODULE], source: candidate.source, python: candidate.python, env, bundled: false };
}

export function describeCommand(cmd: Pick<ServerCommand, 'command' | 'args'>): string {
  return [cmd.command, ...cmd.args].map(quoteArg).join(' ');
}

/** Quotes an argument for display as a shell command (backslashes kept: Windows paths stay readable). */
function quoteArg(a: string): string {
  return /[\s"']/.test(a) ? `"${a.replace(/"/g, '\\"')}"` : a;
}

// ---------------------------------------------------------------- the probe (launch.py --check)

/** What `launch.py --check` prints (bundled/tool/launch.py). */
export interface ProbeReport {
  python: string;
  executable?: string;
  too_old?: boolean;
  strategy?: string;
  bundle_paths?: string[];
  bundle_target?: string | null;
  bundle_pythons?: string[];
  wheel?: string | null;
  /** The bundled pip wheel (installs into `packages_dir`). */
  pip_wheel?: string | null;
  /** Where the extension installs packages for this Python (`$NNIE_PACKAGES_ROOT/cpXY-<platform>`). */
  packages_dir?: string | null;
  nnie_lsp?: string | null;
  nnie_lsp_file?: string | null;
  missing: Record<string, string>;
}

export type Probe =
  | { kind: 'ok'; report: ProbeReport }
  | { kind: 'not-found'; detail: string }
  | { kind: 'failed'; detail: string };

/** Modules without which the server cannot start at all. */
const SERVER_MODULES = ['nnie_lsp', 'nnie_lsp.__main__', 'pygls', 'lsprotocol', 'lark'];
/** Modules the triage needs (`numpy`, `google.protobuf`) and `nnie.reference` (`cv2`). */
export const TRIAGE_MODULES = ['numpy', 'google.protobuf'];
export const REFERENCE_MODULE = 'cv2';

/** Runs `<python> <launcher> --check` and parses its JSON line. */
export function probeInterpreter(
  python: readonly string[],
  launcher: string,
  options: { strategy?: ImportStrategy; timeoutMs?: number; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Probe> {
  const env = { ...(options.env ?? process.env), NNIE_IMPORT_STRATEGY: options.strategy ?? 'useBundled', PYTHONIOENCODING: 'utf-8' };
  return new Promise((resolve) => {
    execFile(
      python[0],
      [...python.slice(1), launcher, '--check'],
      { timeout: options.timeoutMs ?? 30000, cwd: options.cwd, env, windowsHide: true },
      (error, stdout, stderr) => {
        const err = error as (NodeJS.ErrnoException & { killed?: boolean }) | null;
        if (err && (err.code === 'ENOENT' || err.code === 'EACCES')) {
          resolve({ kind: 'not-found', detail: `${python[0]}: ${err.code === 'ENOENT' ? 'no such file or command' : 'permission denied'}` });
          return;
        }
        const line = String(stdout).trim().split(/\r?\n/).pop() ?? '';
        try {
          const report = JSON.parse(line) as ProbeReport;
          if (report && typeof report.python === 'string') {
            resolve({ kind: 'ok', report: { ...report, missing: report.missing ?? {} } });
            return;
          }
        } catch {
          // fall through: not our JSON (a Python 2 syntax error, a wrapper printing something else)
        }
        const text = String(stderr).trim() || String(stdout).trim();
        resolve({ kind: 'failed', detail: text.split(/\r?\n/).slice(-3).join(' ') || (err?.killed ? 'timed out' : String(err?.message ?? 'no output')) });
      },
    );
  });
}

export function versionTuple(version: string): [number, number] {
  const [major, minor] = version.split('.').map((p) => Number.parseInt(p, 10));
  return [Number.isFinite(major) ? major : 0, Number.isFinite(minor) ? minor : 0];
}

export function isSupportedVersion(version: string): boolean {
  const [major, minor] = versionTuple(version);
  return major > MINIMUM_PYTHON[0] || (major === MINIMUM_PYTHON[0] && minor >= MINIMUM_PYTHON[1]);
}

export type Verdict =
  | { kind: 'ready'; missingForTriage: string[]; missingForReference: boolean }
  | { kind: 'not-found' | 'too-old' | 'no-server' | 'failed'; detail: string };

/** Whether a probe lets the server start, and what will not work. */
export function judgeProbe(probe: Probe): Verdict {
  if (probe.kind !== 'ok') {
    return { kind: probe.kind, detail: probe.detail };
  }
  const report = probe.report;
  if (report.too_old || !isSupportedVersion(report.python)) {
    return { kind: 'too-old', detail: `Python ${report.python}` };
  }
  const broken = SERVER_MODULES.filter((m) => m in report.missing);
  if (broken.length > 0) {
    return { kind: 'no-server', detail: broken.map((m) => report.missing[m]).join('; ') };
  }
  return {
    kind: 'ready',
    missingForTriage: TRIAGE_MODULES.filter((m) => m in report.missing),
    missingForReference: REFERENCE_MODULE in report.missing,
  };
}

// ---------------------------------------------------------------- messages

/** `<python> -m pip install <wheel>`: installs the bundled server and, from PyPI, its dependencies. */
export function pipInstallCommand(python: readonly string[], wheel: string | undefined): string {
  const target = wheel ? quoteArg(wheel) : '<bundled/wheels/nnie_lsp-*.whl in the extension folder>';
  return `${python.map(quoteArg).join(' ')} -m pip install ${target}`;
}

export const INSTALL_PYTHON_HINT =
  'Install Python 3.10 or newer (python.org, or your package manager), then set "nnie.interpreter" to it or select it in the Python extension.';

/** The message when the chosen interpreter cannot run the server; it always ends with a command or setting that works. */
export function launchFailureMessage(verdict: Exclude<Verdict, { kind: 'ready' }>, python: readonly string[], wheel: string | undefined): string {
  const py = python.join(' ');
  switch (verdict.kind) {
    case 'not-found':
      return `NNIE: cannot run the Python interpreter "${py}" (${verdict.detail}). ${INSTALL_PYTHON_HINT}`;
    case 'too-old':
      return `NNIE: "${py}" is ${verdict.detail}; the NNIE language server needs Python 3.10 or newer. ${INSTALL_PYTHON_HINT}`;
    case 'no-server':
      return (
        `NNIE: the language server cannot be imported with "${py}" (${verdict.detail}). ` +
        `Fix: run ${pipInstallCommand(python, wheel)} — or set "nnie.server.importStrategy" to "useBundled".`
      );
    default:
      return `NNIE: checking "${py}" failed: ${verdict.detail}. Fix: run ${pipInstallCommand(python, wheel)}, or set "nnie.interpreter" to another Python 3.10+.`;
  }
}

/** Shown (once) when the server runs but the triage will not: numpy/protobuf are not importable. */
export function triageUnavailableMessage(python: readonly string[], version: string, modules: string[], wheel: string | undefined, target?: string | null): string {
  const why = target ? `the extension (${target}) has no ${modules.join(', ')} for Python ${version}` : `${modules.join(', ')} cannot be imported with Python ${version}`;
  return `NNIE: the language server runs, but accuracy triage needs ${modules.join(' and ')}: ${why}. Fix: run ${pipInstallCommand(python, wheel)}`;
}

/** The command that installs what `nnie.reference` needs (the Caffe runtime through OpenCV). */
export function opencvInstallCommand(python: readonly string[]): string {
  return `${python.map(quoteArg).join(' ')} -m pip install "opencv-python-headless>=4.8,<5"`;
}

/** The command a message ends with (`Fix: run <command>`), for a "Copy Command" button. */
export function commandIn(message: string): string | undefined {
  const m = /run (.+? -m pip install .+?)(?: — |$)/.exec(message);
  return m?.[1];
}

/** No interpreter on PATH could run the server. */
export function noPythonMessage(tried: Array<{ python: string[]; outcome: string }>): string {
  const list = tried.map((t) => `${t.python.join(' ')}: ${t.outcome}`).join('; ');
  return `NNIE: no Python 3.10 or newer found (${list}). ${INSTALL_PYTHON_HINT}`;
}
