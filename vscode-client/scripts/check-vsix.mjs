// Lists a .vsix (zip) and fails when it carries what must not ship:
// node_modules, sources, tests, source maps, or more than MAX_BYTES.
//   node scripts/check-vsix.mjs [FILE.vsix]   (default: nnie-lsp-<version>.vsix in the cwd)
import { readFileSync, statSync } from 'node:fs';

const MAX_BYTES = 1024 * 1024;
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const file = process.argv[2] ?? `${pkg.name}-${pkg.version}.vsix`;
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
const names = [];
for (let i = 0; i < count; i++) {
  if (buf.readUInt32LE(p) !== 0x02014b50) {
    console.error(`${file}: corrupt central directory`);
    process.exit(1);
  }
  const size = buf.readUInt32LE(p + 24);
  const nameLen = buf.readUInt16LE(p + 28);
  const extraLen = buf.readUInt16LE(p + 30);
  const commentLen = buf.readUInt16LE(p + 32);
  names.push([buf.toString('utf8', p + 46, p + 46 + nameLen), size]);
  p += 46 + nameLen + extraLen + commentLen;
}
const forbidden = [/(^|\/)node_modules\//, /^extension\/src\//, /^extension\/test\//, /^extension\/e2e\//, /\.map$/, /\.ts$/, /\.vsix$/];
const required = [
  'extension/package.json',
  'extension/dist/extension.js',
  'extension/syntaxes/prototxt.tmLanguage.json',
  'extension/syntaxes/nnie-cfg.tmLanguage.json',
  'extension/language-configuration/prototxt.json',
  'extension/language-configuration/nnie-cfg.json',
];
const problems = [];
for (const [name] of names) {
  if (forbidden.some((rx) => rx.test(name))) {
    problems.push(`must not ship: ${name}`);
  }
}
for (const r of required) {
  if (!names.some(([n]) => n === r)) {
    problems.push(`missing: ${r}`);
  }
}
const total = statSync(file).size;
if (total > MAX_BYTES) {
  problems.push(`too large: ${total} bytes > ${MAX_BYTES}`);
}
for (const [name, size] of names) {
  console.log(`${String(size).padStart(9)}  ${name}`);
}
console.log(`${names.length} files, ${(total / 1024).toFixed(1)} KB compressed`);
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
