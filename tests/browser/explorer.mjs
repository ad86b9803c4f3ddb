// The API explorer page in headless Chromium: it lists every operation of the OpenAPI
// document, works with no external requests, and sends a real request with an API key.
// Usage: node explorer.mjs <base> <api key> <out_dir>
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';

const [base, key, outDir] = process.argv.slice(2);
mkdirSync(outDir, { recursive: true });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const foreign = [];
  const errors = [];
  page.on('request', (r) => { if (!r.url().startsWith(base)) foreign.push(r.url()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`${base}/api/v1/openapi`);
  await page.locator('#endpoints details').first().waitFor();
  const spec = await (await fetch(`${base}/api/v1/openapi.json`)).json();
  const operations = Object.values(spec.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
  assert.equal(await page.locator('#endpoints details').count(), operations, 'every operation is listed');

  // Filter to the create-document operation and send it.
  await page.getByLabel('API key or access token').fill(key);
  await page.getByLabel('Filter endpoints').fill('post /api/v1/documents create');
  const op = page.locator('#endpoints details:not([hidden])').filter({ hasText: 'Create a document' });
  await op.locator('summary').click();
  const body = op.getByLabel('JSON body');
  await body.fill(JSON.stringify({ title: 'From the explorer', recipients: [{ email: 'ann@example.com', name: 'Ann' }] }));
  await op.getByRole('button', { name: 'Send request' }).click();
  await op.locator('pre').filter({ hasText: '200' }).waitFor();
  const out = await op.locator('pre').innerText();
  assert.match(out, /"uploadUrl"/);
  await page.screenshot({ path: `${outDir}/explorer.png`, fullPage: false });
  assert.deepEqual(foreign, [], 'no external requests');
  assert.deepEqual(errors, [], 'no script errors (CSP included)');
  console.log(JSON.stringify({ ok: true, operations }));
} finally {
  await browser.close();
}
