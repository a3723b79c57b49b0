// Drives code-server in Debian's headless Chromium with playwright-core.
// Started by e2e/run.sh, which installs the toolchain and starts code-server.
//
// Environment:
//   NNIE_E2E_URL        code-server base URL (required)
//   NNIE_E2E_FOLDER     workspace folder to open (required)
//   NNIE_E2E_MODE       "full" (default), "smoke" or "universal" (the universal VSIX: the startup
//                       "Install numpy" offer is taken before the lint steps, then e2e/universal.mjs)
//   NNIE_E2E_PROTOTXT   prototxt opened with Ctrl+P          (default model.prototxt)
//   NNIE_E2E_CFG        cfg opened to check the nnie-cfg language (default: first *.cfg in the folder)
//   NNIE_E2E_EXPECT     expected codes and counts, e.g. "NN301" or "NN301=1,NN123=2" (default NN301;
//                       a code without "=n" must be shown exactly once: no push+pull duplicates)
//   NNIE_E2E_FIX_CODE   code whose quick fix is applied      (default NN301)
//   NNIE_E2E_FIX_TITLE  text in the quick fix title          (default De-inplace)
//   NNIE_E2E_SCREENS    screenshot directory                 (default ./screens)
//   NNIE_E2E_TOOLS      npm prefix holding playwright-core   (default: resolve from here)
//   NNIE_E2E_CHROMIUM   browser executable                   (default /usr/bin/chromium)
//   NNIE_E2E_TIMEOUT    seconds to wait for diagnostics      (default 90)
//   NNIE_E2E_TRIAGE     "0" skips the triage scenario (e2e/triage.mjs; needs a triage/ copy of
//                       examples/triage in the folder, which run.sh makes)
//   NNIE_E2E_EXPECT_LOG regular expression the extension's NNIE log must match (run.sh: the
//                       interpreter read from User settings and the bundled server)
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { triageScenario } from './triage.mjs';
import { installNumpyAtStartup, universalScenario } from './universal.mjs';
import { wkScenario } from './wk.mjs';

const env = process.env;
const URL_BASE = env.NNIE_E2E_URL;
const FOLDER = env.NNIE_E2E_FOLDER;
const MODE = env.NNIE_E2E_MODE ?? 'full';
const PROTOTXT = env.NNIE_E2E_PROTOTXT ?? 'model.prototxt';
const FIX_CODE = env.NNIE_E2E_FIX_CODE ?? 'NN301';
const FIX_TITLE = env.NNIE_E2E_FIX_TITLE ?? 'De-inplace';
const SCREENS = env.NNIE_E2E_SCREENS ?? join(process.cwd(), 'screens');
const CHROMIUM = env.NNIE_E2E_CHROMIUM ?? '/usr/bin/chromium';
const DIAG_TIMEOUT = Number(env.NNIE_E2E_TIMEOUT ?? 90) * 1000;
const EXPECT = parseExpect(env.NNIE_E2E_EXPECT ?? 'NN301');

if (!URL_BASE || !FOLDER) {
  console.error('drive.mjs: NNIE_E2E_URL and NNIE_E2E_FOLDER are required (run e2e/run.sh)');
  process.exit(2);
}

function parseExpect(spec) {
  const out = new Map();
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [code, n] = part.split('=');
    out.set(code.trim(), n === undefined ? 1 : Number(n));
  }
  return out;
}

const requireFrom = createRequire(env.NNIE_E2E_TOOLS ? join(env.NNIE_E2E_TOOLS, 'package.json') : import.meta.url);
const { chromium } = requireFrom('playwright-core');

const t0 = Date.now();
const since = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const log = (msg) => console.log(`[drive ${since()}] ${msg}`);
class Failure extends Error {}
const fail = (msg) => {
  throw new Failure(msg);
};

