// The signing page in headless Chromium. The first signer (desktop, mouse) draws a signature and
// fills every field; the second signer (phone size, touch and keyboard only) must wait for the
// first, then signs with a typed signature reached by Tab and Enter. Prints one JSON summary
// line; exits non-zero on any failure.
//
// Usage: node signing.mjs first <first signer's link> <second signer's link> <out_dir>
//        node signing.mjs second <second signer's link> <out_dir>
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { axe, watch as watchPage } from './lib.mjs';

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
  await page.getByText('Fill in the highlighted fields').waitFor();
  summary.pages = await pagesRendered(page);
  const field = (type) => page.locator(`.sign-field[data-type="${type}"]`);
  assert.ok(await page.locator('#complete').isDisabled(), 'cannot finish with required fields empty');

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
  assert.match(await page.getByRole('alert').innerText(), /largest allowed value is 10/);
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
  await page.screenshot({ path: `${outDir}/sign-filled-desktop.png`, fullPage: true });
  await axe(page, 'the filled signing page (desktop)');
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
  await second.getByText('Fill in the highlighted fields').waitFor();
  await pagesRendered(second);
  await second.locator('.sign-field').first().focus();
  await second.keyboard.press('Enter');
  await second.locator('canvas.sign-pad').waitFor();
  await second.keyboard.press('Tab'); // Clear
  await second.keyboard.press('Tab'); // the typed signature
  await second.keyboard.type('Bea Second');
  await second.keyboard.press('Enter');
  await second.locator('dialog').waitFor({ state: 'detached' });
  await second.screenshot({ path: `${outDir}/sign-filled-phone.png`, fullPage: true });
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
