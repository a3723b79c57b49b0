/** Language ids contributed by this extension. */
export const PROTOTXT_LANGUAGE = 'prototxt';
export const NNIE_CFG_LANGUAGE = 'nnie-cfg';

/** Python module that runs the language server (`python -m nnie_lsp`). */
export const SERVER_MODULE = 'nnie_lsp';

/** Keys understood by `nnie_mapper` in `.cfg` files (`[key] value`). */
export const KNOWN_CFG_KEYS: readonly string[] = [
  'prototxt_file',
  'caffemodel_file',
  'net_type',
  'image_list',
  'image_type',
  'norm_type',
  'data_scale',
  'mean_file',
  'batch_num',
  'sparse_rate',
  'compile_mode',
  'compress_mode',
  'max_roi_frame_cnt',
  'roi_coordinate_file',
  'is_simulation',
  'instruction_name',
  'instructions_name',
  'internal_stride',
  'is_check_prototxt',
  'log_level',
  'recurrent_tmax',
  'RGB_order',
  'gfpq_param_file',
];

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
