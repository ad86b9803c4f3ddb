// A new owner's first document, from end to end, in headless Chromium and nothing else: the
// empty dashboard invites an upload; the PDF is uploaded through the page; the editor sets the
// links to be handed out by hand, adds two recipients (Ann, and the owner herself), places
// fields by mouse drag and by keyboard, and sends. Ann opens the link the owner copied from the
// document page, on a phone, and signs; the owner signs from her Inbox. The signed PDF is
// downloaded from the document page. The dashboard's tabs and counts are checked after every
// step. Prints one JSON line with where each field was placed (points from the page's top-left
// corner) for the Rust side to find the signed values there, and where the PDF was saved.
//
// Usage: node journey.mjs <base> <email> <password> <fixtures dir> <signed pdf path> <out dir>
import assert from 'node:assert/strict';
import { launch, watch, axe, shot, fitsWidth, signIn, signOnPage, DESKTOP, PHONE, until } from './lib.mjs';

const [base, email, password, fixtures, signedPath, outDir] = process.argv.slice(2);
const summary = { ok: false, counts: {} };
const browser = await launch();
const owner = await browser.newContext({ viewport: DESKTOP });
await owner.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
const page = await owner.newPage();
const problems = watch(page, base);
// What the page did, for a failure's report: every text the editor's status line showed and
// every change the page asked of the API, each with when (ms since the page loaded).
await owner.addInitScript(() => {
  window.__story = [];
  const note = (what) => window.__story.push(`${Math.round(performance.now())} ${what}`);
  const fetched = window.fetch;
  window.fetch = async (url, init = {}) => {
    const r = await fetched(url, init);
    if (String(url).includes('/api/') && (init.method || 'GET') !== 'GET') note(`${init.method || 'GET'} ${url} ${init.body || ''} -> ${r.status}`);
    return r;
  };
  document.addEventListener('DOMContentLoaded', () => {
    const el = document.getElementById('editor-status');
    if (!el) return;
    new MutationObserver(() => note(`status: ${el.textContent}`))
      .observe(el, { childList: true, characterData: true, subtree: true });
  });
});

// The document as the API answers it, through the page's session.
const load = (id) => page.evaluate(async (url) => {
  const token = document.querySelector('meta[name=csrf-token]').content;
  const r = await fetch(url, { credentials: 'same-origin', headers: { 'X-CSRF-Token': token } });
  return r.json();
}, `/api/v1/documents/${id}`);
const saved = (text) => page.locator('#editor-status').filter({ hasText: text }).waitFor();

// The dashboard's five counts, read from the page, must be `expected`; `step` names the moment
// in the summary and the screenshot.
const TABS = ['inbox', 'pending', 'completed', 'drafts', 'all'];
async function counts(step, expected) {
  await page.goto(`${base}/?tab=all`);
  const seen = {};
  for (const tab of TABS) {
    seen[tab] = Number((await page.locator(`#tab-${tab} .count`).textContent()).replace(/\D/g, ''));
  }
  summary.counts[step] = seen;
  assert.deepEqual(seen, expected, `dashboard counts ${step}`);
  // The last change in the reader's own time: moments ago, the exact time in the title.
  const changed = page.locator('.dash-table tbody tr:first-child time');
  assert.match(await changed.textContent(), /^(just now|\d+ minutes? ago)$/);
  assert.match(await changed.getAttribute('title'), /\d{4}/);
  await axe(page, `dashboard ${step}`);
  await shot(page, outDir, `journey-dashboard-${step}-desktop`);
}

