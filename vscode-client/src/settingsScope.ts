/**
 * Which settings scope a value came from (pure). VS Code ignores some scopes for some settings
 * (machine-scoped ones in remote windows such as code-server's User settings), and a user who sets
 * `nnie.interpreter` wants to see in the log which value was read and from where.
 */

export interface Inspected<T> {
  key: string;
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
  globalLanguageValue?: T;
  workspaceLanguageValue?: T;
  workspaceFolderLanguageValue?: T;
}

const SCOPES: Array<[keyof Inspected<unknown>, string]> = [
  ['workspaceFolderLanguageValue', 'Workspace Folder settings (language-specific)'],
  ['workspaceFolderValue', 'Workspace Folder settings'],
  ['workspaceLanguageValue', 'Workspace settings (language-specific)'],
  ['workspaceValue', 'Workspace settings'],
  ['globalLanguageValue', 'User settings (language-specific)'],
  ['globalValue', 'User settings (in a remote window or code-server: User or Remote/Machine settings)'],
];

function isSet(value: unknown): boolean {
  if (value === undefined || value === null) {
    return false;
  }
  if (typeof value === 'string') {
    return value.trim() !== '';
  }
  return !Array.isArray(value) || value.length > 0;
}

/** The scopes holding a non-empty value, most specific first. */
export function scopesWithValue<T>(inspected: Inspected<T> | undefined): Array<{ scope: string; value: T }> {
  if (!inspected) {
    return [];
  }
  const out: Array<{ scope: string; value: T }> = [];
  for (const [key, scope] of SCOPES) {
    const value = inspected[key] as T | undefined;
    if (isSet(value)) {
      out.push({ scope, value: value as T });
    }
  }
  return out;
}

/**
 * A log line: `nnie.interpreter = "/x" (from User settings)`, `… not set (default)`, or a warning
 * when a scope holds a value that VS Code did not apply.
 */
export function describeSetting<T>(name: string, effective: T | undefined, inspected: Inspected<T> | undefined): string {
  const scopes = scopesWithValue(inspected);
  const shown = JSON.stringify(effective ?? null);
  if (!isSet(effective)) {
    if (scopes.length === 0) {
      return `${name} is not set (checked every settings scope)`;
    }
    const where = scopes.map((s) => `${s.scope}: ${JSON.stringify(s.value)}`).join('; ');
    return `${name} has a value in ${where}, but VS Code applies none here (is it set in a scope this window ignores?)`;
  }
  const source = scopes.find((s) => JSON.stringify(s.value) === JSON.stringify(effective));
  return `${name} = ${shown} (from ${source ? source.scope : 'a scope VS Code did not name'})`;
}
