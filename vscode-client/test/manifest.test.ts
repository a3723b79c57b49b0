import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_CFG_FILE_PATTERNS, KNOWN_CFG_KEYS, LOOKALIKE_CFG_KEYS, NNIE_MAPPER_CFG_KEYS } from '../src/constants';
import { firstLineRegexSource } from '../src/sniff';
import { SERVER_COMMANDS } from '../src/triage/model';

const root = join(__dirname, '..', '..');

/** Every .ts file under src/ (its folders included), as one text. */
function clientSources(): string {
  return (readdirSync(join(root, 'src'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(root, 'src', f), 'utf8'))
    .join('\n');
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const props: Record<string, { default?: unknown; enum?: string[] }> = pkg.contributes.configuration.properties;

describe('package.json', () => {
  it('pins @types/vscode to engines.vscode', () => {
    assert.equal(pkg.engines.vscode, '^1.91.0');
    assert.equal(pkg.devDependencies['@types/vscode'], '~1.91.0');
  });
  it('declares both languages with grammars and configurations that exist', () => {
    const ids = pkg.contributes.languages.map((l: { id: string }) => l.id);
    assert.deepEqual(ids.sort(), ['nnie-cfg', 'prototxt']);
    for (const lang of pkg.contributes.languages) {
      JSON.parse(readFileSync(join(root, lang.configuration), 'utf8'));
    }
    for (const g of pkg.contributes.grammars) {
      const grammar = JSON.parse(readFileSync(join(root, g.path), 'utf8'));
      assert.equal(grammar.scopeName, g.scopeName);
    }
    const proto = pkg.contributes.languages.find((l: { id: string }) => l.id === 'prototxt');
    assert.deepEqual(proto.extensions, ['.prototxt']);
  });
  it('uses the same firstLine regex and keys as the sniffer', () => {
    const cfg = pkg.contributes.languages.find((l: { id: string }) => l.id === 'nnie-cfg');
    assert.equal(cfg.firstLine, firstLineRegexSource());
    const rx = new RegExp(cfg.firstLine);
    for (const key of KNOWN_CFG_KEYS) {
      assert.ok(rx.test(`[${key}] 1`), key);
    }
    assert.ok(!rx.test('# [net_type] 0'));
    assert.ok(!rx.test('[metadata]'));
    const grammar = JSON.parse(readFileSync(join(root, 'syntaxes/nnie-cfg.tmLanguage.json'), 'utf8'));
    const begin: string = grammar.repository.entry.begin;
    assert.ok(begin.includes(`(${NNIE_MAPPER_CFG_KEYS.join('|')})`), 'cfg grammar lists the mapper keys in order');
    assert.ok(begin.includes(`(${LOOKALIKE_CFG_KEYS.join('|')})`), 'cfg grammar lists the look-alike keys in order');
  });
  it('generated key lists: known = mapper keys + look-alikes, no duplicates, the RuyiStudio labels included', () => {
    assert.deepEqual([...KNOWN_CFG_KEYS], [...NNIE_MAPPER_CFG_KEYS, ...LOOKALIKE_CFG_KEYS]);
    assert.equal(new Set(KNOWN_CFG_KEYS).size, KNOWN_CFG_KEYS.length);
    for (const key of ['instruction_name', 'instructions_name', 'gfpq_param_file', 'RGB_order']) {
      assert.ok(NNIE_MAPPER_CFG_KEYS.includes(key), key);
    }
    for (const key of ['align_bytes', 'marked_prototxt', 'output_wk_name', 'insert_op_conf']) {
      assert.ok(LOOKALIKE_CFG_KEYS.includes(key), key);
    }
  });
  it('contributes every nnie.* setting the brief asks for, with matching defaults', () => {
    for (const key of [
      'nnie.server.command',
      'nnie.interpreter',
      'nnie.lint.run',
      'nnie.lint.select',
      'nnie.lint.ignore',
      'nnie.lint.severity',
      'nnie.sourceFramework',
      'nnie.language',
      'nnie.cfgFilePatterns',
      'nnie.trace.server',
    ]) {
      assert.ok(props[key], key);
    }
    assert.deepEqual(props['nnie.cfgFilePatterns'].default, [...DEFAULT_CFG_FILE_PATTERNS]);
    assert.equal(props['nnie.lint.select'].default, null, 'unset select means the default rules, [] would select none');
    assert.deepEqual(props['nnie.lint.run'].enum, ['onType', 'onSave']);
    assert.equal(props['nnie.lint.run'].default, 'onType');
    assert.deepEqual(props['nnie.trace.server'].enum, ['off', 'messages', 'verbose']);
    assert.deepEqual(props['nnie.language'].enum, ['auto', 'en', 'zh-cn']);
    assert.deepEqual(props['nnie.sourceFramework'].enum, ['auto', 'caffe', 'darknet', 'mxnet', 'pytorch', 'onnx', 'tensorflow']);
  });
  it('the name patterns in package.json agree with the default setting', () => {
    const cfg = pkg.contributes.languages.find((l: { id: string }) => l.id === 'nnie-cfg');
    assert.deepEqual(cfg.filenamePatterns, DEFAULT_CFG_FILE_PATTERNS.map((p) => p.replace('**/', '')));
  });
  it('contributes and the code registers the same commands', () => {
    const contributed = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
    assert.deepEqual(contributed, [
      'nnie.clearTriage',
      'nnie.fixAll',
      'nnie.openWk',
      'nnie.restartServer',
      'nnie.runEmulate',
      'nnie.runReference',
      'nnie.runTriage',
      'nnie.showOutput',
      'nnie.showTriageReport',
      'nnie.triageApplyFixes',
    ]);
    const src = clientSources();
    for (const c of contributed) {
      assert.ok(src.includes(`registerCommand('${c}'`), c);
    }
  });
  it('never registers or contributes a command id the server announces (vscode-languageclient registers those)', () => {
    const src = clientSources();
    const contributed = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
    for (const id of Object.values(SERVER_COMMANDS)) {
      assert.ok(!src.includes(`registerCommand('${id}'`), id);
      assert.ok(!contributed.has(id), `${id} is not a palette command`);
    }
  });
  it('palette titles are the ones the client README lists', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const c of pkg.contributes.commands as Array<{ command: string; title: string; category: string }>) {
      const row = `**${c.category}: ${c.title}** (\`${c.command}\`)`;
      assert.ok(readme.includes(row), `README lacks ${row}`);
    }
  });
  it('settings that name programs work from every scope, but not from an untrusted workspace', () => {
    for (const key of ['nnie.server.command', 'nnie.interpreter', 'nnie.server.importStrategy']) {
      assert.equal((props[key] as { scope?: string }).scope, 'resource', `${key}: machine scopes are ignored in User settings of remote windows (code-server)`);
    }
    assert.deepEqual(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations, ['nnie.server.command', 'nnie.interpreter']);
    assert.deepEqual(props['nnie.server.importStrategy'].enum, ['useBundled', 'fromEnvironment']);
    for (const key of ['nnie.triage.referenceFolder', 'nnie.triage.simFolder', 'nnie.triage.sim16Folder']) {
      assert.equal(props[key].default, '', key);
    }
  });
  it('ships a .vscodeignore that keeps node_modules, sources and maps out', () => {
    const ignore = readFileSync(join(root, '.vscodeignore'), 'utf8').split(/\r?\n/);
    for (const entry of ['node_modules/**', 'src/**', '**/*.map', 'e2e/**', 'test/**', 'bundled/**/__pycache__/**']) {
      assert.ok(ignore.includes(entry), entry);
    }
    assert.ok(!ignore.some((line) => /^bundled\/?(\*\*)?$/.test(line.trim())), 'bundled/ ships');
  });
});
