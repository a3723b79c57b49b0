// The universal-VSIX scenario of the real VS Code test (run.sh --universal; driven by drive.mjs):
// the universal VSIX (pure Python: no numpy, no OpenCV) installed alone, nnie.interpreter naming a
// bare Python venv (no numpy, no pip). Needs network access to PyPI (the one-click installs).
//   U1. startup: the extension offers "Install numpy" (one warning); click it: pip runs from the
//       VSIX's pip wheel into the extension's folder (globalStorage/python-packages/cpXY-<platform>),
//       the server restarts with that folder on its path (the NNIE log says so), the message says
//       what was installed and no longer asks to "run the command again" when nothing was run;
//   (lint + quick fix on project/model.prototxt: drive.mjs, as in the full run)
//   U2. triage compare on triage/quant_noise/sim.cfg (a copy): case 2 with the 16-bit run, the
//       report opens from the notification and its plot is drawn;
//   U3. "Compute Caffe Reference Dumps…" on triage/fresh/sim.cfg: one error message (not "internal
//       error", not two toasts) with "Install OpenCV"; its "Copy Command" copies the install the
//       button runs (the VSIX's pip wheel, --target the extension's folder: it works without pip),
//       not a pip command the bare venv cannot run; the command again offers it again; "Install
//       OpenCV": installed into the same folder, the server restarts; the command again writes the
//       reference dumps;
//   U4. "Emulate NNIE Simulation Dumps…" (OpenCV from the one-click install), then the triage of
//       fresh/ and its report plot.
// Every step saves a screenshot; steps are checked one by one and the run fails at the end when
// one failed (U1 failing stops the run: nothing after it can work).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { answerPrompts, checkedSteps, triageFreshWithPlot, clickNotificationButton, plotState, quickOpenPath, quickPickRows, webviewFrameWith } from './triage.mjs';

const INSTALL_TIMEOUT = Number(process.env.NNIE_E2E_INSTALL_TIMEOUT ?? 600) * 1000;

/** The folder the extension installs packages into: <user-data>/User/globalStorage/nnie-lsp.nnie-lsp/python-packages/cpXY-*. */
function packagesDirs() {
  const root = process.env.NNIE_E2E_RUN ? join(process.env.NNIE_E2E_RUN, 'user-data', 'User', 'globalStorage', 'nnie-lsp.nnie-lsp', 'python-packages') : '';
  return root && existsSync(root) ? readdirSync(root).map((d) => join(root, d)) : [];
}

/** A visible toast holding `text`, or undefined. */
async function toastWith(page, text) {
  const toast = page.locator('.notifications-toasts .notification-list-item', { hasText: text }).first();
  return (await toast.count()) && (await toast.isVisible().catch(() => false)) ? toast : undefined;
}

/** Clicks `label` on the toast holding `text`; when the toast has gone (hidden after a while), in the notification center. */
async function clickOffered(page, h, text, label) {
  const toast = await toastWith(page, text);
  if (toast) {
    await clickNotificationButton(page, h, toast, label);
    return 'toast';
  }
  await h.runCommand(page, 'Notifications: Show Notifications');
  const item = page.locator('.notifications-center .notification-list-item', { hasText: text }).first();
  await item.waitFor({ state: 'visible', timeout: 10000 });
  await item.locator('.monaco-button', { hasText: label }).first().click();
  return 'notification center';
}

/** Waits for the outcome of an install started by a click: the "installed" message (fails on "failed"). */
async function waitInstalled(page, h, what) {
  const { log, fail, waitFor, notifications, screenshot } = h;
  let progressSeen = false;
  const t0 = Date.now();
  const done = await waitFor(`the "${what} installed" message`, async () => {
    for (const n of await notifications(page)) {
      if (new RegExp(`installing ${what}.*failed`, 'i').test(n)) fail(n);
      if (new RegExp(`${what} installed\\b`).test(n)) return n;
      if (!progressSeen && new RegExp(`installing ${what} into the extension's folder`).test(n)) {
        progressSeen = true;
        log(`install progress: ${n}`);
        await screenshot(page, `installing-${what.toLowerCase()}`);
      }
    }
    return undefined;
  }, INSTALL_TIMEOUT, 500);
  log(`${what} installed after ${((Date.now() - t0) / 1000).toFixed(1)} s: ${done}`);
  if (!progressSeen) log(`note: the install progress notification of ${what} was not caught on screen`);
  return done;
}

