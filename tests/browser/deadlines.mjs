// Deadlines and reminders in headless Chromium (issue 56, parts 1 and 2), in two steps around
// a deadline the test makes pass (tests/it/deadlines_browser.rs).
//
// `editor`: the document editor's Settings step: a period the server refuses (said beside its
// fieldset), a date tried, then ten days and reminders every 2 days at most 3, the recipients'
// language German; Tab reaches each new control; the amount and unit, and the reminders' row,
// stay on their lines on a phone. The template editor saves its own period (two weeks). The
// document is sent from the review step.
//
// `after` (Ann has signed, Bob's time has passed, Cy's goes on): the dashboard's mark "time ran
// out" and its note, the legend, the icon's contrast in light and forced colours; Bob's link
// answers 410 with the German notice; the document page's badges, the link to the danger area,
// "Send again with a fresh period" (the new time shown), "Stop reminders" (Cy's badge and the
// button gone); the
// account's "Time to sign" and the team's "How long each recipient has" forms, a refused value
// then a saved one. axe-core on every page and state, both sizes; screenshots `deadlines-*`.
//
// Usage: node deadlines.mjs <editor|after> <base> <email> <password> <document id>
//        <template id> [<Bob's recipient id> <Bob's token>] <out dir>
import assert from 'node:assert/strict';
import { launch, watch, axe, shot, fitsWidth, bothSizes, signIn, until, DESKTOP, PHONE } from './lib.mjs';

const args = process.argv.slice(2);
const [step, base, email, password, id, tid] = args;
const outDir = args[args.length - 1];
const [bobId, bobToken] = step === 'after' ? args.slice(6, 8) : [];
const summary = { ok: false };
const browser = await launch();
const context = await browser.newContext({ viewport: DESKTOP });
const page = await context.newPage();
const problems = watch(page, base);
const name = (n) => `deadlines-${n}`;

// A document or template as the API answers it, through the page's session.
const load = (path) => page.evaluate(async (url) => {
  const token = document.querySelector('meta[name=csrf-token]').content;
  const r = await fetch(url, { credentials: 'same-origin', headers: { 'X-CSRF-Token': token } });
  return r.json();
}, path);
const saved = () => page.locator('#editor-status').filter({ hasText: 'Settings saved.' }).waitFor();

// Presses Tab from `from` (a selector; null: the page's start) until `to` has the focus;
// answers the ids (or names) passed on the way, each once.
async function tabTo(from, to, label, most = 30) {
  if (from) await page.locator(from).focus();
  const seen = [];
  for (let i = 0; i < most; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => document.activeElement.id || document.activeElement.getAttribute('name') || document.activeElement.tagName);
    if (seen[seen.length - 1] !== at) seen.push(at);
    if (await page.locator(to).evaluate((el) => el === document.activeElement)) return seen;
  }
  throw new Error(`Tab never reached ${label}: ${seen.join(', ')}`);
}

// The elements' boxes' tops, to tell whether they share a line.
const tops = (selectors) => page.evaluate((s) => s.map((q) => Math.round(document.querySelector(q).getBoundingClientRect().top)), selectors);

// The contrast of two CSS colours (rgb()).
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

