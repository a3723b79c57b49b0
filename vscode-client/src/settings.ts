/**
 * The `nnie` settings object sent as `initializationOptions` (plus `locale`);
 * the same shape `workspace/configuration` returns for section `nnie`.
 */
export interface NnieSettings {
  server: { command: string[] };
  interpreter: string;
  lint: {
    run: 'onType' | 'onSave';
    select: string[];
    ignore: string[];
    severity: Record<string, string>;
  };
  sourceFramework: string;
  language: string;
  cfgFilePatterns: string[];
  trace: { server: string };
}

export interface InitializationOptions extends NnieSettings {
  /** VS Code display language, e.g. `en` or `zh-cn`. */
  locale: string;
}

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
      select: strings(get<unknown>('lint.select', [])),
      ignore: strings(get<unknown>('lint.ignore', [])),
      severity:
        severity && typeof severity === 'object' && !Array.isArray(severity)
          ? Object.fromEntries(Object.entries(severity as Record<string, unknown>).filter(([, v]) => typeof v === 'string')) as Record<string, string>
          : {},
    },
    sourceFramework: String(get<unknown>('sourceFramework', 'auto') ?? 'auto'),
    language: String(get<unknown>('language', 'auto') ?? 'auto'),
    cfgFilePatterns: strings(get<unknown>('cfgFilePatterns', [])),
    trace: { server: String(get<unknown>('trace.server', 'off') ?? 'off') },
  };
}

export function initializationOptions(get: Getter, locale: string): InitializationOptions {
  return { ...readSettings(get), locale };
}