mkdirSync(SCREENS, { recursive: true });
for (const f of readdirSync(SCREENS)) {
  if (f.endsWith('.png')) rmSync(join(SCREENS, f));
}
let shot = 0;
async function screenshot(page, name) {
  shot += 1;
  const file = join(SCREENS, `${String(shot).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file }).catch((e) => log(`screenshot ${name} failed: ${e.message}`));
  log(`screenshot ${file}`);
}

const norm = (s) => (s ?? '').replace(/\u00a0/g, ' ');

async function waitFor(what, fn, timeoutMs, intervalMs = 250) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      if (e instanceof Failure) throw e;
      last = e;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  fail(`timed out after ${(timeoutMs / 1000).toFixed(0)} s waiting for ${what}${last instanceof Error ? ` (${last.message})` : ''}`);
}

async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.press('Enter');
}

async function quickOpen(page, fileName) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(fileName);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: fileName }).first();
  await row.waitFor({ state: 'visible', timeout: 30000 });
  await page.keyboard.press('Enter');
  await waitFor(
    `an editor tab for ${fileName}`,
    async () => (await page.locator('.tabs-container .tab.active', { hasText: fileName }).count()) > 0,
    20000,
  );
  // Let the editor render and take focus.
  await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().waitFor({ timeout: 20000 });
}

async function editorText(page) {
  return norm(await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText());
}

async function languageMode(page) {
  const el = page.locator('#status\\.editor\\.mode');
  return (await el.count()) ? norm(await el.first().innerText()).trim() : '';
}

async function notifications(page) {
  const toasts = page.locator('.notifications-toasts .notification-list-item');
  const out = [];
  for (let i = 0; i < (await toasts.count()); i++) out.push(norm(await toasts.nth(i).innerText()).replace(/\s+/g, ' ').trim());
  return out;
}

/** The extension's "NNIE" log file written by VS Code (user-data/logs/SESSION/exthostN/nnie-lsp.nnie-lsp/NNIE.log). */
function nnieLogFile() {
  const root = env.NNIE_E2E_RUN ? join(env.NNIE_E2E_RUN, 'user-data', 'logs') : undefined;
  if (!root || !existsSync(root)) return undefined;
  const found = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'NNIE.log' && p.includes('nnie-lsp.nnie-lsp')) found.push(p);
    }
  };
  walk(root);
  return found.sort().pop();
}

async function openOutput(page) {
  await runCommand(page, 'NNIE: Show Output');
  const panel = page.locator('.part.panel');
  // The Output view shows the NNIE channel (selected in its drop-down) with log lines in it.
  const text = await waitFor(
    'the NNIE output channel in the Output view',
    async () => {
      const selected = await panel.locator('select.monaco-select-box, .monaco-select-box').first().evaluate((el) => el.value ?? el.textContent ?? '').catch(() => '');
      const title = norm(await panel.innerText().catch(() => ''));
      const lines = norm(await panel.locator('.monaco-editor .view-lines').first().innerText().catch(() => ''));
      return /NNIE/.test(`${selected} ${title}`) && /\[(info|error|warning|trace)\]/.test(lines) ? lines : undefined;
    },
    30000,
  );
  const file = nnieLogFile();
  const content = file ? readFileSync(file, 'utf8') : '';
  if (file && !/NNIE extension .* activated/.test(content)) fail(`${file} lacks the activation line`);
  return { view: text, file, content };
}

async function nnieStatusItem(page) {
  const items = page.locator('.statusbar-item');
  for (let i = 0; i < (await items.count()); i++) {
    const text = norm(await items.nth(i).innerText()).trim();
    if (/^\S*\s*NNIE$/.test(text) || text === 'NNIE') {
      return { text, label: (await items.nth(i).getAttribute('aria-label')) ?? '' };
    }
  }
  return undefined;
}

async function problemsStatus(page) {
  const el = page.locator('#status\\.problems');
  if (!(await el.count())) return { text: '', total: 0 };
  const label = (await el.first().getAttribute('aria-label')) ?? norm(await el.first().innerText());
  const nums = [...label.matchAll(/(\d+)/g)].map((m) => Number(m[1]));
  return { text: label, total: nums.reduce((a, b) => a + b, 0) };
}

/** Marker rows of the Problems panel: { text, code, line, col }. */
async function readProblems(page) {
  const panel = page.locator('.markers-panel');
  if (!(await panel.count()) || !(await panel.first().isVisible())) {
    await page.locator('#status\\.problems').first().click();
    await panel.first().waitFor({ state: 'visible', timeout: 10000 });
  }
  const rows = panel.locator('.monaco-list-row');
  const out = [];
  for (let i = 0; i < (await rows.count()); i++) {
    const text = norm(await rows.nth(i).innerText()).replace(/\s+/g, ' ').trim();
    const pos = /\[Ln (\d+), Col (\d+)\]/.exec(text);
    if (!pos) continue; // a file row
    if (/^\S+ \[Ln \d+, Col \d+\] ?:/.test(text)) continue; // a related-information row under a problem
    const code = /\b(NN\d{3,4})\b/.exec(text)?.[1];
    out.push({ text, code, line: Number(pos[1]), col: Number(pos[2]) });
  }
  return out;
}

const countCode = (problems, code) => problems.filter((p) => p.code === code).length;

async function main() {
  const profile = mkdtempSync(join(tmpdir(), 'nnie-e2e-chromium-'));
  log(`mode=${MODE} folder=${FOLDER} prototxt=${PROTOTXT} expect=${[...EXPECT].map(([c, n]) => `${c}=${n}`).join(',')}`);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1600, height: 1000 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  // the universal scenario reads what "Copy Command" put on the clipboard
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: URL_BASE }).catch((e) => log(`clipboard permissions: ${e.message}`));
  const page = context.pages()[0] ?? (await context.newPage());
  const consoleErrors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  let ok = false;
  try {
    await page.goto(`${URL_BASE}/?folder=${encodeURIComponent(FOLDER)}`, { waitUntil: 'domcontentloaded', timeout: 60000 });
    await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
    await page.locator('#workbench\\.parts\\.statusbar').waitFor({ timeout: 60000 });
    await waitFor('the explorer to list the folder', async () => (await page.locator('.explorer-folders-view .monaco-list-row').count()) > 0, 60000);
    log('workbench loaded');
    await screenshot(page, 'workbench');

    await quickOpen(page, PROTOTXT);
    log(`opened ${PROTOTXT}; language mode "${await languageMode(page)}"`);
    const mode = await languageMode(page);
    if (!/prototxt/i.test(mode)) fail(`${PROTOTXT} opened in language "${mode}", expected Caffe prototxt`);

    if (MODE === 'smoke') {
      const status = await waitFor('the NNIE status bar item', () => nnieStatusItem(page), 30000);
      log(`status bar item: "${status.text}" (${status.label.split('\n')[0]})`);
      // The server may or may not be importable yet; show what the extension reported.
      await new Promise((r) => setTimeout(r, 3000));
      for (const n of await notifications(page)) log(`notification: ${n}`);
      await screenshot(page, 'prototxt-opened');
      const out = await openOutput(page);
      log(`NNIE output channel (visible part):\n${out.view.split('\n').map((l) => `    ${l}`).join('\n')}`);
      if (out.file) log(`NNIE output channel (${out.file}, first lines):\n${out.content.split('\n').slice(0, 6).map((l) => `    ${l}`).join('\n')}`);
      await screenshot(page, 'nnie-output');
    } else {
      if (MODE === 'universal') {
        // U1: the universal VSIX has no numpy: the offer to install it, the click, the restart
        await installNumpyAtStartup(page, { log, fail, screenshot, waitFor, norm, runCommand, notifications, nnieLogFile, nnieStatusItem });
      }
      // 1. diagnostics arrive (squiggles), the Problems panel lists each expected code the expected number of times
      await waitFor(
        'squiggles in the editor',
        async () => {
          if ((await page.locator('.editor-group-container.active .squiggly-error, .editor-group-container.active .squiggly-warning, .editor-group-container.active .squiggly-info').count()) > 0) {
            return true;
          }
          const status = await nnieStatusItem(page);
          if (status && /error/i.test(status.label)) {
            const out = nnieLogFile();
            fail(`the NNIE language server is in error: ${(await notifications(page)).join(' | ') || status.label}` +
              (out ? `\n--- ${out} ---\n${readFileSync(out, 'utf8').split('\n').slice(-15).join('\n')}` : ''));
          }
          return false;
        },
        DIAG_TIMEOUT,
      );
      log('squiggles shown');
      await new Promise((r) => setTimeout(r, 1500)); // let late (duplicate) publications land
      await screenshot(page, 'squiggles');
      let problems = await readProblems(page);
      const status = await problemsStatus(page);
      log(`Problems panel (${problems.length} rows; status bar "${status.text}"):\n${problems.map((p) => `    ${p.text}`).join('\n')}`);
      await screenshot(page, 'problems');
      // The client must hand the server a settings object it accepts.
      const settingsErrors = (await notifications(page)).filter((n) => /invalid settings|unknown setting/i.test(n));
      if (settingsErrors.length) fail(`the server rejected the client's settings: ${settingsErrors.join(' | ')}`);
      for (const [code, n] of EXPECT) {
        const got = countCode(problems, code);
        if (got !== n) fail(`Problems panel shows ${code} ${got} time(s), expected ${n}${got === 2 * n ? ' (pushed and pulled?)' : ''}`);
      }
      if (status.total && status.total !== problems.length) {
        fail(`status bar counts ${status.total} problems but the panel lists ${problems.length}`);
      }
      // 2. quick fix
      const target = problems.find((p) => p.code === FIX_CODE);
      if (!target) fail(`no ${FIX_CODE} problem to fix`);
      const before = await editorText(page);
      const beforeCount = countCode(problems, FIX_CODE);
      await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
      await page.keyboard.press('Control+G');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 10000 });
      // Ctrl+G opens quick access with the ":" (go to line) prefix already typed; fill() replaces it.
      await input.fill(`:${target.line}:${target.col}`);
      await page.locator('.quick-input-widget', { hasText: new RegExp(`line ${target.line}`, 'i') }).first().waitFor({ timeout: 5000 }).catch(() => undefined);
      await page.keyboard.press('Enter');
      await page.waitForTimeout(300);
      await page.keyboard.press('Control+.');
      const widget = page.locator('.action-widget, .context-view .monaco-list');
      await widget.first().waitFor({ state: 'visible', timeout: 15000 });
      await page.waitForTimeout(300);
      const items = widget.first().locator('.monaco-list-row');
      const titles = [];
      for (let i = 0; i < (await items.count()); i++) titles.push(norm(await items.nth(i).innerText()).replace(/\s+/g, ' ').trim());
      log(`quick fixes at ${target.line}:${target.col}: ${JSON.stringify(titles)}`);
      await screenshot(page, 'quick-fix-menu');
      const index = titles.findIndex((t) => t.includes(FIX_TITLE));
      if (index < 0) fail(`no quick fix titled "${FIX_TITLE}" at line ${target.line} (got ${JSON.stringify(titles)})`);
      const focused = await widget.first().locator('.monaco-list-row.focused').first().innerText().catch(() => '');
      if (norm(focused).includes(FIX_TITLE)) {
        await page.keyboard.press('Enter');
      } else {
        await items.nth(index).click();
      }
      const after = await waitFor('the quick fix to change the text', async () => {
        const t = await editorText(page);
        return t !== before ? t : undefined;
      }, 15000);
      log('text changed by the quick fix');
      problems = await waitFor(`${FIX_CODE} to disappear from the Problems panel`, async () => {
        const p = await readProblems(page);
        return countCode(p, FIX_CODE) < beforeCount ? p : undefined;
      }, DIAG_TIMEOUT);
      log(`after the fix: ${countCode(problems, FIX_CODE)} x ${FIX_CODE}; ${problems.length} problem(s) left`);
      log(`${after.split('\n').length} visible lines after the fix (was ${before.split('\n').length})`);
      await screenshot(page, 'after-fix');
      const statusItem = await nnieStatusItem(page);
      log(`status bar item: "${statusItem?.text ?? '(none)'}"`);
    }

    // 3. a cfg file is claimed as nnie-cfg (by name pattern or by content)
    const cfg = env.NNIE_E2E_CFG ?? readdirSync(FOLDER).find((f) => f.endsWith('.cfg'));
    if (cfg) {
      await quickOpen(page, basename(cfg));
      const cfgMode = await waitFor(`${cfg} to switch to the NNIE mapper cfg language`, async () => {
        const m = await languageMode(page);
        return /NNIE mapper cfg/.test(m) ? m : undefined;
      }, 15000);
      log(`${cfg}: language mode "${cfgMode}"`);
      await screenshot(page, 'cfg');
    }
    // 4. where the server came from: the log names the interpreter's settings scope and the bundle
    if (env.NNIE_E2E_EXPECT_LOG) {
      const file = nnieLogFile();
      const content = file ? readFileSync(file, 'utf8') : '';
      if (!new RegExp(env.NNIE_E2E_EXPECT_LOG, 'm').test(content)) {
        fail(`the NNIE log does not match /${env.NNIE_E2E_EXPECT_LOG}/:\n${content.split('\n').slice(0, 20).join('\n')}`);
      }
      log(`NNIE log (how the server was started):\n${content.split('\n').filter((l) => /nnie\.interpreter|bundled|Interpreter |Server command/.test(l)).map((l) => `    ${l}`).join('\n')}`);
    }
    // 5. triage: palette command, notification, fix from the Problems panel, report from the lens
    if (MODE === 'full' && env.NNIE_E2E_TRIAGE !== '0' && existsSync(join(FOLDER, 'triage'))) {
      await triageScenario(page, { log, fail, screenshot, waitFor, norm, runCommand, notifications, readProblems, editorText, languageMode });
    }
    // 6. the compiled model: the .wk's view, the cfg's lens and cross-check finding
    if (MODE !== 'smoke' && existsSync(join(FOLDER, 'wk'))) {
      await wkScenario(page, { log, fail, screenshot, waitFor, norm, runCommand, notifications, readProblems, editorText, languageMode });
    }
    if (MODE === 'universal') {
      await universalScenario(page, { log, fail, screenshot, waitFor, norm, runCommand, notifications, readProblems, editorText, languageMode, nnieLogFile, nnieStatusItem });
    }
    ok = true;
  } catch (e) {
    await screenshot(page, 'failure');
    for (const n of await notifications(page).catch(() => [])) log(`notification: ${n}`);
    const errors = consoleErrors.filter((e) => !/spdlog|bindings file|vsda/.test(e)).map((e) => e.replace(/\s+/g, ' ').slice(0, 300));
    if (errors.length) log(`browser console errors (last 5):\n    ${errors.slice(-5).join('\n    ')}`);
    console.error(`drive.mjs: FAIL: ${e instanceof Failure ? e.message : e?.stack ?? e}`);
  } finally {
    await context.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
  log(ok ? 'PASS' : 'FAIL');
  process.exit(ok ? 0 : 1);
}

main().catch((e) => {
  console.error(`drive.mjs: ${e?.stack ?? e}`);
  process.exit(1);
});
