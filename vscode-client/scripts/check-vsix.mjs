// Lists a .vsix (zip) and fails when it carries what must not ship (node_modules, sources, tests,
// source maps, Python bytecode caches), lacks what must (the extension, the grammars, the bundled
// server: launcher, wheel, libraries, numpy for every bundled CPython on a platform target), or is
// larger than its target allows.
//   node scripts/check-vsix.mjs FILE.vsix [--target linux-x64|...|universal]
import { readFileSync, statSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

const args = process.argv.slice(2);
const target = args.includes('--target') ? args[args.indexOf('--target') + 1] : 'universal';
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const file = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--target') ?? `${pkg.name}-${pkg.version}.vsix`;
// Universal: pure-Python libraries only. Platform: numpy for five CPython versions (~16 MB each),
// plus OpenCV (~57 MB; the extra reference, bundled by default), plus onnx + onnxruntime (~150 MB)
// with --with-onnx.
const MAX_MB = { universal: 12, platform: 120, opencv: 70, onnx: 170 };

const buf = readFileSync(file);
// End of central directory record: signature 0x06054b50 within the last 64 KiB.
let eocd = -1;
for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); i--) {
  if (buf.readUInt32LE(i) === 0x06054b50) {
    eocd = i;
    break;
  }
}
if (eocd < 0) {
  console.error(`${file}: not a zip file`);
  process.exit(1);
}
const count = buf.readUInt16LE(eocd + 10);
let p = buf.readUInt32LE(eocd + 16);
const entries = [];
for (let i = 0; i < count; i++) {
  if (buf.readUInt32LE(p) !== 0x02014b50) {
    console.error(`${file}: corrupt central directory`);
    process.exit(1);
  }
  const method = buf.readUInt16LE(p + 10);
  const compressed = buf.readUInt32LE(p + 20);
  const size = buf.readUInt32LE(p + 24);
  const nameLen = buf.readUInt16LE(p + 28);
  const extraLen = buf.readUInt16LE(p + 30);
  const commentLen = buf.readUInt16LE(p + 32);
  const offset = buf.readUInt32LE(p + 42);
  entries.push({ name: buf.toString('utf8', p + 46, p + 46 + nameLen), size, compressed, method, offset });
  p += 46 + nameLen + extraLen + commentLen;
}
const names = entries.map((e) => e.name);

function read(name) {
  const e = entries.find((x) => x.name === name);
  if (!e) {
    return undefined;
  }
  const start = e.offset + 30 + buf.readUInt16LE(e.offset + 26) + buf.readUInt16LE(e.offset + 28);
  const data = buf.subarray(start, start + e.compressed);
  return (e.method === 8 ? inflateRawSync(data) : data).toString('utf8');
}

const forbidden = [/(^|\/)node_modules\//, /^extension\/src\//, /^extension\/test\//, /^extension\/e2e\//, /^extension\/scripts\//, /\.map$/, /^extension\/[^/]*\.ts$/, /^extension\/(src|dist)\/.*\.ts$/, /\.vsix$/, /__pycache__\//, /\.pyc$/];
const required = [
  'extension/package.json',
  'extension/dist/extension.js',
  'extension/syntaxes/prototxt.tmLanguage.json',
  'extension/syntaxes/nnie-cfg.tmLanguage.json',
  'extension/language-configuration/prototxt.json',
  'extension/language-configuration/nnie-cfg.json',
  'extension/bundled/tool/launch.py',
  'extension/bundled/manifest.json',
  'extension/bundled/libs/nnie_lsp/__init__.py',
  'extension/bundled/libs/nnie_lsp/__main__.py',
  'extension/bundled/libs/pygls/__init__.py',
  'extension/bundled/libs/lsprotocol/types.py',
  'extension/bundled/libs/lark/__init__.py',
  'extension/bundled/libs/google/protobuf/__init__.py',
];
const problems = [];
for (const name of names) {
  if (forbidden.some((rx) => rx.test(name))) {
    problems.push(`must not ship: ${name}`);
  }
}
for (const r of required) {
  if (!names.includes(r)) {
    problems.push(`missing: ${r}`);
  }
}
const manifest = JSON.parse(read('extension/bundled/manifest.json') ?? '{}');
if (manifest.target !== target) {
  problems.push(`bundled/manifest.json is for target ${manifest.target}, the VSIX for ${target}`);
}
if (!names.some((n) => /^extension\/bundled\/wheels\/nnie_lsp-[^/]+-py3-none-any\.whl$/.test(n))) {
  problems.push('missing: the nnie_lsp wheel in bundled/wheels/');
}
// pip, run from its wheel: installs what the VSIX lacks into the extension's folder (packageInstall.ts)
if (!manifest.pip_wheel || !names.includes(`extension/bundled/${manifest.pip_wheel}`)) {
  problems.push(`missing: the pip wheel bundled/${manifest.pip_wheel ?? 'wheels/pip-*.whl'} (manifest pip_wheel)`);
}
for (const module of ['numpy', 'cv2']) {
  if (!manifest.module_requirements?.[module]) {
    problems.push(`bundled/manifest.json: no module_requirements.${module} (what the extension installs when it is missing)`);
  }
}
if (manifest.opencv && !names.some((n) => /^extension\/bundled\/libs(-cp\d+)?\/cv2\/__init__\.py$/.test(n))) {
  problems.push('missing: OpenCV (bundled/libs/cv2), which the manifest says is bundled');
}
const vsixManifest = read('extension.vsixmanifest') ?? '';
const declared = /TargetPlatform="([^"]+)"/.exec(vsixManifest)?.[1];
if (target !== 'universal' && declared !== target) {
  problems.push(`extension.vsixmanifest declares target ${declared ?? '(none)'}, expected ${target}`);
}
if (target === 'universal') {
  if (names.some((n) => /\/numpy\//.test(n) || /\.(so|pyd|dylib)$/.test(n))) {
    problems.push('the universal VSIX carries native code');
  }
} else {
  for (const version of manifest.pythons ?? []) {
    const tag = `cp${version.replace('.', '')}`;
    if (!names.some((n) => n.startsWith(`extension/bundled/libs-${tag}/numpy/`) || n.startsWith('extension/bundled/libs/numpy/'))) {
      problems.push(`missing: numpy for Python ${version} (bundled/libs-${tag}/numpy)`);
    }
  }
}
const total = statSync(file).size;
const limit = target === 'universal' ? MAX_MB.universal : MAX_MB.platform + (manifest.opencv ? MAX_MB.opencv : 0) + (manifest.onnx ? MAX_MB.onnx : 0);
if (total > limit * 1024 * 1024) {
  problems.push(`too large: ${(total / 2 ** 20).toFixed(1)} MiB > ${limit} MiB`);
}
// Summary by top folder (the full list of a platform VSIX has thousands of files).
const byFolder = new Map();
for (const e of entries) {
  const key = e.name.split('/').slice(0, e.name.startsWith('extension/bundled/') ? 3 : 2).join('/');
  const [n, bytes] = byFolder.get(key) ?? [0, 0];
  byFolder.set(key, [n + 1, bytes + e.size]);
}
for (const [key, [n, bytes]] of [...byFolder].sort()) {
  console.log(`${String(n).padStart(6)} files ${(bytes / 2 ** 20).toFixed(1).padStart(7)} MiB  ${key}`);
}
console.log(`${file}: ${names.length} files, ${(total / 2 ** 20).toFixed(1)} MiB compressed, target ${target}, Python ${(manifest.pythons ?? []).join(', ') || '?'}`);
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
