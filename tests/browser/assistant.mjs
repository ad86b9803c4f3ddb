// An ASSISTANT on the signing page in headless Chromium: the fields of the next signer are
// shown for her by name, the assistant fills in a text field for her and finishes. Prints one
// JSON summary line; exits non-zero on any failure.
//
// Usage: node assistant.mjs <assistant's link> <signer's name> <out_dir>
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';

const [link, forName, outDir] = process.argv.slice(2);
mkdirSync(outDir, { recursive: true });
const origin = new URL(link).origin;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const summary = { ok: false };

try {
  const page = await browser.newPage();
  const problems = [];
  page.on('request', (r) => { if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) problems.push('foreign ' + r.url()); });
  page.on('pageerror', (e) => problems.push('script error ' + e.message));
  await page.goto(link);
  const field = page.locator('.sign-field[data-type=TEXT]');
  await field.waitFor();
  assert.match(await field.getAttribute('aria-label'), new RegExp('for ' + forName));
  assert.equal(await page.locator('.sign-field[data-type=SIGNATURE]').count(), 0, 'never a signature');
  const finish = page.locator('#complete');
  assert.equal(await finish.textContent(), 'Finish preparing');
  assert.ok(await finish.isEnabled(), 'nothing of hers is required of the assistant');
  await field.click();
  await page.fill('#field-input', 'Flat 2');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('dialog').waitFor({ state: 'detached' });
  await page.locator('.sign-field.filled[data-type=TEXT]').waitFor();
  await page.screenshot({ path: `${outDir}/assistant-filled.png`, fullPage: true });
  await finish.click();
  await page.locator('#done').waitFor();
  assert.deepEqual(problems, []);
  summary.ok = true;
} catch (e) {
  summary.error = String(e && e.stack || e);
} finally {
  await browser.close();
  console.log(JSON.stringify(summary));
  process.exit(summary.ok ? 0 : 1);
}
