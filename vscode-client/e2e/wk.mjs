// The compiled-model scenario of the real VS Code test (driven by drive.mjs in code-server), on the
// real ENet project run.sh copies into <workspace>/wk (its cfg set to [compile_mode] 0, its .wk a
// 16-bit build):
//   1. opening nnie_model/ENet_cityscapes.wk shows its table in the read-only view (a webview the
//      server's nnie.describeWk renders), never the binary;
//   2. the cfg shows the code lens "built: 16-bit [I], 1 segment, 1 output, needs …" on its
//      [instruction_name] line, and the Problems panel lists NN604 (a 16-bit .wk for compile_mode 0);
//   3. clicking the lens opens the .wk's view.
// Every step saves a screenshot.
import { webviewFrameWith, quickOpenPath } from './triage.mjs';

export async function wkScenario(page, h) {
  const { log, fail, screenshot, waitFor, norm, readProblems } = h;
  // 1. the .wk opens in the custom editor
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill('ENet_cityscapes.wk');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'ENet_cityscapes.wk' }).first().waitFor({ state: 'visible', timeout: 30000 });
  await page.keyboard.press('Enter');
  await waitFor('an editor tab for ENet_cityscapes.wk', async () => (await page.locator('.tabs-container .tab.active', { hasText: 'ENet_cityscapes.wk' }).count()) > 0, 20000);
  const shown = await waitFor('the .wk table in its view', () => webviewFrameWith(page, 'compiled NNIE model (.wk)'), 60000);
  log(`.wk view: ${shown.body.split('\n').filter(Boolean).slice(0, 4).join(' | ')}`);
  for (const want of ['1.2.0.5_B010 [I]', '16-bit [I]', 'deconv6_0_0', '512×1024×3']) {
    if (!shown.body.includes(want)) fail(`the .wk view does not show "${want}"`);
  }
  await screenshot(page, 'wk-view');

  // 2. the cfg: lens and the cross-check finding
  await quickOpenPath(page, h, 'wk/model_inst.cfg');
  const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: "built: 16-bit [I]" }).first();
  await lens.waitFor({ state: 'visible', timeout: 60000 });
  const title = norm(await lens.innerText({ timeout: 5000 }).catch(() => ''));
  log(`cfg code lens: ${title}`);
  if (!/built: 16-bit \[I\], 1 segment, 1 output, needs 85\.0 MiB \+ 67\.5 MiB blobs/.test(title)) fail(`unexpected lens "${title}"`);
  // the Problems panel holds every file's problems (a virtual list): show only NN604's rows
  await readProblems(page);
  const filter = page.locator('.markers-panel-container, .panel').getByPlaceholder(/^Filter/).first();
  await filter.fill('NN604');
  const problems = await waitFor('NN604 in the Problems panel', async () => {
    const p = await readProblems(page);
    return p.some((row) => row.code === 'NN604') ? p : undefined;
  }, 60000);
  log(`NN604: ${problems.find((row) => row.code === 'NN604').text}`);
  await screenshot(page, 'wk-cfg-lens');
  await filter.fill('');

  // 3. the lens opens the .wk's view
  await page.locator('.tabs-container .tab', { hasText: 'ENet_cityscapes.wk' }).first().locator('.codicon-close').click().catch(() => undefined);
  await lens.click();
  await waitFor('the .wk view again, from the lens', async () => (await page.locator('.tabs-container .tab.active', { hasText: 'ENet_cityscapes.wk' }).count()) > 0, 20000);
  await waitFor('the .wk table, from the lens', () => webviewFrameWith(page, 'compiled NNIE model (.wk)'), 30000);
  await screenshot(page, 'wk-from-lens');
  log('wk scenario: PASS');
}