async function editor() {
  const edit = (what, s) => `${base}/${what}/${what === 'documents' ? id : tid}/edit?step=${s}`;
  await signIn(page, base, email, password, `/documents/${id}/edit?step=settings`);
  const deadline = page.getByRole('group', { name: 'Time each recipient has to sign' });
  const reminders = page.getByRole('group', { name: 'Reminders' });
  await deadline.waitFor();
  assert.ok(await deadline.getByLabel('No deadline').isChecked(), 'no deadline at first');
  assert.equal(await reminders.getByRole('checkbox').isChecked(), false);

  // Keyboard: from the language, Tab passes the deadline's choice, its amount and unit, the
  // date, the reminders' box and both numbers, in that order.
  const path = await tabTo('#language', '#remindMax', 'the reminders\' maximum');
  const order = ['deadline', 'deadlineAmount', 'deadlineUnit', 'deadlineUntil', 'reminders', 'remindEvery', 'remindMax'];
  assert.deepEqual(path.filter((p) => order.includes(p)), order, `Tab order: ${path}`);

  // Two years: refused, beside the fieldset; typing a period chose "A period after sending".
  await page.locator('#deadlineAmount').fill('2');
  await page.locator('#deadlineUnit').selectOption('year');
  const refusal = page.locator('[data-for-path="meta.envelopeExpirationPeriod"]');
  await refusal.waitFor();
  assert.match(await refusal.innerText(), /a year at most/);
  assert.ok(await deadline.getByLabel('A period after sending').isChecked());
  assert.equal(await refusal.evaluate((p) => p.closest('fieldset').id), 'deadline', 'said inside the fieldset');
  assert.equal(await refusal.evaluate((p) => p.previousElementSibling.className), 'row deadline-after', 'right under the amount');
  // The amount is marked and described by the reason, and has the focus.
  await page.locator('#deadlineAmount[aria-invalid=true]').waitFor();
  const describedBy = await page.locator('#deadlineAmount').getAttribute('aria-describedby');
  assert.ok(describedBy.split(' ').includes(await refusal.getAttribute('id')), `described by the reason: ${describedBy}`);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'deadlineAmount', 'the focus on the amount');
  await bothSizes(page, outDir, name('editor-refused'), 'editor settings, period refused');

  // Ten days, reminders every 2 days at most 3 (typing the numbers checks the box), German.
  await page.locator('#deadlineUnit').selectOption('day');
  await page.locator('#deadlineAmount').fill('10');
  await page.locator('#deadlineAmount').press('Tab');
  await saved();
  assert.equal(await refusal.count(), 0, 'the refusal is gone');
  await page.getByLabel('Every', { exact: true }).fill('2');
  await page.getByLabel('at most', { exact: true }).fill('3');
  await page.getByLabel('at most', { exact: true }).press('Tab');
  assert.ok(await reminders.getByRole('checkbox').isChecked(), 'typing a number checked the box');
  await page.getByLabel('Recipients\' language').selectOption('de');
  await until(page, 'the reminders are saved', async (url) => {
    const r = await fetch(url, { credentials: 'same-origin', headers: { 'X-CSRF-Token': document.querySelector('meta[name=csrf-token]').content } });
    const d = await r.json();
    return d.meta.reminders && d.meta.reminders.max === 3 && d.meta.language === 'de';
  }, `/api/v1/documents/${id}`);

  // A date instead, in the browser's time: saved as that moment; then the period again.
  const inTwenty = new Date(Date.now() + 20 * 86400e3);
  const pad = (n) => String(n).padStart(2, '0');
  const typed = `${inTwenty.getFullYear()}-${pad(inTwenty.getMonth() + 1)}-${pad(inTwenty.getDate())}T17:30`;
  await page.getByLabel('Sign by', { exact: true }).fill(typed);
  await until(page, 'the date is saved', async (url) => {
    const r = await fetch(url, { credentials: 'same-origin', headers: { 'X-CSRF-Token': document.querySelector('meta[name=csrf-token]').content } });
    return (await r.json()).meta.envelopeExpirationPeriod.until;
  }, `/api/v1/documents/${id}`);
  let doc = await load(`/api/v1/documents/${id}`);
  assert.equal(new Date(doc.meta.envelopeExpirationPeriod.until).getTime(), new Date(typed).getTime());
  await page.reload();
  assert.equal(await page.getByLabel('Sign by', { exact: true }).inputValue(), typed, 'shown again as typed');
  assert.ok(await deadline.getByLabel('Until a date').isChecked());
  await deadline.getByLabel('A period after sending').check();
  await page.locator('#deadlineAmount').fill('10');
  await page.locator('#deadlineAmount').press('Tab');
  await until(page, 'the period is saved again', async (url) => {
    const r = await fetch(url, { credentials: 'same-origin', headers: { 'X-CSRF-Token': document.querySelector('meta[name=csrf-token]').content } });
    return (await r.json()).meta.envelopeExpirationPeriod.amount === 10;
  }, `/api/v1/documents/${id}`);
  doc = await load(`/api/v1/documents/${id}`);
  assert.deepEqual(doc.meta.envelopeExpirationPeriod, { unit: 'day', amount: 10 });
  assert.deepEqual(doc.meta.reminders, { everyDays: 2, max: 3 });

  // The amount and its unit share a line, and the reminders' sentence is one line on a
  // desktop; on a phone it breaks between its halves only ("Every 2 days," / "at most 3
  // times"), and nothing sticks out of its fieldset.
  const sameLine = async (selectors, label) => {
    const at = await tops(selectors);
    assert.ok(Math.max(...at) - Math.min(...at) < 12, `${label} on one line (${at})`);
  };
  await sameLine(['#deadlineAmount', '#deadlineUnit'], 'amount and unit');
  await sameLine(['label[for=remindEvery]', '#remindEvery', '#remindMax', '.remind-part:last-child > span'], 'the reminders');
  await page.setViewportSize(PHONE);
  await sameLine(['#deadlineAmount', '#deadlineUnit'], 'amount and unit on a phone');
  await sameLine(['label[for=remindEvery]', '#remindEvery', '.remind-part:first-child > span'], 'every so many days on a phone');
  await sameLine(['label[for=remindMax]', '#remindMax', '.remind-part:last-child > span'], 'at most so many times on a phone');
  const sticking = await page.evaluate(() => [...document.querySelectorAll('#deadline *, #reminders *')]
    .filter((el) => el.getBoundingClientRect().right > el.closest('fieldset').getBoundingClientRect().right + 1)
    .map((el) => el.id || el.tagName));
  assert.deepEqual(sticking, [], 'nothing wider than its fieldset');
  await page.setViewportSize(DESKTOP);
  await page.locator('#deadline').scrollIntoViewIfNeeded();
  await bothSizes(page, outDir, name('editor-settings'), 'editor settings, deadline and reminders');

  // The template editor: the same step, saved on the template.
  await page.goto(edit('templates', 'settings'));
  await deadline.waitFor();
  await page.locator('#deadlineAmount').fill('2');
  await page.locator('#deadlineUnit').selectOption('week');
  await until(page, 'the template\'s period is saved', async (url) => {
    const r = await fetch(url, { credentials: 'same-origin', headers: { 'X-CSRF-Token': document.querySelector('meta[name=csrf-token]').content } });
    const p = (await r.json()).templateMeta.envelopeExpirationPeriod;
    return p && p.unit === 'week' && p.amount === 2;
  }, `/api/v1/templates/${tid}`);
  await axe(page, 'template editor settings');
  await fitsWidth(page, 'template editor settings');
  await shot(page, outDir, name('template-settings-desktop'));

  // Sent from the review.
  await page.goto(edit('documents', 'review'));
  await page.locator('.review-recipient').first().waitFor();
  await page.getByRole('button', { name: 'Send for signing' }).click();
  await page.waitForURL((url) => url.pathname === `/documents/${id}`);
  await page.getByText('Waiting for signatures').first().waitFor();
  for (const who of ['Ann Archer', 'Bob Baker', 'Cy Crane']) {
    const item = page.locator('.recipient', { hasText: who });
    await item.getByText(/^Sign by /).waitFor();
    await item.getByText(/^Next reminder /).waitFor();
  }
  assert.deepEqual(problems.filter((p) => !/status of 400/.test(p)), []);
}

