// The document page's pages in headless Chromium, at desktop and phone sizes: a half-signed
// document's page draws its three fields over the page, each in its recipient's colour (the
// editor's), the filled ones with their value and the one still to fill as an outline; a
// completed document's page draws no boxes and shows the sealed pages (images that are not the
// upload's). axe-core, no sideways scrolling; screenshots document-fields-* and
// document-sealed-*.
//
// Usage: node document_fields.mjs <base> <email> <password> <half-signed id> <completed id>
//        <sha-256 of the upload's page 1 at 800,1200,1600 px> <out dir>
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { launch, watch, signIn, bothSizes, fitsWidth, DESKTOP, PHONE } from './lib.mjs';

const [base, email, password, pending, done, originals, outDir] = process.argv.slice(2);
const summary = { ok: false };
const browser = await launch();
// The editor's colours of the first and second recipient (by id).
const FIRST = 'rgb(47, 111, 222)';
const SECOND = 'rgb(194, 65, 12)';

async function fields(page) {
  await page.goto(`${base}/documents/${pending}`);
  await page.locator('#doc-pages .ed-field').nth(2).waitFor();
  await page.waitForFunction(() => [...document.querySelectorAll('#doc-pages img')].every((i) => i.complete && i.naturalWidth > 0));
  const boxes = await page.locator('#doc-pages .ed-field').evaluateAll((all) => all.map((el) => {
    const s = getComputedStyle(el);
    return { type: el.dataset.type, text: el.innerText.trim(), colour: s.borderTopColor, style: s.borderTopStyle, filled: el.classList.contains('filled') };
  }));
  boxes.sort((a, b) => a.text.localeCompare(b.text));
  assert.deepEqual(boxes, [
    { type: 'TEXT', text: 'Acme Ltd', colour: FIRST, style: 'solid', filled: true },
    { type: 'SIGNATURE', text: 'Cy Crane', colour: FIRST, style: 'solid', filled: true },
    { type: 'SIGNATURE', text: 'Signature · Di Dale', colour: SECOND, style: 'dashed', filled: false },
  ]);
  // Each box sits over the page where the API placed it: Di's 85% down, 10% in.
  const at = await page.locator('#doc-pages .ed-field.to-fill').evaluate((el) => {
    const p = el.closest('.ed-page').getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return { x: ((r.left - p.left) / p.width) * 100, y: ((r.top - p.top) / p.height) * 100 };
  });
  assert.ok(Math.abs(at.x - 10) < 0.5 && Math.abs(at.y - 85) < 0.5, `Di's box at ${JSON.stringify(at)}`);
  // The legend and the recipients' names carry the same colours.
  const legend = await page.locator('#doc-legend li').allInnerTexts();
  assert.deepEqual(legend.map((t) => t.trim()), ['Cy Crane', 'Di Dale']);
  const swatches = await page.locator('.recipient-who .swatch').evaluateAll((all) => all.map((s) => getComputedStyle(s).backgroundColor));
  assert.deepEqual(swatches, [FIRST, SECOND]);
  await page.getByRole('list', { name: 'Fields for Di Dale' }).getByText('Not filled yet').waitFor();
  summary.fields = boxes.length;
}

async function sealed(page) {
  await page.goto(`${base}/documents/${done}`);
  await page.getByText('The signed pages').waitFor();
  const img = page.locator('#doc-pages img').first();
  await img.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => { const i = document.querySelector('#doc-pages img'); return i.complete && i.naturalWidth > 0; });
  assert.equal(await page.locator('#doc-pages .ed-field').count(), 0, 'no boxes over sealed pages');
  // The image shown is the sealed copy's page, not the upload's.
  const src = await img.evaluate((el) => el.currentSrc);
  const bytes = await (await page.request.get(src)).body();
  const hash = createHash('sha256').update(bytes).digest('hex');
  assert.ok(!originals.split(',').includes(hash), `${src} is the upload's page`);
  await page.evaluate(() => window.scrollTo(0, 0));
}

// Desktop, each page then resized to a phone's width (bothSizes); then a touch phone.
let context = await browser.newContext({ viewport: DESKTOP });
let page = await context.newPage();
let problems = watch(page, base);
await signIn(page, base, email, password, '/');
await fields(page);
await bothSizes(page, outDir, 'document-fields', 'document page with fields');
await sealed(page);
await bothSizes(page, outDir, 'document-sealed', 'document page, sealed');
assert.deepEqual(problems, []);
await context.close();

context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
page = await context.newPage();
problems = watch(page, base);
await signIn(page, base, email, password, '/');
await fields(page);
await fitsWidth(page, 'document page with fields, touch phone');
await sealed(page);
await fitsWidth(page, 'document page, sealed, touch phone');
assert.deepEqual(problems, []);
await context.close();

summary.ok = true;
await browser.close();
console.log(JSON.stringify(summary));