try {
  // ---------- An empty account: the invitation to upload ----------
  await signIn(page, base, email, password, '/');
  await page.getByRole('link', { name: 'Upload a PDF' }).click();
  await page.waitForURL((u) => u.pathname === '/documents/new');

  // ---------- Upload through the page ----------
  // Choosing the file starts the upload; the title is changed in the editor.
  await page.getByLabel(/choose a file/i).setInputFiles(`${fixtures}/a4-1p.pdf`);
  await page.waitForURL(/\/documents\/\d+\/edit$/);
  const id = Number(new URL(page.url()).pathname.split('/')[2]);
  await page.getByLabel('Title', { exact: true }).fill('Service agreement');
  await page.getByRole('link', { name: 'Next: Recipients' }).click();
  await page.waitForURL(/step=recipients$/);
  summary.id = id;
  await counts('uploaded', { inbox: 0, pending: 0, completed: 0, drafts: 1, all: 1 });
  assert.deepEqual(await page.locator('.doc-title').allTextContents(), ['Service agreement']);

  // ---------- Settings: the owner hands out the links ----------
  await page.goto(`${base}/documents/${id}/edit?step=settings`);
  await page.getByLabel('I hand out the links myself (no e-mail to recipients)').check();
  await page.getByRole('button', { name: 'Save settings' }).click();
  await saved('Settings saved.');
  assert.equal((await load(id)).meta.distributionMethod, 'NONE');

  // ---------- Recipients: Ann, and the owner herself ----------
  await page.getByRole('link', { name: 'Next: Recipients' }).click();
  await page.waitForURL(/step=recipients/);
  for (const [name, mail] of [['Ann Archer', 'ann@example.com'], ['Olive Owner', email]]) {
    await page.locator('#new-name').fill(name);
    await page.locator('#new-email').fill(mail);
    await page.getByRole('button', { name: 'Add recipient' }).click();
    await saved(`${name} added.`);
  }

  // ---------- Fields: by mouse and by keyboard ----------
  await page.getByRole('link', { name: 'Next: Fields' }).click();
  await page.waitForURL(/step=fields/);
  const img = page.locator('.ed-page img').first();
  await page.waitForFunction((el) => el.complete && el.naturalWidth > 0, await img.elementHandle());
  const [W, H] = (await page.locator('#editor').getAttribute('data-sizes')).split(' ')[0].split('x').map(Number);
  const forWhom = (label) => page.getByLabel('For', { exact: true }).selectOption({ label });
  async function drag(name, fx, fy) {
    const box = await page.locator('.ed-page img').first().boundingBox();
    const item = await page.locator('.palette-item', { hasText: new RegExp(`^${name}$`) }).boundingBox();
    const n = await page.locator('.ed-field').count();
    await page.mouse.move(item.x + item.width / 2, item.y + item.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * fx, box.y + box.height * fy, { steps: 8 });
    await page.mouse.up();
    await saved(`${name} · `);
    await page.waitForFunction((k) => document.querySelectorAll('.ed-field').length === k
      && [...document.querySelectorAll('.ed-field')].every((e) => e.dataset.id !== 'null'), n + 1);
  }
  await forWhom('Ann Archer');
  await drag('Signature', 0.3, 0.7);
  // Ann's text by keyboard: Enter on the palette's Text adds it, arrows move it 5 pt right and
  // Shift+arrows 20 pt down.
  await page.locator('.palette-item', { hasText: /^Text$/ }).focus();
  // Where Enter puts it: centred across the page, down at the middle of the page's part in view.
  const lookY = await page.evaluate(() => {
    const r = document.querySelector('.ed-page img').getBoundingClientRect();
    return (((Math.max(r.top, 0) + Math.min(r.bottom, window.innerHeight)) / 2 - r.top) / r.height) * 100;
  });
  await page.keyboard.press('Enter');
  await saved('Text · Ann Archer saved.');
  await page.locator('.ed-field[data-type=TEXT]').focus();
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+ArrowDown');
  // Saved once the server has the text 5 pt right of and 20 pt below where Enter put it.
  await until(page, 'the server has the text 5 pt right and 20 pt down', async ([url, w, h, look]) => {
    const token = document.querySelector('meta[name=csrf-token]').content;
    const d = await (await fetch(url, { credentials: 'same-origin', headers: { 'X-CSRF-Token': token } })).json();
    const t = d.fields.find((f) => f.type === 'TEXT');
    return t && Math.abs(t.pageX - (50 - t.pageWidth / 2 + (5 * 100) / w)) < 0.01
      && Math.abs(t.pageY - (look - t.pageHeight / 2 + (20 * 100) / h)) < 0.01;
  }, [`/api/v1/documents/${id}`, W, H, lookY]);
  await forWhom('Olive Owner');
  await drag('Signature', 0.65, 0.45);
  await axe(page, 'editor fields');
  await shot(page, outDir, 'journey-fields-desktop');

  // On a touch screen the owner moves her signature with a finger, then taps Undo.
  {
    const touch = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const p = await touch.newPage();
    const touchProblems = watch(p, base);
    await signIn(p, base, email, password, `/documents/${id}/edit?step=fields`);
    const mine = p.getByRole('button', { name: 'Signature · Olive Owner, page 1' });
    const d0 = await load(id);
    const olive = d0.recipients.find((r) => r.email === email).id;
    const before = d0.fields.find((f) => f.type === 'SIGNATURE' && f.recipientId === olive);
    await mine.scrollIntoViewIfNeeded();
    const b = await mine.boundingBox();
    const cdp = await touch.newCDPSession(p);
    const at = (x, y) => ({ touchPoints: [{ x: Math.round(x), y: Math.round(y) }] });
    const [x0, y0] = [b.x + b.width / 2, b.y + b.height / 2];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', ...at(x0, y0) });
    for (let i = 1; i <= 8; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', ...at(x0 - 5 * i, y0 + 5 * i) });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await p.locator('#editor-status').filter({ hasText: 'Signature · Olive Owner saved.' }).waitFor();
    const moved = (await load(id)).fields.find((f) => f.id === before.id);
    assert.ok(moved.pageX < before.pageX - 5 && moved.pageY > before.pageY + 2, `the finger moved it: ${JSON.stringify([before, moved])}`);
    // The tap waits for the button named for the move, in view. Tapped at once after the
    // drag's save, the undo did not happen in 3 of 7 runs (why is not known yet); with these
    // waits it happened in 11 of 11.
    const undoMove = p.getByRole('button', { name: 'Undo: move Signature · Olive Owner' });
    await undoMove.scrollIntoViewIfNeeded();
    await undoMove.boundingBox();
    await undoMove.tap();
    await p.locator('#editor-status').filter({ hasText: 'Undone: move Signature · Olive Owner.' }).waitFor();
    const back = (await load(id)).fields.find((f) => f.id === before.id);
    assert.deepEqual([back.pageX, back.pageY], [before.pageX, before.pageY], 'Undo put it back');
    await fitsWidth(p, 'the editor\'s fields on a phone');
    assert.deepEqual(touchProblems, []);
    await touch.close();
  }

  // Where each field is, from the server's own answer.
  let doc = await load(id);
  const who = (mail) => doc.recipients.find((r) => r.email === mail);
  const box = (mail, type) => {
    const f = doc.fields.find((x) => x.recipientId === who(mail).id && x.type === type);
    assert.ok(f, `${type} of ${mail}`);
    return { x: (f.pageX * W) / 100, y: (f.pageY * H) / 100, w: (f.pageWidth * W) / 100, h: (f.pageHeight * H) / 100 };
  };
  summary.placed = {
    Acme: box('ann@example.com', 'TEXT'),
    Ann: box('ann@example.com', 'SIGNATURE'),
    Olive: box(email, 'SIGNATURE'),
  };
  // The keyboard moves are exact: 5 pt right and 20 pt down of where Enter centred it.
  const t = summary.placed.Acme;
  assert.ok(Math.abs(t.x - (W / 2 - t.w / 2 + 5)) < 0.05, `text x ${t.x}`);
  assert.ok(Math.abs(t.y - ((H * lookY) / 100 - t.h / 2 + 20)) < 0.05, `text y ${t.y}`);

  // ---------- Review and send ----------
  await page.getByRole('link', { name: 'Next: Review and send' }).click();
  await page.waitForURL(/step=review/);
  // The review's script lists the recipients once it has read the document: Send works then.
  await page.locator('.review-recipient').first().waitFor();
  await page.getByRole('button', { name: 'Send for signing' }).click();
  await page.waitForURL((u) => u.pathname === `/documents/${id}`);
  await page.getByText('Waiting for signatures').first().waitFor();
  await counts('sent', { inbox: 1, pending: 1, completed: 0, drafts: 0, all: 1 });

  // ---------- Ann signs on a phone, through the link the owner copied ----------
  doc = await load(id);
  await page.goto(`${base}/documents/${id}`);
  const annItem = page.locator(`#recipient-${who('ann@example.com').id}`);
  await annItem.getByRole('button', { name: 'Copy link' }).click();
  await annItem.getByText('Link copied.').waitFor();
  const annLink = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(annLink, /\/sign\//);
  const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const annPage = await phone.newPage();
  const annProblems = watch(annPage, base);
  await annPage.goto(annLink);
  await signOnPage(annPage, 'Ann\'s signing page (phone)', 'Ann', 'Acme');
  await fitsWidth(annPage, 'Ann\'s signing page');
  await shot(annPage, outDir, 'journey-ann-signed-phone');
  assert.deepEqual(annProblems, []);
  await phone.close();
  await counts('ann-signed', { inbox: 1, pending: 1, completed: 0, drafts: 0, all: 1 });
  await page.goto(`${base}/documents/${id}`);
  await annItem.getByText(/^Signed (just now|\d+ minutes? ago)$/).waitFor();

  // ---------- The owner signs from her Inbox ----------
  await page.goto(`${base}/?tab=inbox`);
  const act = page.locator('.dash-table tbody tr:first-child .act a');
  assert.match(await act.textContent(), /^Sign/);
  await act.click();
  await page.waitForURL((u) => u.pathname.startsWith('/sign/'));
  await signOnPage(page, 'the owner\'s signing page', 'Olive');

  // ---------- Completed: the signed PDF from the document page ----------
  await page.goto(`${base}/documents/${id}`);
  const signed = page.getByRole('link', { name: 'Download signed PDF' });
  for (let i = 0; i < 60 && !(await signed.count()); i++) {
    await page.waitForTimeout(500);
    await page.reload();
  }
  await page.getByText('Completed').first().waitFor();
  await axe(page, 'document page, completed');
  await shot(page, outDir, 'journey-document-completed-desktop');
  const [download] = await Promise.all([page.waitForEvent('download'), signed.click()]);
  assert.equal(download.suggestedFilename(), 'Service-agreement-signed.pdf');
  await download.saveAs(signedPath);
  await counts('completed', { inbox: 0, pending: 0, completed: 1, drafts: 0, all: 1 });
  const row = page.locator('.dash-table tbody tr:first-child');
  assert.match(await row.locator('.act a').textContent(), /^Download/);

  // The same dashboard on a phone.
  await page.setViewportSize(PHONE);
  await page.goto(`${base}/?tab=completed`);
  await fitsWidth(page, 'dashboard on a phone');
  await axe(page, 'dashboard completed (phone)');
  await shot(page, outDir, 'journey-dashboard-completed-phone');

  assert.deepEqual(problems, []);
  summary.page = { width: W, height: H };
  summary.ok = true;
} catch (e) {
  await shot(page, outDir, 'journey-failure').catch(() => {});
  const story = await page.evaluate(() => window.__story).catch(() => []);
  console.error(`failed at ${page.url()}; problems: ${JSON.stringify(problems)}`);
  console.error(`what the page did:\n${(story || []).join('\n')}`);
  throw e;
} finally {
  await browser.close();
  console.log(JSON.stringify(summary));
}
