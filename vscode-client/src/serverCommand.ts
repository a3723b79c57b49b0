/**
 * Pure logic (no `vscode` import) resolving how the language server is
 * started, plus the "is nnie_lsp importable" check.
 */
import { execFile } from 'node:child_process';
import { SERVER_MODULE } from './constants';

export type CommandSource = 'nnie.server.command' | 'nnie.interpreter' | 'python-extension' | 'default';

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
  /** Fallback interpreter, `python3` by default (`python` on Windows). */
  defaultPython?: string;
}

export interface ServerCommand {
  command: string;
  args: string[];
  source: CommandSource;
  /**
   * Interpreter plus its leading arguments when the command has the form
   * `<python...> -m nnie_lsp`: used for the import check. Undefined for
   * arbitrary user commands (wrapper scripts, containers...).
   */
  python?: string[];
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

/**
 * Resolution order: `nnie.server.command`, `nnie.interpreter`, the Python
 * extension's interpreter, `python3`.
 */
export function resolveServerCommand(input: ResolveInput): ServerCommand {
  const expand = (s: string) => expandVariables(s, input);
  const explicit = asStringArray(input.serverCommand);
  if (explicit) {
    const argv = explicit.map(expand);
    return { command: argv[0], args: argv.slice(1), source: 'nnie.server.command', python: pythonPrefixOf(argv) };
  }
  if (typeof input.interpreter === 'string' && input.interpreter.trim() !== '') {
    const python = expand(input.interpreter.trim());
    return { command: python, args: ['-m', SERVER_MODULE], source: 'nnie.interpreter', python: [python] };
  }
  const ext = input.pythonExtensionInterpreter;
  const extArgv = typeof ext === 'string' ? (ext.trim() ? [ext.trim()] : undefined) : asStringArray(ext);
  if (extArgv) {
    // e.g. ["conda", "run", "-n", "env", "python"] from older Python extension APIs.
    return {
      command: extArgv[0],
      args: [...extArgv.slice(1), '-m', SERVER_MODULE],
      source: 'python-extension',
      python: extArgv,
    };
  }
  const python = input.defaultPython ?? (process.platform === 'win32' ? 'python' : 'python3');
  return { command: python, args: ['-m', SERVER_MODULE], source: 'default', python: [python] };
}

export function describeCommand(cmd: Pick<ServerCommand, 'command' | 'args'>): string {
  return [cmd.command, ...cmd.args].map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' ');
}

export type ImportCheck =
  | { ok: true; version?: string }
  | { ok: false; reason: 'not-found' | 'not-installed' | 'no-server' | 'failed'; detail: string };

/**
 * Runs `<python...> -c "import nnie_lsp"` and reports whether it worked.
 * `not-found`: the interpreter itself could not be executed; `no-server`: the
 * package imports but has no `__main__` (an old or partial install).
 */
export function checkServerImportable(
  python: readonly string[],
  options: { timeoutMs?: number; cwd?: string; env?: NodeJS.ProcessEnv; module?: string } = {},
): Promise<ImportCheck> {
  const module = options.module ?? SERVER_MODULE;
  const code =
    `import importlib, sys\n` +
    `m = importlib.import_module(${JSON.stringify(module)})\n` +
    `import importlib.util as u\n` +
    `if u.find_spec(${JSON.stringify(module + '.__main__')}) is None:\n` +
    `    sys.stderr.write("NoServerEntryPoint: %s %s has no __main__ module" % (${JSON.stringify(module)}, getattr(m, "__version__", "?")))\n` +
    `    sys.exit(3)\n` +
    `sys.stdout.write(str(getattr(m, "__version__", "")))\n`;
  return new Promise((resolve) => {
    execFile(
      python[0],
      [...python.slice(1), '-c', code],
      { timeout: options.timeoutMs ?? 20000, cwd: options.cwd, env: options.env, windowsHide: true },
      (error, stdout, stderr) => {
        if (!error) {
          const version = String(stdout).trim();
          resolve({ ok: true, version: version || undefined });
          return;
        }
        const err = error as NodeJS.ErrnoException & { killed?: boolean };
        if (err.code === 'ENOENT' || err.code === 'EACCES') {
          resolve({ ok: false, reason: 'not-found', detail: `${python[0]}: ${err.code === 'ENOENT' ? 'no such file or command' : 'permission denied'}` });
          return;
        }
        const text = String(stderr).trim();
        if (/NoServerEntryPoint/.test(text)) {
          resolve({ ok: false, reason: 'no-server', detail: text.replace(/^.*NoServerEntryPoint: /s, '') });
          return;
        }
        if (/ModuleNotFoundError|No module named/.test(text)) {
          const last = text.split(/\r?\n/).pop() ?? text;
          resolve({ ok: false, reason: 'not-installed', detail: last });
          return;
        }
        resolve({ ok: false, reason: 'failed', detail: text || (err.killed ? 'timed out' : String(err.message)) });
      },
    );
  });
}

/** The message (and the fix) shown when the import check fails. */
export function importFailureMessage(check: Exclude<ImportCheck, { ok: true }>, cmd: ServerCommand): string {
  const py = (cmd.python ?? [cmd.command]).join(' ');
  switch (check.reason) {
    case 'not-found':
      return (
        `NNIE: cannot run the Python interpreter "${py}" (${check.detail}). ` +
        `Set "nnie.interpreter" to a Python that has nnie-lsp installed, or "nnie.server.command" to the full server command.`
      );
    case 'not-installed':
      return (
        `NNIE: the language server is not installed in "${py}" (${check.detail}). ` +
        `Fix: run "${py} -m pip install nnie-lsp", or set "nnie.interpreter" to a Python that has it.`
      );
    case 'no-server':
      return (
        `NNIE: the nnie-lsp installed in "${py}" has no language server (${check.detail}). ` +
        `Fix: run "${py} -m pip install --upgrade nnie-lsp", or set "nnie.interpreter" to a Python with a current nnie-lsp.`
      );
    default:
      return (
        `NNIE: "import ${SERVER_MODULE}" failed in "${py}": ${check.detail}. ` +
        `Fix the installation ("${py} -m pip install --upgrade nnie-lsp") or set "nnie.interpreter".`
      );
  }
}
