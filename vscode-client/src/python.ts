/**
 * Optional integration with the Python extension (`ms-python.python`): the
 * interpreter it has selected for a resource. Everything is defensive — the
 * extension may be missing, inactive, or expose an older/newer API.
 */
import * as vscode from 'vscode';

export const PYTHON_EXTENSION_ID = 'ms-python.python';

interface EnvironmentsApi {
  getActiveEnvironmentPath?(resource?: vscode.Uri): { path?: string } | undefined;
  resolveEnvironment?(env: unknown): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
}

interface PythonApi {
  ready?: Promise<void>;
  /** The current API (`@vscode/python-extension`). */
  environments?: EnvironmentsApi;
  /** The same functions under the older, singular name. */
  environment?: EnvironmentsApi;
  settings?: {
    getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } | undefined;
    onDidChangeExecutionDetails?: vscode.Event<unknown>;
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([p, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);
}

async function api(): Promise<PythonApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION_ID);
  if (!ext) {
    return undefined;
  }
  try {
    const exports = ext.isActive ? ext.exports : await withTimeout(Promise.resolve(ext.activate()), 15000);
    if (exports?.ready) {
      await withTimeout(exports.ready, 10000);
    }
    return exports ?? undefined;
  } catch {
    return undefined;
  }
}

/** Interpreter argv selected in the Python extension, or undefined. */
export async function pythonExtensionInterpreter(resource?: vscode.Uri, log?: (msg: string) => void): Promise<string[] | undefined> {
  const py = await api();
  if (!py) {
    return undefined;
  }
  try {
    const envs = py.environments ?? py.environment;
    if (envs?.getActiveEnvironmentPath) {
      const active = envs.getActiveEnvironmentPath(resource);
      if (active && envs.resolveEnvironment) {
        const resolved = await withTimeout(envs.resolveEnvironment(active), 10000);
        const exe = resolved?.executable?.uri?.fsPath;
        if (exe) {
          return [exe];
        }
      }
      if (active?.path && active.path !== 'python') {
        return [active.path];
      }
    }
    const exec = py.settings?.getExecutionDetails?.(resource)?.execCommand;
    if (Array.isArray(exec) && exec.length > 0 && exec.every((s) => typeof s === 'string')) {
      return exec;
    }
  } catch (e) {
    log?.(`Python extension API failed: ${String(e)}`);
  }
  return undefined;
}

/** Subscribes to interpreter changes in the Python extension, if possible. */
export async function onPythonInterpreterChanged(listener: () => void): Promise<vscode.Disposable | undefined> {
  const py = await api();
  try {
    const event =
      py?.environments?.onDidChangeActiveEnvironmentPath ?? py?.environment?.onDidChangeActiveEnvironmentPath ?? py?.settings?.onDidChangeExecutionDetails;
    return event ? event(() => listener()) : undefined;
  } catch {
    return undefined;
  }
}