function nnieLog(h) {
  const file = h.nnieLogFile();
  return file ? readFileSync(file, 'utf8') : '';
}

async function dismiss(page, text) {
  const toast = await toastWith(page, text);
  if (toast) await toast.locator('.codicon-notifications-clear, .codicon-close').first().click().catch(() => undefined);
}

/** U1: the startup offer of numpy, the install, the restart with the extension's folder. */
export async function installNumpyAtStartup(page, h) {
  const { log, fail, screenshot, waitFor, notifications } = h;
  const offer = await waitFor('the startup offer "Install numpy"', async () => {
    for (const n of await notifications(page)) {
      if (/Install numpy/.test(n)) return n;
      if (/internal error|failed to start|exited during startup/i.test(n)) fail(n);
    }
    return undefined;
  }, 90000);
  log(`startup offer: ${offer}`);
  await screenshot(page, 'offer-install-numpy');
  if (!/accuracy triage needs numpy/.test(offer)) fail(`the offer does not say what needs numpy: ${offer}`);
  if (!/Python 3\.\d+/.test(offer)) fail(`the offer does not name the Python it installs for: ${offer}`);
  if (!/python-packages/.test(offer)) fail(`the offer does not say where it installs: ${offer}`);
  const offers = (await notifications(page)).filter((n) => /Install numpy/.test(n));
  if (offers.length !== 1) fail(`${offers.length} toasts offer numpy (one expected): ${offers.join(' | ')}`);
  if (packagesDirs().some((d) => existsSync(join(d, 'numpy')))) fail('numpy is in the extension folder before the install');
  // the log's warning names the remedy that works (the extension's install), not `-m pip install` in a venv without pip
  const warning = nnieLog(h).split('\n').find((l) => /\[warning\].*accuracy triage needs numpy/.test(l)) ?? '';
  log(`startup log warning: ${warning}`);
  if (!/The extension offers to install numpy.*pip-[^ ]*\.whl\/pip install .*--target/.test(warning) || / -m pip install /.test(warning)) {
    fail(`the startup log does not name the install that works without pip: ${warning || '(no warning line)'}`);
  }
  const where = await clickOffered(page, h, 'Install numpy', 'Install numpy');
  log(`clicked "Install numpy" (${where})`);
  const done = await waitInstalled(page, h, 'numpy');
  if (/Run the command again/.test(done)) fail(`the startup install asks to run a command again although none was run: ${done}`);
  const dirs = packagesDirs().filter((d) => existsSync(join(d, 'numpy')));
  if (!dirs.length) fail(`numpy is not in the extension's folder (${packagesDirs().join(', ') || 'no python-packages folder'})`);
  log(`numpy installed in ${dirs[0]}: ${readdirSync(dirs[0]).filter((f) => /^numpy/.test(f)).join(', ')}`);
  const restarted = await waitFor('the NNIE log to show the restart with the extension\'s folder', async () => {
    const text = nnieLog(h);
    const i = text.indexOf('Installed numpy into');
    if (i < 0) return undefined;
    const after = text.slice(i);
    return /with the packages the extension installed for this Python: .*python-packages/.test(after) && /Server running/.test(after) ? after : undefined;
  }, 60000);
  log(`NNIE log after the install:\n${restarted.split('\n').filter((l) => /Installed numpy|Interpreter |with the packages|Server running|OpenCV/.test(l)).map((l) => `    ${l}`).join('\n')}`);
  const status = await waitFor('the NNIE status item to say running', async () => {
    const s = await h.nnieStatusItem(page);
    return s && /running/.test(s.label) ? s : undefined;
  }, 30000);
  log(`status item: ${status.label.split('\n').slice(0, 2).join(' / ')}`);
  await screenshot(page, 'numpy-installed');
  await dismiss(page, 'numpy installed');
}

