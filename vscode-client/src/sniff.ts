/**
 * Pure logic (no `vscode` import) deciding whether a `.cfg` document is an
 * NNIE mapper configuration, by content and by user-extendable name patterns.
 *
 * What a mapper cfg's line looks like is the server's data, generated into cfgKeys.ts
 * (scripts/gen_client_keys.py): the key line (nnie_lsp/readers/file_kinds.py) and the known keys
 * (nnie_lsp/readers/cfg/keys.py). This file only applies them; the client reads no more than the
 * first SNIFF_LINES lines that are not blank or comments, and matches keys in their exact case.
 * tests/data/cfg_sniff_samples.json holds the inputs both sniffers are checked on.
 */
import { CFG_KEY_LINE } from './cfgKeys';
import { CLAIMABLE_LANGUAGES, KNOWN_CFG_KEYS, SNIFF_LINES } from './constants';

const KNOWN = new Set(KNOWN_CFG_KEYS);
const KEY_LINE = new RegExp(CFG_KEY_LINE);

/**
 * True when any of the first `maxLines` non-blank, non-comment lines of `text`
 * is `[known_key] ...`. Comment lines start with `#` (or `;`, also seen in
 * vendor samples). Accepts a UTF-8 BOM.
 */
export function looksLikeNnieCfg(text: string, maxLines: number = SNIFF_LINES): boolean {
  let seen = 0;
  let start = 0;
  if (text.charCodeAt(0) === 0xfeff) {
    start = 1;
  }
  while (start <= text.length && seen < maxLines) {
    let end = text.indexOf('\n', start);
    if (end < 0) {
      end = text.length;
    }
    const line = text.slice(start, end).replace(/\r$/, '');
    start = end + 1;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) {
      continue;
    }
    seen += 1;
    const m = KEY_LINE.exec(line);
    if (m && KNOWN.has(m[1])) {
      return true;
    }
  }
  return false;
}

/** The `firstLine` regex contributed in package.json (line 1 only). */
export function firstLineRegexSource(keys: readonly string[] = KNOWN_CFG_KEYS): string {
  return `^\\s*\\[(${keys.join('|')})\\]`;
}

/**
 * Converts a VS Code style glob (`**`, `*`, `?`, `{a,b}`, `[abc]`) to a RegExp
 * matched against a `/`-separated path. Patterns without a `/` match the base
 * name only (like `files.associations`).
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let i = 0;
  let inGroup = 0;
  while (i < glob.length) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` matches zero or more directories; a trailing `**` anything.
        i += 2;
        if (glob[i] === '/') {
          i += 1;
          re += '(?:.*/)?';
        } else {
          re += '.*';
        }
        continue;
      }
      re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '{') {
      inGroup += 1;
      re += '(?:';
    } else if (c === '}' && inGroup > 0) {
      inGroup -= 1;
      re += ')';
    } else if (c === ',' && inGroup > 0) {
      re += '|';
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close < 0) {
        re += '\\[';
      } else {
        let body = glob.slice(i + 1, close).replace(/\\/g, '\\\\');
        if (body.startsWith('!')) {
          body = '^' + body.slice(1);
        }
        re += `[${body}]`;
        i = close;
      }
    } else if ('\\^$.|+()'.includes(c) || c === '}' || c === ']') {
      re += '\\' + c;
    } else {
      re += c;
    }
    i += 1;
  }
  return new RegExp(`^${re}$`);
}

/** Normalises an OS path to forward slashes. */
export function toSlashPath(p: string): string {
  return p.replace(/\\/g, '/');
}

/** True when `fsPath` matches any of the glob `patterns`. */
export function matchesAnyPattern(fsPath: string, patterns: readonly string[]): boolean {
  const full = toSlashPath(fsPath);
  const base = full.slice(full.lastIndexOf('/') + 1);
  for (const pattern of patterns) {
    if (typeof pattern !== 'string' || pattern.trim() === '') {
      continue;
    }
    const p = toSlashPath(pattern.trim());
    let rx: RegExp;
    try {
      rx = globToRegExp(p);
    } catch {
      continue;
    }
    if (p.includes('/') ? rx.test(full) || rx.test(full.replace(/^\/+/, '')) : rx.test(base)) {
      return true;
    }
  }
  return false;
}

export interface ClaimInput {
  /** File system path (or URI path) of the document. */
  path: string;
  /** Current language id of the document. */
  languageId: string;
  /** Document text; read lazily only when the name patterns did not match. */
  getText: () => string;
  /** `nnie.cfgFilePatterns`. */
  patterns: readonly string[];
}

export type ClaimReason = 'pattern' | 'content';

/**
 * Decides whether a document should be switched to the `nnie-cfg` language.
 * Only `.cfg` files currently in a generic language (properties, plaintext,
 * ini) are claimed.
 */
export function shouldClaimAsNnieCfg(input: ClaimInput): ClaimReason | undefined {
  if (!/\.cfg$/i.test(input.path)) {
    return undefined;
  }
  if (!CLAIMABLE_LANGUAGES.includes(input.languageId)) {
    return undefined;
  }
  if (matchesAnyPattern(input.path, input.patterns)) {
    return 'pattern';
  }
  if (looksLikeNnieCfg(input.getText())) {
    return 'content';
  }
  return undefined;
}
