// The signing page in headless Chromium. The first signer (desktop, mouse) is guided through a
// long form (the status line says what to do now, progress counts the required fields, "Next
// field" goes to each), draws a signature and fills every field; the second signer (phone size,
// touch and keyboard only) must wait for the first, then signs with a typed signature reached by
// Tab and Enter, shown in the script face the sealed PDF uses, with the finishing buttons in a
// bar kept on screen. Prints one JSON summary line; exits non-zero on any failure.
//
// Usage: node signing.mjs first <first signer's link> <second signer's link> <out_dir>
//        node signing.mjs second <second signer's link> <out_dir>
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { axe, bothSizes as bothSizesIn, PHONE, watch as watchPage } from './lib.mjs';

const mode = process.argv[2];
const [firstLink, secondLink, outDir] = mode === 'first'
  ? process.argv.slice(3)
  : [null, process.argv[3], process.argv[4]];
mkdirSync(outDir, { recursive: true });
const origin = new URL(secondLink).origin;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const summary = { ok: false };

const watch = (page) => watchPage(page, origin);

async function pagesRendered(page) {
  const imgs = page.locator('.sign-page img');
  const n = await imgs.count();
  assert.ok(n >= 1, 'pages shown');
  for (let i = 0; i < n; i++) {
    await imgs.nth(i).scrollIntoViewIfNeeded();
    await page.waitForFunction((el) => el.complete && el.naturalWidth > 0, await imgs.nth(i).elementHandle());
  }
  return n;
}

const bothSizes = (page, name, label) => bothSizesIn(page, outDir, name, label);

