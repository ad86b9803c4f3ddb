// The dashboard and the signed-out start page in headless Chromium, at desktop and phone sizes:
// counts, tabs, search, pages, keyboard-only navigation to a row's action, axe-core on every
// state, no sideways scrolling on a phone, screenshots `dashboard-*-desktop|phone` and
// `home-desktop|phone`. Prints one JSON line with "ok":true.
//
// Usage: node dashboard.mjs <base> <password> <Ada's signing token of Bob's offer> <out_dir>
// (Ada: ada@example.com with 4 documents of hers and 10 more drafts, 1 in her Inbox; a new
// account new@example.com with nothing.)
import assert from 'node:assert/strict';
import { launch, watch, axe, shot, fitsWidth, signIn, DESKTOP, PHONE } from './lib.mjs';

const [base, password, inboxToken, outDir] = process.argv.slice(2);
const summary = { ok: false, axeMinor: 0 };
const browser = await launch();

async function context(size) {
  const ctx = await browser.newContext({ viewport: size, ...(size === PHONE ? { isMobile: true, hasTouch: true } : {}) });
  const page = await ctx.newPage();
  return { ctx, page, problems: watch(page, base) };
}

async function check(page, label, size) {
  summary.axeMinor += await axe(page, label);
  await shot(page, outDir, `${label}-${size === PHONE ? 'phone' : 'desktop'}`);
  if (size === PHONE) {
    const wide = await page.evaluate(() => [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(0, 8).map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`));
    if (wide.length) console.error(label, 'wider than the phone:', wide);
    await fitsWidth(page, label);
  }
}

const count = async (page, tab) => Number((await page.locator(`#tab-${tab} .count`).textContent()).replace(/\D/g, ''));
const rows = (page) => page.locator('.dash-table tbody tr');
const titles = (page) => page.locator('.doc-title').allTextContents();

// Signed out: the start page, and its Sign in.
for (const size of [DESKTOP, PHONE]) {
  const { ctx, page, problems } = await context(size);
  await page.goto(`${base}/`);
  await page.getByRole('heading', { level: 1, name: /signed, on your own server/ }).waitFor();
  summary.axeMinor += await axe(page, 'home');
  if (size === PHONE) await fitsWidth(page, 'home');
  await shot(page, outDir, `home-${size === PHONE ? 'phone' : 'desktop'}`);
  await page.locator('#sign-in').click();
  await page.waitForURL((u) => u.pathname === '/auth/login' && u.searchParams.get('next') === '/');
  // An address that leads nowhere, signed out: the plain layout (issue 55, item 11).
  await page.goto(`${base}/no/such/page`);
  await page.getByRole('heading', { level: 1, name: 'Not Found' }).waitFor();
  assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0);
  await check(page, 'not-found-signed-out', size);
  assert.deepEqual(problems.filter((p) => !/status of 404/.test(p)), []);
  await ctx.close();
}

// Desktop: Ada's dashboard.
{
  const { ctx, page, problems } = await context(DESKTOP);
  await signIn(page, base, 'ada@example.com', password, '/');
  // Something waits for her: the Inbox is shown first.
  assert.equal(await page.locator('.dash-tabs [aria-current=page]').getAttribute('id'), 'tab-inbox');
  assert.deepEqual(
    [await count(page, 'inbox'), await count(page, 'pending'), await count(page, 'completed'), await count(page, 'drafts'), await count(page, 'all')],
    [1, 1, 1, 11, 14]);
  assert.deepEqual(await titles(page), ['Offer letter']);
  assert.equal(await page.locator('.act a').getAttribute('href'), `/sign/${inboxToken}`);
  await page.getByRole('link', { name: 'New document' }).waitFor();
  await check(page, 'dashboard-inbox', DESKTOP);

  // All: ten on the first page, four on the second, newest change first.
  await page.locator('#tab-all').click();
  await page.waitForURL((u) => u.searchParams.get('tab') === 'all');
  assert.equal(await rows(page).count(), 10);
  assert.deepEqual((await titles(page)).slice(0, 3), ['Supplier contract', 'Invoice 2026-11', 'Mutual NDA']);
  await page.getByText('Page 1 of 2', { exact: true }).waitFor();
  await check(page, 'dashboard-all', DESKTOP);
  await page.locator('#page-next').click();
  await page.waitForURL((u) => u.searchParams.get('page') === '2');
  assert.equal(await rows(page).count(), 4);
  assert.equal((await titles(page)).at(-1), 'Lease agreement');
  await check(page, 'dashboard-page2', DESKTOP);
  await page.locator('#page-previous').click();
  await page.waitForURL((u) => !u.searchParams.has('page'));

  // Each tab holds its own.
  for (const [tab, first, n] of [['pending', 'Mutual NDA', 1], ['completed', 'Invoice 2026-11', 1], ['drafts', 'Draft 10', 10]]) {
    await page.locator(`#tab-${tab}`).click();
    await page.waitForURL((u) => u.searchParams.get('tab') === tab);
    assert.equal(await rows(page).count(), n, tab);
    assert.equal((await titles(page))[0], first, tab);
  }
  await check(page, 'dashboard-drafts', DESKTOP);

  // Search by a recipient's e-mail, within All; the tabs keep the search.
  await page.locator('#tab-all').click();
  await page.waitForURL((u) => u.searchParams.get('tab') === 'all');
  await page.getByLabel('Search by title or recipient e-mail').fill('dee@example');
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.searchParams.get('q') === 'dee@example');
  assert.deepEqual(await titles(page), ['Mutual NDA']);
  await page.getByText('1 document in All matches').waitFor();
  assert.match(await page.locator('#tab-pending').getAttribute('href'), /q=dee%40example/);
  await check(page, 'dashboard-search', DESKTOP);
  // A search that finds nothing says so and offers to clear it.
  await page.getByLabel('Search by title or recipient e-mail').fill('no such thing');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('heading', { name: 'No documents match “no such thing”' }).waitFor();
  await check(page, 'dashboard-nothing', DESKTOP);
  await page.locator('#clear-search').click();
  await page.waitForURL((u) => !u.searchParams.has('q'));
  assert.equal(await rows(page).count(), 10);

  // Keyboard only: from the top, Tab reaches the Pending tab (Enter opens it), then the first
  // row's action, each with a visible focus ring.
  const tabTo = async (selector, limit = 40) => {
    for (let i = 0; i < limit; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate((s) => document.activeElement.matches(s), selector)) {
        const ring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
        assert.notEqual(ring, 'none', `${selector} shows its focus`);
        return i + 1;
      }
    }
    assert.fail(`Tab never reached ${selector}`);
  };
  await page.goto(`${base}/?tab=all`);
  await tabTo('#tab-pending');
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.searchParams.get('tab') === 'pending');
  assert.equal(await page.locator('#tab-pending').getAttribute('aria-current'), 'page');
  const presses = await tabTo('.dash-table tbody tr:first-child .act a');
  summary.tabsToFirstAction = presses;
  assert.match(await page.evaluate(() => document.activeElement.textContent), /^View Mutual NDA$/);
  await page.keyboard.press('Tab');
  // The Inbox's Sign opens the signing page of Ada's link.
  await page.goto(`${base}/?tab=inbox`);
  await tabTo('.dash-table tbody tr:first-child .act a');
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.pathname === `/sign/${inboxToken}`);
  assert.deepEqual(problems.filter((p) => !p.includes('/documents/')), []);
  await ctx.close();
}

