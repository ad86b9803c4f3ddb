// Link attachments in headless Chromium: the editor's Settings step adds one by keyboard, a
// refused address comes back on the attachments page with its message beside the box, an
// edit in the folded form and a removal by keyboard; the document page of a sent document
// lists its links (and still changes them); its recipient's signing page shows them opening in
// a new tab without referrer, each with its host. axe-core, desktop and phone sizes, no
// sideways scrolling; screenshots `attachments-*-desktop|phone`. Prints one JSON line with
// "ok":true.
//
// Usage: node attachments.mjs <base> <email> <password> <draft id> <sent id> <signing link> <out_dir>
import assert from 'node:assert/strict';
import { launch, watch, bothSizes, signIn, DESKTOP } from './lib.mjs';

const [base, email, password, draft, sent, link, outDir] = process.argv.slice(2);
const summary = { ok: false };
const browser = await launch();

// Types `text` into the focused box, as a person at a keyboard.
async function typeInto(page, selector, text) {
  await page.locator(selector).focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
}

try {
  const ctx = await browser.newContext({ viewport: DESKTOP });
  const page = await ctx.newPage();
  const problems = watch(page, base);
  await signIn(page, base, email, password, `/documents/${draft}/edit?step=settings`);
  await page.locator('#attachments').waitFor();
  assert.equal(await page.locator('#attachments-none').textContent(), 'No attachments.');

  // Added by keyboard: label, Tab, address, Enter; back on the editor's step, at the section.
  await typeInto(page, '#attachment-label', 'Terms and conditions');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'attachment-url');
  await page.keyboard.type('https://example.com/terms');
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.pathname === `/documents/${draft}/edit` && u.hash === '#attachments');
  const link1 = page.locator('.attachment-link a', { hasText: 'Terms and conditions' });
  await link1.waitFor();
  assert.equal(await link1.getAttribute('target'), '_blank');
  assert.equal(await link1.getAttribute('rel'), 'noopener noreferrer');
  assert.equal(await page.locator('.attachment-link .attachment-host').first().textContent(), 'example.com');

  // A refused address: the attachments page, the message beside the box, the values kept.
  await typeInto(page, '#attachment-label', 'Price list');
  await typeInto(page, '#attachment-url', 'javascript:alert(1)');
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.pathname === `/documents/${draft}/attachments`);
  await page.locator('#attachment-url-error').waitFor();
  assert.match(await page.locator('#attachment-url-error').textContent(), /http or https/);
  assert.equal(await page.locator('#attachment-url').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator('#attachment-label').inputValue(), 'Price list');
  await bothSizes(page, outDir, 'attachments-refused', 'attachments page, refused');

  // Corrected there: it stays on that page, now with two links.
  await typeInto(page, '#attachment-url', 'https://prices.example.org/2026');
  await page.keyboard.press('Enter');
  await page.locator('.attachment', { hasText: 'Price list' }).waitFor();
  assert.equal(await page.locator('.attachment').count(), 2);

  // Edited by keyboard: open the fold, change the label, Enter saves it.
  const first = page.locator('.attachment').first();
  await first.locator('summary').focus();
  await page.keyboard.press('Enter');
  const label = first.locator('input[name=label]');
  await label.waitFor();
  await typeInto(page, `#${await label.getAttribute('id')}`, 'Terms (2026)');
  await page.keyboard.press('Enter');
  await page.locator('.attachment-link a', { hasText: 'Terms (2026)' }).waitFor();

  // The editor's step with both, at both sizes.
  await page.goto(`${base}/documents/${draft}/edit?step=settings`);
  await page.locator('#attachments').scrollIntoViewIfNeeded();
  await bothSizes(page, outDir, 'attachments-editor', 'editor, attachments');

  // Removed by keyboard: focus Remove, Enter.
  await page.locator('.attachment', { hasText: 'Price list' }).getByRole('button', { name: 'Remove Price list' }).focus();
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.hash === '#attachments');
  await page.locator('.attachment', { hasText: 'Price list' }).waitFor({ state: 'detached' });
  assert.equal(await page.locator('.attachment').count(), 1);

  // The sent document's page lists its links, still changeable while it waits.
  await page.goto(`${base}/documents/${sent}`);
  await page.locator('#attachments .attachment').first().waitFor();
  assert.ok(await page.locator('#attachment-add').isVisible());
  await bothSizes(page, outDir, 'attachments-document', 'document page, attachments');
  // The refused form answered 400 on purpose, once; nothing else went wrong.
  assert.equal(problems.filter((p) => /status of 400/.test(p)).length, 1, problems.join('\n'));
  assert.deepEqual(problems.filter((p) => !/status of 400/.test(p)), []);
  await ctx.close();

  // The recipient's signing page: each link opens apart, with the site it goes to.
  const rctx = await browser.newContext({ viewport: DESKTOP });
  const rpage = await rctx.newPage();
  const rproblems = watch(rpage, base);
  await rpage.goto(link);
  await rpage.locator('#sign-bar').waitFor();
  const links = rpage.locator('ul.attachments a');
  assert.equal(await links.count(), 2);
  for (const a of await links.all()) {
    assert.equal(await a.getAttribute('target'), '_blank');
    assert.equal(await a.getAttribute('rel'), 'noopener noreferrer');
  }
  assert.deepEqual(await rpage.locator('ul.attachments .attachment-host').allTextContents(), ['example.com', 'maps.example.net']);
  await rpage.locator('ul.attachments a').first().focus();
  assert.equal(await rpage.evaluate(() => document.activeElement.textContent), 'Lease terms');
  await bothSizes(rpage, outDir, 'attachments-signing', 'signing page, attachments');
  assert.deepEqual(rproblems, []);
  await rctx.close();
  summary.ok = true;
} catch (e) {
  summary.error = String(e && e.stack || e);
} finally {
  await browser.close();
  console.log(JSON.stringify(summary));
  process.exit(summary.ok ? 0 : 1);
}
