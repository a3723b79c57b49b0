/**
 * The `nnie` settings object sent as `initializationOptions` (plus `locale`);
 * the same shape `workspace/configuration` returns for section `nnie`.
 */
export interface NnieSettings {
  server: { command: string[] };
  interpreter: string;
  lint: {
    run: 'onType' | 'onSave';
    /** `null`: the server's default rule set (an empty list would select nothing). */
    select: string[] | null;
    ignore: string[];
    severity: Record<string, string>;
    /** Lint every cfg and prototxt of the workspace (the Problems list covers files not open). */
    workspace: boolean;
  };
  sourceFramework: string;
  language: string;
  cfgFilePatterns: string[];
  trace: { server: string };
}

/**
 * Keys of the `nnie` section that only the client uses (how to start the server, which files to
 * claim, the triage pickers' default folders). The server validates its settings strictly and rejects the whole object when it sees
 * keys it does not know, so these are never sent to it.
 */
export const CLIENT_ONLY_KEYS = ['server', 'interpreter', 'cfgFilePatterns', 'triage'] as const;

/** What the server receives: `initializationOptions` and `workspace/configuration` for `nnie`. */
export type ServerSettings = Omit<NnieSettings, (typeof CLIENT_ONLY_KEYS)[number]>;

type Getter = <T>(key: string, fallback: T) => T;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export function readSettings(get: Getter): NnieSettings {
  const run = get<string>('lint.run', 'onType');
  const severity = get<unknown>('lint.severity', {});
  return {
    server: { command: strings(get<unknown>('server.command', [])) },
    interpreter: String(get<unknown>('interpreter', '') ?? ''),
    lint: {
      run: run === 'onSave' ? 'onSave' : 'onType',
      select: Array.isArray(get<unknown>('lint.select', null)) ? strings(get<unknown>('lint.select', null)) : null,
      ignore: strings(get<unknown>('lint.ignore', [])),
      severity:
        severity && typeof severity === 'object' && !Array.isArray(severity)
          ? Object.fromEntries(Object.entries(severity as Record<string, unknown>).filter(([, v]) => typeof v === 'string')) as Record<string, string>
          : {},
      workspace: get<unknown>('lint.workspace', false) === true,
    },
    sourceFramework: String(get<unknown>('sourceFramework', 'auto') ?? 'auto'),
    language: String(get<unknown>('language', 'auto') ?? 'auto'),
    cfgFilePatterns: strings(get<unknown>('cfgFilePatterns', [])),
    trace: { server: String(get<unknown>('trace.server', 'off') ?? 'off') },
  };
}

/**
 * `initializationOptions`: the server part of the `nnie` settings. The display language reaches
 * the server as `InitializeParams.locale` (vscode-languageclient sends `vscode.env.language`).
 */
export function initializationOptions(get: Getter): ServerSettings {
  return stripClientOnly(readSettings(get)) as ServerSettings;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Removes the client-only keys from a `nnie` settings value, nested (`{server: {command}}`) or
 * flat (`{"server.command": …}`). Other values are returned unchanged.
 */
export function stripClientOnly(value: unknown): unknown {
  if (!isPlainObject(value)) {
    return value;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const top = k.split('.')[0];
    if (!(CLIENT_ONLY_KEYS as readonly string[]).includes(top)) {
      out[k] = v;
    }
  }
  return out;
}

/**
 * Filters a `workspace/configuration` answer: items asking for section `nnie` lose the
 * client-only keys; an item asking for everything (no section) loses them under `nnie`.
 */
export function filterConfigurationResult(items: ReadonlyArray<{ section?: string }>, result: unknown): unknown {
  if (!Array.isArray(result)) {
    return result;
  }
  return result.map((value, i) => {
    const section = items[i]?.section;
    if (section === 'nnie') {
      return stripClientOnly(value);
    }
    if (!section && isPlainObject(value) && isPlainObject(value.nnie)) {
      return { ...value, nnie: stripClientOnly(value.nnie) };
    }
    return value;
  });
}