// Phone: cards instead of the table, tabs that never widen the page.
{
  const { ctx, page, problems } = await context(PHONE);
  await signIn(page, base, 'ada@example.com', password, '/');
  await check(page, 'dashboard-inbox', PHONE);
  await page.locator('#tab-all').click();
  await page.waitForURL((u) => u.searchParams.get('tab') === 'all');
  const shape = await page.locator('.dash-table tbody tr').first().evaluate((el) => getComputedStyle(el).display);
  assert.equal(shape, 'grid', 'rows are cards on a phone');
  await check(page, 'dashboard-all', PHONE);
  await page.locator('#tab-completed').scrollIntoViewIfNeeded();
  await page.locator('#tab-completed').click();
  await page.waitForURL((u) => u.searchParams.get('tab') === 'completed');
  await check(page, 'dashboard-completed', PHONE);
  await page.getByLabel('Search by title or recipient e-mail').fill('no such thing');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: /No documents match/ }).waitFor();
  await check(page, 'dashboard-nothing', PHONE);
  assert.deepEqual(problems, []);
  await ctx.close();
}

// A new account: the invitation to upload, at both sizes.
for (const size of [DESKTOP, PHONE]) {
  const { ctx, page, problems } = await context(size);
  await signIn(page, base, 'new@example.com', password, '/');
  await page.getByRole('link', { name: 'Upload a PDF' }).waitFor();
  assert.equal(await page.locator('.dash-tabs').count(), 0);
  await check(page, 'dashboard-new', size);
  // An address that leads nowhere, signed in: the navigation stays (issue 55, item 11), and
  // its first link leads back to the documents.
  await page.goto(`${base}/no/such/page`);
  await page.getByRole('heading', { level: 1, name: 'Not Found' }).waitFor();
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('button', { name: 'Sign out' }).waitFor();
  await check(page, 'not-found-signed-in', size);
  await nav.getByRole('link', { name: 'Documents' }).click();
  await page.getByRole('link', { name: 'Upload a PDF' }).waitFor();
  assert.deepEqual(problems.filter((p) => !/status of 404/.test(p)), []);
  await ctx.close();
}

await browser.close();
summary.ok = true;
console.log(JSON.stringify(summary));