/** U2-U4, after the lint steps of drive.mjs. */
export async function universalScenario(page, h) {
  const { log, fail, screenshot, waitFor, runCommand, notifications, languageMode } = h;
  const { results, check } = checkedSteps(page, h);

  // U2. triage compare on the quant_noise copy (numpy from the one-click install)
  await check('triage compare on quant_noise (numpy from the one-click install): case 2, report plot', async () => {
    await quickOpenPath(page, h, 'quant_noise/sim.cfg');
    await waitFor('quant_noise/sim.cfg as an NNIE mapper cfg', async () => /NNIE mapper cfg/.test(await languageMode(page)), 15000);
    await runCommand(page, 'NNIE: Run Accuracy Triage…');
    const rows = await waitFor('the triage inputs picker (quant_noise)', async () => {
      const r = await quickPickRows(page, h);
      return r.some((t) => /Run triage/.test(t)) ? r : undefined;
    }, 30000);
    log(`quant_noise picker:\n${rows.map((r) => `    ${r}`).join('\n')}`);
    await screenshot(page, 'triage-picker');
    await page.keyboard.press('Enter');
    const t0 = Date.now();
    const n = await waitFor('the case-2 notification', async () => {
      for (const x of await notifications(page)) {
        if (/NNIE triage:/.test(x) && /Show Output/.test(x)) return x;
        if (/failed|internal error|No module named/i.test(x)) fail(x);
      }
      return undefined;
    }, 180000);
    log(`quant_noise triage after ${((Date.now() - t0) / 1000).toFixed(1)} s: ${n}`);
    await screenshot(page, 'triage-case2');
    if (!/case 2/i.test(n)) fail(`the notification does not say case 2: ${n}`);
    await clickNotificationButton(page, h, ['Open Report'], 'Open Report');
    await waitFor('the HTML report inside the webview', () => webviewFrameWith(page, 'nnie-triage report'), 30000);
    const plot = await waitFor('the drawn plot (#cosine-plot, data-drawn="true")', async () => {
      const state = await plotState(page);
      return state.drawn ? state : undefined;
    }, 20000);
    log(`report plot drawn: ${plot.text.replace(/\s+/g, ' ').slice(0, 100)}`);
    await screenshot(page, 'triage-report-plot');
  });

  const fresh = process.env.NNIE_E2E_FRESH_DIR;
  if (!fresh || !existsSync(join(fresh, 'sim.cfg'))) fail('NNIE_E2E_FRESH_DIR (fresh/sim.cfg, made by run.sh) is missing');
  const wroteDumps = (folderRx) =>
    readdirSync(fresh).filter((d) => folderRx.test(d)).some((d) => readdirSync(join(fresh, d)).some((f) => /\.(float|hex|npz)$/.test(f)));

  /** Runs a job command on fresh/sim.cfg and waits for its "Run Triage" outcome; `missing` returns the missing-package toast instead when it comes. */
  const runJob = async (command, pick, { offerOk = false } = {}) => {
    await quickOpenPath(page, h, 'fresh/sim.cfg');
    await runCommand(page, command);
    const t0 = Date.now();
    const outcome = await waitFor(`the outcome of ${command}`, async () => {
      await answerPrompts(page, h, pick);
      for (const n of await notifications(page)) {
        if (offerOk && /Install OpenCV/.test(n)) return { kind: 'offer', text: n };
        if (/failed|cannot import|internal error|No module named/i.test(n)) fail(n);
        if (/Run Triage/.test(n) && !/Cancel/.test(n)) return { kind: 'done', text: n };
      }
      return undefined;
    }, 240000);
    log(`${command} after ${((Date.now() - t0) / 1000).toFixed(1)} s: ${outcome.text}`);
    return outcome;
  };

  // U3. reference: OpenCV missing -> one message with "Install OpenCV" -> install -> run again
  await check('reference: "Install OpenCV" offered once, installed by the click, reference dumps written', async () => {
    const first = await runJob('NNIE: Compute Caffe Reference Dumps…', '8-bit', { offerOk: true });
    if (first.kind !== 'offer') fail(`the reference ran without OpenCV in the extension's folder (the universal VSIX carries none): ${first.text}`);
    await page.waitForTimeout(1500); // a second toast for the same event would land now
    const toasts = await notifications(page);
    const about = toasts.filter((n) => /OpenCV|cv2/.test(n));
    log(`missing-OpenCV toasts: ${JSON.stringify(about)}`);
    await screenshot(page, 'offer-install-opencv');
    if (about.length !== 1) fail(`${about.length} toasts about OpenCV (one expected): ${about.join(' | ')}`);
    if (/internal error|Traceback|please report/i.test(about[0])) fail(`the missing package is shown as an internal error: ${about[0]}`);
    if (!/python-packages/.test(about[0])) fail(`the offer does not say where it installs: ${about[0]}`);
    // "Copy Command": the install the button would run, which needs no pip in the interpreter
    await clickOffered(page, h, 'Install OpenCV', 'Copy Command');
    const copied = await waitFor('the copied command on the clipboard', async () => (await page.evaluate(() => navigator.clipboard.readText()).catch(() => '')) || undefined, 10000);
    log(`"Copy Command" copied: ${copied}`);
    if (!/pip-[^ ]*\.whl\/pip install /.test(copied) || !/--target [^ ]*python-packages/.test(copied) || !/opencv-python-headless/.test(copied)) {
      fail(`"Copy Command" copied something else than the install into the extension's folder: ${copied}`);
    }
    const again = await runJob('NNIE: Compute Caffe Reference Dumps…', '8-bit', { offerOk: true });
    if (again.kind !== 'offer') fail(`the second run did not offer OpenCV again: ${again.text}`);
    const where = await clickOffered(page, h, 'Install OpenCV', 'Install OpenCV');
    log(`clicked "Install OpenCV" (${where})`);
    const done = await waitInstalled(page, h, 'OpenCV');
    if (!/Run the command again|Compute Caffe Reference/.test(done)) log(`note: the installed message does not say what to do next: ${done}`);
    const dirs = packagesDirs().filter((d) => existsSync(join(d, 'cv2')));
    if (!dirs.length) fail(`cv2 is not in the extension's folder (${packagesDirs().join(', ')})`);
    if (!existsSync(join(dirs[0], 'numpy'))) fail(`installing OpenCV removed numpy from ${dirs[0]}`);
    log(`cv2 installed in ${dirs[0]}`);
    await screenshot(page, 'opencv-installed');
    await dismiss(page, 'OpenCV installed');
    const second = await runJob('NNIE: Compute Caffe Reference Dumps…', '8-bit');
    if (second.kind !== 'done') fail(`the reference after the install: ${second.text}`);
    if (!wroteDumps(/^output/)) fail(`no reference dumps beside fresh/sim.cfg (folders: ${readdirSync(fresh).join(', ')})`);
    await screenshot(page, 'reference-done');
    await dismiss(page, 'Run Triage');
  });

  // U4. emulation and the triage of what it wrote
  await check('emulate 8-bit (OpenCV from the one-click install), triage of fresh/, report plot', async () => {
    const job = await runJob('NNIE: Emulate NNIE Simulation Dumps…', /8-bit|fed transposed/);   // the example's card: MTCNN is fed transposed
    if (job.kind !== 'done') fail(job.text);
    if (!wroteDumps(/^mapper_quant/)) fail(`no emulated dumps beside fresh/sim.cfg (folders: ${readdirSync(fresh).join(', ')})`);
    await screenshot(page, 'emulate-done');
    await dismiss(page, 'Run Triage');
    await triageFreshWithPlot(page, h, 180000);
  });

  log(`universal steps:\n${results.map((r) => `    ${r.ok ? 'PASS' : 'FAIL'}  ${r.name} (${r.seconds.toFixed(1)} s)${r.ok ? '' : `: ${r.why}`}`).join('\n')}`);
  const failed = results.filter((r) => !r.ok);
  if (failed.length) fail(`${failed.length} of ${results.length} checked universal steps failed: ${failed.map((r) => r.name).join('; ')}`);
}