// Every filled value and typed signature on the page as laid out, in points from its page's
// top-left corner (the sealed PDF's terms, for signing_e2e to compare with `pdftotext -bbox`);
// each must be one line inside its box, clear of the box's padding, in the seal's face, loaded.
async function valuesAsLaidOut(page, label) {
  await page.evaluate(async () => {
    await document.fonts.ready;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
  const values = await page.evaluate(() => [...document.querySelectorAll('.sign-field .sign-text, .sign-field .sign-typed')].map((span) => {
    const box = span.parentElement;
    const sheet = box.parentElement;
    const perPt = sheet.clientWidth / Number(sheet.dataset.ptWidth);
    const s = span.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    const p = sheet.getBoundingClientRect();
    const size = parseFloat(getComputedStyle(span).fontSize);
    const family = getComputedStyle(span).fontFamily;
    return {
      type: box.dataset.type, text: span.textContent, family,
      loaded: document.fonts.check(`16px ${family.split(',')[0]}`, span.textContent),
      left: (s.left - p.left) / perPt, right: (s.right - p.left) / perPt, size: size / perPt,
      oneLine: Math.abs(s.height - size) < 1,
      inside: s.left >= b.left + Math.min(b.height * 0.1, 2 * perPt) - 0.5 && s.right <= b.right - Math.min(b.height * 0.1, 2 * perPt) + 0.5,
      share: size / b.height,
    };
  }));
  for (const v of values) {
    const where = `${label}: ${JSON.stringify(v)}`;
    assert.ok(v.oneLine && v.inside, 'one line inside its box, ' + where);
    assert.ok(v.share <= 0.7 + 1e-3, 'at most 70% of the box high, ' + where);
    assert.match(v.family, v.type === 'SIGNATURE' || v.type === 'INITIALS' || v.type === 'FREE_SIGNATURE' ? /^"Docket Signature"/ : /^"Docket Text"/, where);
    assert.ok(v.loaded, 'the face loaded, ' + where);
  }
  return values;
}

// The status line's text.
async function status(page) {
  return (await page.locator('#signing-status').innerText()).trim();
}

// The type of the field button that has focus.
const focusedType = (page) => page.evaluate(() => document.activeElement && document.activeElement.dataset.type);

async function save(page) {
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('dialog').waitFor({ state: 'detached' });
}

async function first() {
  // The second signer opens the link first: not their turn, nothing to press.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const early = await phone.newPage();
  const earlyProblems = watch(early);
  await early.goto(secondLink);
  await early.getByText('It is not your turn yet').waitFor();
  assert.equal(await early.locator('#complete').count(), 0, 'no finish button out of turn');
  assert.ok(await early.locator('.sign-field').count() > 0, 'own fields are shown');
  assert.ok(await early.locator('.sign-field').first().isDisabled(), 'fields are disabled out of turn');
  await early.screenshot({ path: `${outDir}/sign-waiting-phone.png`, fullPage: true });
  await axe(early, 'the signing page while waiting (phone)');
  assert.deepEqual(earlyProblems, []);

  // First signer, desktop, with the mouse.
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await desktop.newPage();
  const problems = watch(page);
  await page.goto(firstLink);
  await page.locator('#sign-bar').waitFor();
  summary.pages = await pagesRendered(page);
  const field = (type) => page.locator(`.sign-field[data-type="${type}"]`);
  assert.ok(await page.locator('#complete').isDisabled(), 'cannot finish with required fields empty');
  // The sender as on the gate; the status line says what to do now; progress counts.
  assert.match(await page.locator('.sender').innerText(), /^Sent by .+ \(.+@.+\)$/);
  assert.equal(await status(page), 'Required fields still empty: 3. “Next field” takes you to each; then press “Finish and sign”.');
  assert.equal(await page.locator('#sign-progress-text').innerText(), 'Required fields filled: 0 of 3');
  assert.equal(await page.locator('#sign-progress').getAttribute('max'), '3');
  // The banner-less page still leaves a gap between the sender line and the status line.
  const gap = await page.evaluate(() => {
    const a = document.querySelector('.sender').getBoundingClientRect();
    const b = document.getElementById('signing-status').getBoundingClientRect();
    return b.top - a.bottom;
  });
  assert.ok(gap >= 8, 'space above the status line: ' + gap);
  await bothSizes(page, 'sign-start', 'the signing page, nothing filled');
  // "Next field" goes through the required fields in reading order: the address, the number of
  // tenants (both near the top), then the signature further down, and round again.
  await page.locator('#next-field').click();
  assert.equal(await focusedType(page), 'TEXT');
  await page.locator('#next-field').click();
  assert.equal(await focusedType(page), 'NUMBER');
  await page.locator('#next-field').click();
  assert.equal(await focusedType(page), 'SIGNATURE');
  // Scrolled (smoothly) into view, clear of the bar at the bottom.
  await page.waitForFunction(() => {
    const r = document.activeElement.getBoundingClientRect();
    const bar = document.getElementById('sign-bar').getBoundingClientRect();
    return r.top >= 0 && r.bottom <= bar.top;
  }, null, { timeout: 5000 });
  await page.locator('#next-field').click();
  assert.equal(await focusedType(page), 'TEXT', 'round again to the first still empty');

  // Signature: drawn with the mouse on the pad.
  await field('SIGNATURE').click();
  const pad = page.locator('canvas.sign-pad');
  const box = await pad.boundingBox();
  await page.mouse.move(box.x + 20, box.y + box.height * 0.7);
  await page.mouse.down();
  for (let i = 1; i <= 24; i++) {
    await page.mouse.move(box.x + 20 + i * (box.width - 40) / 24, box.y + box.height * (0.7 - 0.4 * Math.sin(i / 3)));
  }
  await page.mouse.up();
  await save(page);
  // The drawn signature shows as its image in its box.
  const drawn = field('SIGNATURE').locator('img.sign-image');
  await drawn.waitFor();
  await page.waitForFunction((el) => el.complete && el.naturalWidth > 0, await drawn.elementHandle());
  assert.equal(await page.locator('#sign-progress-text').innerText(), 'Required fields filled: 1 of 3');
  assert.equal(await focusedType(page), 'SIGNATURE', 'focus back on the field just filled');
  await page.locator('#next-field').click();
  assert.equal(await focusedType(page), 'TEXT', 'the next still empty');

  // Initials: typed.
  await field('INITIALS').click();
  await page.getByLabel('Or type it').fill('AS');
  await save(page);

  // Name and e-mail come prefilled.
  await field('NAME').click();
  assert.equal(await page.locator('#field-input').inputValue(), 'Ann Signer');
  await save(page);
  await field('EMAIL').click();
  assert.equal(await page.locator('#field-input').inputValue(), 'ann@example.com');
  await save(page);

  // Text respects its character limit: the input stops at 12 characters.
  await field('TEXT').click();
  await page.locator('#field-input').fill('');
  await page.locator('#field-input').pressSequentially('Flat 4B, Rue de la Paix 12');
  assert.equal((await page.locator('#field-input').inputValue()).length, 12);
  await save(page);

  // Number: out of bounds is refused by the server with a message; then a good one.
  await field('NUMBER').click();
  await page.locator('#field-input').fill('99');
  await page.evaluate(() => { document.querySelector('#field-input').removeAttribute('max'); });
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('alert').waitFor();
  // The server's message, shown as a sentence.
  assert.match(await page.getByRole('alert').innerText(), /^[A-Z].*largest allowed value is 10.*\.$/);
  // That refusal was the point; the browser logs the 400 it got, which is not a fault.
  const refused = problems.findIndex((p) => p.includes('status of 400'));
  assert.ok(refused >= 0, 'the server refused the value');
  problems.splice(refused, 1);
  await page.locator('#field-input').fill('7');
  await save(page);

  await field('CHECKBOX').click();
  await page.getByLabel('Pets').check();
  await page.getByLabel('Parking').check();
  await save(page);
  await field('RADIO').click();
  await page.getByLabel('Yearly').check();
  await save(page);
  await field('SELECT').click();
  await page.locator('dialog select#field-input').selectOption('Furnished');
  await save(page);

  assert.ok(await field('DATE').isDisabled(), 'the date is filled at completion');
  // Everything required is in: the line says to finish; no "Next field" is left.
  assert.equal(await status(page), 'Everything required is filled in. Check the document, then press “Finish and sign”.');
  assert.equal(await page.locator('#sign-progress-text').innerText(), 'Required fields filled: 3 of 3');
  assert.equal(await page.locator('#next-field').count(), 0);
  assert.ok(await page.locator('#complete').isEnabled());
  await bothSizes(page, 'sign-filled', 'the filled signing page');
  // Every value as the seal will write it, at both sizes: the same points on the page.
  summary.desktopValues = await valuesAsLaidOut(page, 'desktop');
  const desktopSize = page.viewportSize();
  await page.setViewportSize(PHONE);
  summary.phoneValues = await valuesAsLaidOut(page, 'phone');
  await page.setViewportSize(desktopSize);
  await page.locator('#complete').click();
  await page.locator('#done').waitFor();
  await page.screenshot({ path: `${outDir}/sign-done-desktop.png`, fullPage: true });
  await axe(page, 'the signed page (desktop)');
  assert.deepEqual(problems, []);
}

async function second() {
  // Second signer, phone: now it is their turn; keyboard only (Tab to the field, Enter).
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const second = await phone.newPage();
  const secondProblems = watch(second);
  await second.goto(secondLink);
  await second.locator('#sign-bar').waitFor();
  assert.match(await status(second), /^Required fields still empty: 1\./);
  // The finishing buttons are on screen before any scrolling, at the bottom (a sticky bar).
  const bar = await second.locator('#sign-bar').boundingBox();
  assert.ok(bar.y + bar.height <= PHONE.height + 1 && bar.y > PHONE.height / 2, 'the bar sits at the bottom: ' + JSON.stringify(bar));
  for (const id of ['#next-field', '#complete', '#reject']) {
    const b = await second.locator(id).boundingBox();
    assert.ok(b && b.y >= 0 && b.y + b.height <= PHONE.height, id + ' is on screen');
  }
  await second.screenshot({ path: `${outDir}/sign-start-phone-screen.png` });
  await pagesRendered(second);
  await second.locator('.sign-field').first().focus();
  await second.keyboard.press('Enter');
  await second.locator('canvas.sign-pad').waitFor();
  await second.keyboard.press('Tab'); // Clear
  await second.keyboard.press('Tab'); // the typed signature
  await second.keyboard.type('Bea Second');
  await second.keyboard.press('Enter');
  await second.locator('dialog').waitFor({ state: 'detached' });
  // The typed signature shows in the script face the sealed PDF stamps it with.
  const typed = second.locator('.sign-field .sign-typed');
  await typed.waitFor();
  assert.match(await typed.evaluate((e) => getComputedStyle(e).fontFamily), /^"Docket Signature"/);
  await second.evaluate(() => document.fonts.ready);
  assert.ok(await second.evaluate(() => document.fonts.check('16px "Docket Signature"')), 'the script face loaded');
  assert.ok(await second.evaluate(() => [...document.fonts].some((f) => f.family.includes('Docket Signature') && f.status === 'loaded')));
  assert.equal(await status(second), 'Everything required is filled in. Check the document, then press “Finish and sign”.');
  await second.screenshot({ path: `${outDir}/sign-typed-phone-screen.png` });
  await second.screenshot({ path: `${outDir}/sign-typed-phone.png`, fullPage: true });
  await axe(second, 'the filled signing page (phone)');
  await second.locator('#complete').tap();
  await second.locator('#done').waitFor();
  await second.screenshot({ path: `${outDir}/sign-done-phone.png`, fullPage: true });
  await axe(second, 'the signed page (phone)');
  assert.deepEqual(secondProblems, []);
}

try {
  if (mode === 'first') await first();
  else await second();
  summary.ok = true;
} finally {
  await browser.close();
  console.log(JSON.stringify(summary));
}
