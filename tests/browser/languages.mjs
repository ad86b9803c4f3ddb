// A German signer in headless Chromium, at phone size: the signing page speaks German (its
// language, the status line, the bar, the signature dialog), and the last signer, once done,
// is told the document is complete and gets the signed copy without reloading the page.
// Prints one JSON summary line; exits non-zero on any failure.
//
// Usage: node languages.mjs <signing link> <out_dir>
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { axe, launch, PHONE, watch } from './lib.mjs';

const [link, outDir] = process.argv.slice(2);
mkdirSync(outDir, { recursive: true });
const origin = new URL(link).origin;
const browser = await launch();
const summary = { ok: false };

try {
  // The desktop view first: the page's language and words, then axe.
  const desk = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const deskProblems = watch(desk, origin);
  await desk.goto(link);
  await desk.locator('#sign-bar').waitFor();
  assert.equal(await desk.locator('html').getAttribute('lang'), 'de');
  assert.equal(await desk.locator('#signing-status').innerText(),
    'Noch leere Pflichtfelder: 1. „Nächstes Feld“ führt Sie zu jedem; drücken Sie dann „Abschließen und unterschreiben“.');
  assert.equal(await desk.locator('#sign-progress-text').innerText(), 'Ausgefüllte Pflichtfelder: 0 von 1');
  assert.equal(await desk.locator('#next-field').innerText(), 'Nächstes Feld');
  assert.match(await desk.locator('.sender').innerText(), /^Gesendet von /);
  assert.equal(await desk.locator('.skip-link').textContent(), 'Zum Hauptinhalt springen');
  await desk.screenshot({ path: `${outDir}/language-de-desktop.png`, fullPage: true });
  await axe(desk, 'the German signing page (desktop)');
  assert.deepEqual(deskProblems, []);
  await desk.close();

  // The phone: sign with a typed signature in the German dialog, finish, get the copy.
  const phone = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true });
  const page = await phone.newPage();
  const problems = watch(page, origin);
  await page.goto(link);
  await page.locator('#sign-bar').waitFor();
  // The German count, longer than the English, wraps on the bar rather than running off it.
  const count = await page.locator('#sign-progress-text').boundingBox();
  const bar = await page.locator('#sign-progress').boundingBox();
  assert.ok(count.x + count.width <= PHONE.width - 8, 'the count is on screen: ' + JSON.stringify(count));
  assert.ok(bar.width >= 40, 'the bar keeps some width: ' + JSON.stringify(bar));
  await page.screenshot({ path: `${outDir}/language-de-start-phone.png` });
  await page.locator('.sign-field').first().tap();
  const dialog = page.locator('dialog');
  await dialog.waitFor();
  assert.equal(await dialog.locator('h2').innerText(), 'Hier unterschreiben');
  assert.equal(await dialog.locator('label[for=typed-signature]').innerText(), 'Oder eintippen');
  assert.equal(await dialog.locator('button[type=submit]').innerText(), 'Speichern');
  assert.equal(await dialog.locator('button[type=button]').last().innerText(), 'Abbrechen');
  await page.screenshot({ path: `${outDir}/language-de-dialog-phone.png` });
  await axe(page, 'the German signature dialog (phone)');
  await page.locator('#typed-signature').fill('Anna Muster');
  await dialog.locator('button[type=submit]').tap();
  await dialog.waitFor({ state: 'detached' });
  assert.equal(await page.locator('#signing-status').innerText(),
    'Alle Pflichtfelder sind ausgefüllt. Prüfen Sie das Dokument und drücken Sie dann „Abschließen und unterschreiben“.');
  assert.equal(await page.locator('#complete').innerText(), 'Abschließen und unterschreiben');
  await page.locator('#complete').tap();
  // The last signer: "being prepared", then, without a reload, the copy to download.
  await page.locator('#done').waitFor();
  const download = page.locator('#download-signed');
  await download.waitFor({ timeout: 90000 });
  assert.equal(await page.locator('#done').innerText(), 'Alle haben unterschrieben: Dieses Dokument ist abgeschlossen.');
  assert.equal(await download.innerText(), 'Unterschriebene Fassung herunterladen');
  const href = await download.getAttribute('href');
  assert.match(href, /^\/sign\/[^/]+\/download$/);
  const answer = await page.request.get(new URL(href, origin).href);
  assert.equal(answer.status(), 200);
  const body = await answer.body();
  assert.equal(body.subarray(0, 4).toString(), '%PDF', 'the signed copy');
  summary.copyBytes = body.length;
  await page.screenshot({ path: `${outDir}/language-de-done-phone.png`, fullPage: true });
  await axe(page, 'the completed German page (phone)');
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(scroll <= 0, 'no sideways scrolling: ' + scroll);
  assert.deepEqual(problems, []);
  summary.ok = true;
} finally {
  await browser.close();
  console.log(JSON.stringify(summary));
}