async function after() {
  await signIn(page, base, email, password, '/');
  // The dashboard: Bob's mark, the row's note, the legend.
  const row = page.locator('.dash-table tbody tr', { hasText: 'Lease' });
  await row.waitFor();
  const bob = row.locator('.mark', { hasText: 'Bob Baker' });
  assert.match(await bob.getAttribute('class'), /\bexpired\b/);
  assert.match(await bob.innerText(), /time ran out/);
  await row.getByText('1 of 3 signed, 1 ran out of time').waitFor();
  await page.locator('.dash-legend').getByText('Time ran out').waitFor();
  // The clock is told from the page in light colours: at least 3:1 against the row.
  const [ring, ground] = await bob.locator('.mark-icon').evaluate((el) => {
    let bg = 'rgba(0, 0, 0, 0)';
    for (let p = el; p && /rgba\(0, 0, 0, 0\)|transparent/.test(bg); p = p.parentElement) bg = getComputedStyle(p).backgroundColor;
    return [getComputedStyle(el).borderTopColor, bg];
  });
  assert.ok(contrast(ring, ground) >= 3, `the clock's ring ${ring} on ${ground}: ${contrast(ring, ground).toFixed(2)}`);
  await bothSizes(page, outDir, name('dashboard'), 'dashboard with a recipient out of time');
  // Forced colours: the ring and the hands stay drawn (system colours, not the page's).
  await page.emulateMedia({ forcedColors: 'active' });
  const hands = await bob.locator('.mark-icon').evaluate((el) => {
    const s = getComputedStyle(el, '::before');
    return { content: s.content, left: s.borderLeftStyle, bottom: s.borderBottomStyle, color: s.borderLeftColor, ring: getComputedStyle(el).borderTopColor };
  });
  assert.notEqual(hands.content, 'none', 'the hands are drawn');
  assert.equal(hands.left, 'solid', `the hands are borders, kept in forced colours: ${JSON.stringify(hands)}`);
  assert.equal(hands.bottom, 'solid');
  // So do the legend's other marks drawn inside their ring (the opened dot, the rejected cross).
  const inner = await page.locator('.dash-legend').evaluate((legend) => ['.opened .mark-icon::after', '.rejected .mark-icon::before']
    .map((q) => {
      const [sel, pseudo] = q.split('::');
      const icon = legend.querySelector(sel);
      return [getComputedStyle(icon, '::' + pseudo).backgroundColor, getComputedStyle(icon).borderTopColor];
    }));
  for (const [fill, ring] of inner) assert.equal(fill, ring, `an inner mark drawn in the ring's colour in forced colours: ${inner}`);
  await page.locator('.dash-legend').scrollIntoViewIfNeeded();
  await shot(page, outDir, name('dashboard-forced-desktop'));
  await page.emulateMedia({ forcedColors: 'none' });

  // Bob's link: 410, the notice in the document's language.
  const answer = await page.goto(`${base}/sign/${bobToken}`);
  assert.equal(answer.status(), 410);
  assert.equal(await page.getAttribute('html', 'lang'), 'de');
  await page.getByText(/Ihre Frist für dieses Dokument ist am .+ abgelaufen/).waitFor();
  await bothSizes(page, outDir, name('link'), 'an expired signing link');

  // The document page: Bob's time ran out, with what to do about it.
  await page.goto(`${base}/documents/${id}`);
  const item = page.locator(`#recipient-${bobId}`);
  await item.getByText(/^Time ran out /).waitFor();
  assert.equal(await item.getByText(/^Next reminder /).count(), 0, 'no reminder for whose time ran out');
  const annItem = page.locator('.recipient', { hasText: 'Ann Archer' });
  assert.equal(await annItem.getByText(/^(Sign by|Time ran out|Next reminder) /).count(), 0, 'none for who signed');
  // Cy's reminders go on, and can be stopped.
  const cyItem = page.locator('.recipient', { hasText: 'Cy Crane' });
  await cyItem.getByText(/^Sign by /).waitFor();
  await cyItem.getByText(/^Next reminder /).waitFor();
  const stop = page.getByRole('button', { name: 'Stop reminders' });
  await stop.waitFor();
  const again = item.getByRole('button', { name: 'Send again with a fresh period' });
  await item.getByText('This link does not work while Bob Baker\'s time has run out').waitFor();
  await tabTo(null, `#recipient-${bobId} [data-expired]`, 'Send again', 60);
  const cancel = item.getByRole('link', { name: 'or cancel the document' });
  await cancel.click();
  await page.waitForURL(/#danger-zone$/);
  assert.ok(await page.locator('#danger-zone').isVisible());
  await page.evaluate(() => window.scrollTo(0, 0));
  await bothSizes(page, outDir, name('document-expired'), 'document page, time ran out');

  // A fresh period: the page comes back with the new time.
  await again.click();
  await page.getByText('Sent again to Bob Baker, with a fresh period.').waitFor();
  const fresh = page.locator(`#recipient-${bobId}`).getByText(/^Sign by /);
  await fresh.waitFor();
  const freshUntil = await fresh.locator('time').getAttribute('datetime');
  const days = (new Date(freshUntil).getTime() - Date.now()) / 86400e3;
  assert.ok(days > 9.9 && days <= 10.01, `ten days on: ${freshUntil}`);
  summary.freshUntil = freshUntil;
  await cyItem.getByText(/^Next reminder /).waitFor();
  // Sent again, Bob's reminders go on too.
  await page.locator(`#recipient-${bobId}`).getByText(/^Next reminder /).waitFor();
  await tabTo(null, '#stop-reminders', 'Stop reminders', 80);
  await bothSizes(page, outDir, name('document-fresh'), 'document page, sent again');

  // Stop reminders: the badges and the button go.
  await stop.click();
  await page.getByText('Automatic reminders stopped.').waitFor();
  assert.equal(await page.getByText(/^Next reminder /).count(), 0);
  assert.equal(await stop.count(), 0);
  await page.locator(`#recipient-${bobId}`).getByText(/^Sign by /).waitFor();
  await page.locator(`#recipient-${bobId}`).getByText('Whoever has this link can sign as Bob Baker').waitFor();
  await axe(page, 'document page, reminders stopped');
  await shot(page, outDir, name('document-stopped-desktop'));

  // The account's default: a refused value said at the box, then three weeks.
  await page.goto(`${base}/account`);
  const form = page.locator('#deadline-form');
  const box = form.getByLabel('How long each recipient has once you send');
  await box.fill('2 years');
  await form.getByRole('button', { name: 'Save time to sign' }).click();
  await page.locator('#expirationPeriod[aria-invalid=true]').waitFor();
  await axe(page, 'account page, period refused');
  await box.fill('3 weeks');
  await box.press('Enter');
  await page.locator('#deadline-form .profile-done').waitFor();
  assert.equal(await box.inputValue(), '3 weeks');
  await page.locator('#deadline').scrollIntoViewIfNeeded();
  await bothSizes(page, outDir, name('account'), 'account page, period saved');

  // The team's default: the same.
  await page.goto(`${base}/t/sales/settings/general`);
  const team = page.getByLabel('How long each recipient has once sent (optional)');
  await team.fill('forever');
  await page.locator('#save-general').click();
  await page.locator('#expiration-period[aria-invalid=true]').waitFor();
  await axe(page, 'team settings, period refused');
  await page.getByLabel('How long each recipient has once sent (optional)').fill('1 month');
  await page.locator('#save-general').click();
  await page.locator('.settings .alert.success').waitFor();
  assert.equal(await page.locator('#expiration-period[aria-invalid=true]').count(), 0);
  assert.equal(await page.getByLabel('How long each recipient has once sent (optional)').inputValue(), '1 month');
  await bothSizes(page, outDir, name('team'), 'team settings, period saved');

  assert.deepEqual(problems.filter((p) => !/status of (400|410|422)/.test(p)), []);
}

try {
  if (step === 'editor') await editor();
  else await after();
  summary.ok = true;
} catch (e) {
  await shot(page, outDir, name(`${step}-failure`)).catch(() => {});
  console.error(`failed at ${page.url()}; problems: ${JSON.stringify(problems)}`);
  throw e;
}
await browser.close();
console.log(JSON.stringify(summary));
