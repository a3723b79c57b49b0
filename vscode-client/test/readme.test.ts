import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The rows of the README's settings table: [setting, default as written]. */
function settingsTable(): Array<[string, string]> {
  const section = readme.split('\n## Settings\n')[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| `(nnie\.[^`]+)` \| `([^`]*)` \|/gm)].map((m) => [m[1], m[2]]);
}

describe('README', () => {
  it('lists every setting package.json contributes, in its order, with its default', () => {
    const contributed = Object.entries(pkg.contributes.configuration.properties as Record<string, { default?: unknown }>);
    const listed = settingsTable();
    assert.deepEqual(listed.map(([k]) => k), contributed.map(([k]) => k));
    for (const [key, written] of listed) {
      const value = contributed.find(([k]) => k === key)![1].default;
      assert.deepEqual(JSON.parse(written), value, key);
    }
  });
  it('lists every command package.json contributes', () => {
    for (const c of pkg.contributes.commands as Array<{ command: string; title: string }>) {
      assert.ok(readme.includes(`**NNIE: ${c.title}** (\`${c.command}\`)`), c.command);
    }
  });
});
