// The public check of sealed PDFs in headless Chromium, signed out: the page is reached from
// the login page's footer, a sealed PDF is picked by keyboard and checked (the verdict, the
// document and its recipients), then a changed one; axe-core, no sideways scrolling and
// screenshots at desktop and phone size for the form and both verdicts; no scripts needed.
//
// Usage: node verify.mjs <base> <sealed pdf> <changed pdf> <out_dir>
import assert from 'node:assert/strict';
import { launch, watch, bothSizes, DESKTOP } from './lib.mjs';

const [base, sealedPdf, changedPdf, outDir] = process.argv.slice(2);
const browser = await launch();
const summary = { ok: false };
try {
  const page = await browser.newPage({ viewport: DESKTOP });
  const problems = watch(page, base);
  await page.goto(`${base}/auth/login`);
  await page.getByRole('link', { name: 'Check a sealed PDF' }).click();
  await page.waitForURL(`${base}/verify`);
  await bothSizes(page, outDir, 'verify-form', 'the check page');

  // By keyboard: the file box is reached with Tab, the file chosen, the button pressed.
  const input = page.getByLabel('PDF file');
  await input.focus();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'file');
  await input.setInputFiles(sealedPdf);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'check');
  await Promise.all([page.waitForURL(`${base}/verify`), page.keyboard.press('Enter')]);
  await page.locator('#result').waitFor();
  assert.equal(await page.locator('#verdict-title').innerText(), 'Sealed here, unchanged');
  assert.equal(await page.locator('#verified-title').innerText(), 'Lease of Flat 4B');
  const signers = await page.locator('#signers li').allInnerTexts();
  assert.equal(signers.length, 2, JSON.stringify(signers));
  assert.match(signers[0], /Ann Signer[\s\S]*ann@example\.com[\s\S]*Signer, signed/);
  assert.match(signers[1], /Cid Copy[\s\S]*Cc/);
  await bothSizes(page, outDir, 'verify-sealed', 'a sealed PDF checked');

  await page.getByLabel('PDF file').setInputFiles(changedPdf);
  await Promise.all([page.waitForURL(`${base}/verify`), page.getByRole('button', { name: 'Check the file' }).click()]);
  await page.locator('#result').waitFor();
  assert.equal(await page.locator('#verdict-title').innerText(), 'Changed since it was sealed');
  await bothSizes(page, outDir, 'verify-changed', 'a changed PDF checked');

  assert.deepEqual(problems, []);
  summary.ok = true;
} finally {
  await browser.close();
  console.log(JSON.stringify(summary));
}
