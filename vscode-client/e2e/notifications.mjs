// Notifications as the e2e drivers see them, whatever how long VS Code keeps a toast on screen.
//
// A toast hides itself after a while (sooner on a loaded machine, where a step's checks take
// longer), and a driver that only read the visible toasts failed when it looked after that.  So a
// recorder in the page (a MutationObserver, installed before the workbench loads) keeps the text of
// every toast as it appears and as it changes (progress), numbered in order:
//
//   notifications(page)        the visible toasts, then every toast recorded since the last mark
//                              (a toast that has hidden itself is still there)
//   markNotifications(page)    "what comes next is new": runCommand and the clicks below call it,
//                              so a wait never matches a notification of an earlier step
//   clickNotificationButton(page, h, where, label)
//                              clicks `label` on the toast (`where`: the texts it holds, or a
//                              locator); when the toast has hidden itself, in the notification
//                              center, which keeps every notification until it is dismissed
//
// Steps added to the drivers use these (h.notifications, h.markNotifications, h.clickNotification).

/** The recorder (runs in the page: no closure over this module). */
export function recorder() {
  if (window.__nnieNotes) return;
  const notes = (window.__nnieNotes = { seq: 0, mark: 0, items: [] });
  const seen = new WeakMap();
  const norm = (s) => (s || '').replace(/\u00a0/g, ' ').replace(/\s+/g, ' ').trim();
  let queued = false;
  const scan = () => {
    queued = false;
    for (const el of document.querySelectorAll('.notifications-toasts .notification-list-item')) {
      const text = norm(el.innerText);
      if (!text || seen.get(el) === text) continue;
      seen.set(el, text);
      notes.items.push({ seq: ++notes.seq, text, at: Date.now() });
      if (notes.items.length > 400) notes.items.splice(0, 100);
    }
  };
  const start = () => {
    new MutationObserver(() => {
      if (!queued) {
        queued = true;
        setTimeout(scan, 0);
      }
    }).observe(document.documentElement, { subtree: true, childList: true, characterData: true });
    scan();
  };
  if (document.documentElement) start();
  else document.addEventListener('DOMContentLoaded', start);
}

/** Installs the recorder for every page of `context` (call before the first navigation). */
export async function installRecorder(context, page) {
  await context.addInitScript(recorder);
  if (page) await page.evaluate(recorder).catch(() => undefined);
}

export async function notifications(page) {
  return page.evaluate(() => {
    const norm = (s) => (s || '').replace(/\u00a0/g, ' ').replace(/\s+/g, ' ').trim();
    const visible = [...document.querySelectorAll('.notifications-toasts .notification-list-item')].map((el) => norm(el.innerText)).filter(Boolean);
    const notes = window.__nnieNotes;
    const recorded = notes ? notes.items.filter((n) => n.seq > notes.mark).map((n) => n.text) : [];
    return [...new Set([...visible, ...recorded])];
  });
}

export async function markNotifications(page) {
  await page.evaluate(() => {
    if (window.__nnieNotes) window.__nnieNotes.mark = window.__nnieNotes.seq;
  }).catch(() => undefined);
}

function holding(locator, texts) {
  return texts.reduce((l, t) => l.filter({ hasText: t }), locator);
}

export async function clickNotificationButton(page, h, where, label) {
  const texts = typeof where === 'string' ? [where] : Array.isArray(where) ? where : undefined;
  const toast = texts ? holding(page.locator('.notifications-toasts .notification-list-item'), texts).first() : where;
  const button = toast.locator('.monaco-button', { hasText: label }).first();
  const shown = await button.waitFor({ state: 'visible', timeout: 3000 }).then(() => true, () => false);
  if (shown) {
    await button.click();
    await markNotifications(page);
    return 'toast';
  }
  // the toast has hidden itself: the notification center keeps it until it is dismissed
  await h.runCommand(page, 'Notifications: Show Notifications');
  const items = page.locator('.notifications-center .notification-list-item');
  const item = (texts ? holding(items, texts) : items.filter({ has: page.locator('.monaco-button', { hasText: label }) })).first();
  const inCenter = item.locator('.monaco-button', { hasText: label }).first();
  await inCenter.waitFor({ state: 'visible', timeout: 10000 });
  await inCenter.click();
  await markNotifications(page);
  await page.keyboard.press('Escape').catch(() => undefined);   // the center goes away again
  return 'notification center';
}
