/** Language ids contributed by this extension. */
export const PROTOTXT_LANGUAGE = 'prototxt';
export const NNIE_CFG_LANGUAGE = 'nnie-cfg';

/** Python module that runs the language server (`python -m nnie_lsp`). */
export const SERVER_MODULE = 'nnie_lsp';

/**
 * cfg keys, generated from the server's key table (nnie_lsp/readers/cfg/keys.py) by
 * scripts/gen_client_keys.py, which also writes the package.json firstLine
 * pattern and the cfg grammar's key rule.
 */
export { KNOWN_CFG_KEYS, LOOKALIKE_CFG_KEYS, NNIE_MAPPER_CFG_KEYS } from './cfgKeys';

/** Default of the `nnie.cfgFilePatterns` setting. */
export const DEFAULT_CFG_FILE_PATTERNS: readonly string[] = [
  '**/*_inst.cfg',
  '**/*_func.cfg',
  '**/nnie*.cfg',
];

/** Languages VS Code may give a `.cfg` file before we claim it. */
export const CLAIMABLE_LANGUAGES: readonly string[] = ['properties', 'plaintext', 'ini'];

/** How many non-comment lines of a `.cfg` file are inspected when sniffing. */
export const SNIFF_LINES = 50;
