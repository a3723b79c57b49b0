/**
 * The server bundled inside the extension (pure: only `node:fs` / `node:path`).
 *
 * `bundled/` is written by scripts/bundle_server.py at packaging time: `tool/launch.py` (checked
 * in), `libs/` and `libs-cpXY/` (the server and its dependencies), `wheels/nnie_lsp-*.whl` and
 * `manifest.json`. A development build without `libs/` still has the launcher, which then runs
 * the environment's own nnie-lsp.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BundleManifest {
  target?: string;
  nnie_lsp?: string;
  wheel?: string;
  pythons?: string[];
  opencv?: boolean;
  onnx?: boolean;
  extras?: string[];
  per_version?: string[];
  /** `wheels/pip-*.whl`: pip, run from the wheel to install into the extension's folder. */
  pip_wheel?: string;
  /** Requirement of each module the extension may install (`numpy`, `cv2`, …), as nnie-lsp declares it. */
  module_requirements?: Record<string, string>;
}

export interface BundleInfo {
  /** `<extension>/bundled` */
  root: string;
  /** `<extension>/bundled/tool/launch.py`, when present. */
  launcher?: string;
  /** The nnie_lsp wheel shipped for `python -m pip install <wheel>`, when present. */
  wheel?: string;
  /** The pip wheel shipped for installing into the extension's own folder (packageInstall.ts). */
  pipWheel?: string;
  /** True when `bundled/libs` exists: the VSIX carries the server. */
  hasLibs: boolean;
  manifest: BundleManifest;
}

export function readBundle(extensionPath: string): BundleInfo {
  const root = join(extensionPath, 'bundled');
  const launcher = join(root, 'tool', 'launch.py');
  let manifest: BundleManifest = {};
  try {
    manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8')) as BundleManifest;
  } catch {
    // no manifest: a development build
  }
  let wheel = manifest.wheel ? join(root, manifest.wheel) : undefined;
  if (!wheel || !existsSync(wheel)) {
    const wheels = join(root, 'wheels');
    const found = existsSync(wheels) ? readdirSync(wheels).filter((f) => /^nnie_lsp-.*\.whl$/.test(f)).sort() : [];
    wheel = found.length ? join(wheels, found[found.length - 1]) : undefined;
  }
  const pipWheel = manifest.pip_wheel && existsSync(join(root, manifest.pip_wheel)) ? join(root, manifest.pip_wheel) : undefined;
  return {
    root,
    launcher: existsSync(launcher) ? launcher : undefined,
    wheel,
    pipWheel,
    hasLibs: existsSync(join(root, 'libs')),
    manifest,
  };
}

/** One line for the log: what this VSIX carries. */
export function describeBundle(bundle: BundleInfo): string {
  if (!bundle.hasLibs) {
    return 'this build of the extension carries no server (bundled/libs is missing): the interpreter\'s own nnie-lsp runs';
  }
  const m = bundle.manifest;
  const pythons = m.pythons?.length ? ` for Python ${m.pythons.join(', ')}` : '';
  const extras = m.extras ?? (m.opencv ? ['reference'] : []);
  return `bundled nnie-lsp ${m.nnie_lsp ?? '?'} (${m.target ?? 'unknown target'}${pythons}${extras.length ? `, with the extras ${extras.join(', ')}` : ''})`;
}
