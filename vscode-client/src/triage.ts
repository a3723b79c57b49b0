/** Pure helpers for the `nnie.runTriage` command (no `vscode` import). */

export interface TriageArguments {
  reference: string;
  sim: string;
  cfg?: string;
  prototxt?: string;
}

export const TRIAGE_COMMAND = 'nnie.triage';

export function buildTriageArguments(reference: string, sim: string, cfg?: string, prototxt?: string): TriageArguments {
  const args: TriageArguments = { reference, sim };
  if (cfg) {
    args.cfg = cfg;
  }
  if (prototxt) {
    args.prototxt = prototxt;
  }
  return args;
}

export interface TriageSummary {
  /** One-line message for the notification. */
  message: string;
  /** Severity of the notification. */
  level: 'info' | 'warning' | 'error';
  /** A report file the user can open, when the server wrote one. */
  reportPath?: string;
  /** Full result, pretty-printed for the output channel. */
  details?: string;
}

const firstString = (obj: Record<string, unknown>, keys: string[]): string | undefined => {
  for (const k of keys) {
    const v = obj[k];
    if (typeof v === 'string' && v.trim() !== '') {
      return v;
    }
  }
  return undefined;
};

/**
 * Turns whatever `workspace/executeCommand nnie.triage` returned into a
 * notification. Accepts a plain string, or an object with `message`/`summary`,
 * optional `ok`/`success`/`level`, `report`/`reportPath`/`report_path`, and
 * optional `first_divergent_layer`/`firstDivergentLayer`.
 */
export function summarizeTriageResult(result: unknown): TriageSummary {
  if (result === null || result === undefined) {
    return { message: 'NNIE triage finished (the server returned no summary).', level: 'info' };
  }
  if (typeof result === 'string') {
    return { message: result, level: 'info' };
  }
  if (typeof result !== 'object' || Array.isArray(result)) {
    return { message: `NNIE triage finished: ${JSON.stringify(result)}`, level: 'info', details: JSON.stringify(result, null, 2) };
  }
  const obj = result as Record<string, unknown>;
  const details = JSON.stringify(result, null, 2);
  const reportPath = firstString(obj, ['reportPath', 'report_path', 'report']);
  const layer = firstString(obj, ['firstDivergentLayer', 'first_divergent_layer']);
  let message = firstString(obj, ['message', 'summary', 'text']);
  if (!message) {
    message = layer ? `NNIE triage: first divergent layer is "${layer}".` : 'NNIE triage finished.';
  }
  let level: TriageSummary['level'] = 'info';
  const declared = firstString(obj, ['level', 'severity']);
  if (declared === 'error' || declared === 'warning' || declared === 'info') {
    level = declared;
  } else if (obj.ok === false || obj.success === false) {
    level = 'error';
  } else if (layer) {
    level = 'warning';
  }
  return { message, level, reportPath, details };
}
