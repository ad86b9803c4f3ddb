// Embedded signing in headless Chromium, driven by Documenso's own React components from npm
// (`@documenso/embed-react`, bundled here with esbuild's API into a temporary folder: the test
// alone builds it, the product has no build step), on a page served by a small HTTP server of
// this script on a second loopback origin (another port of 127.0.0.1: another origin).
//
// The owner lists that origin in Settings -> Embedding (a refused origin first). Then:
// - `EmbedSignDocument` frames `/embed/sign/<token>` with the name locked, colours and dark
//   mode off: the page shows no rejection, the locked name in the NAME field; the recipient
//   fills the TEXT field, empties it, fills it again, signs and finishes; the framing page gets
//   document-ready, field-signed (with the field's id), field-unsigned, document-completed
//   ({ token, documentId, recipientId }) from Docket's origin, and the component's callbacks
//   fire with the same data. axe-core inside the frame; at phone width nothing scrolls
//   sideways.
// - With `allowDocumentRejection`, another recipient rejects: document-rejected with the
//   reason.
// - `EmbedDirectTemplate` frames `/embed/direct/<token>` with the e-mail locked: the visitor
//   gives a name, signs the document made for them; onFieldSigned and onDocumentCompleted fire.
// - The same component on a third origin, not listed, is refused by the browser: the frame
//   shows Chromium's error page, no event arrives, and the console names frame-ancestors.
// Screenshots embed-*-desktop and embed-*-phone.
//
// Usage: node embed.mjs <base> <email> <password> <sign token> <reject token> <direct token>
//        <refused token> <document id> <recipient id> <out dir>
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { launch, axe, shot, signIn, DESKTOP, PHONE, until } from './lib.mjs';

const [base, email, password, signToken, rejectToken, directToken, refusedToken, documentId, recipientId, outDir] =
  process.argv.slice(2);
const summary = { ok: false };
const here = dirname(fileURLToPath(import.meta.url));

// The framing site: one React page choosing its component from the query, recording each
// message event (origin and data) and each callback of the component in `window.seen`.
const APP = `
import { createRoot } from 'react-dom/client';
import { EmbedSignDocument, EmbedDirectTemplate } from '@documenso/embed-react';

window.seen = { raw: [], callbacks: [] };
window.addEventListener('message', (e) => window.seen.raw.push({ origin: e.origin, data: e.data }));
const q = new URLSearchParams(location.search);
const note = (name) => (data) => window.seen.callbacks.push({ name, data: data === undefined ? null : data });
const common = {
  host: q.get('host'),
  token: q.get('token'),
  className: 'frame',
  name: q.get('name') || undefined,
  lockName: q.has('lockName'),
  email: q.get('email') || undefined,
  lockEmail: q.has('lockEmail'),
  darkModeDisabled: true,
  cssVars: { primary: '#0a6e31', radius: '4px', background: 'url(https://evil.example/x.png)' },
  onDocumentReady: note('onDocumentReady'),
  onDocumentCompleted: note('onDocumentCompleted'),
  onDocumentError: note('onDocumentError'),
};
const app = q.get('kind') === 'direct'
  ? <EmbedDirectTemplate {...common} onFieldSigned={note('onFieldSigned')} onFieldUnsigned={note('onFieldUnsigned')} />
  : <EmbedSignDocument {...common} allowDocumentRejection={q.has('reject')} onDocumentRejected={note('onDocumentRejected')} />;
createRoot(document.getElementById('root')).render(<main><h1>Shop checkout</h1>{app}</main>);
`;

const HTML = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop</title>
<style>body{margin:0;font-family:sans-serif} main{padding:8px} .frame{display:block;width:100%;height:760px;border:1px solid #888;box-sizing:border-box}</style>
</head><body><div id="root"></div><script type="module" src="/app.js"></script></body></html>`;

async function bundle() {
  const dir = mkdtempSync(join(tmpdir(), 'docket-embed-'));
  await build({
    stdin: { contents: APP, resolveDir: here, loader: 'jsx', sourcefile: 'app.jsx' },
    bundle: true, format: 'esm', jsx: 'automatic', minify: false, logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
    outfile: join(dir, 'app.js'),
  });
  return dir;
}

// A server on 127.0.0.1 (a port of its own: an origin of its own) serving the page and the
// bundle; resolves to its origin.
function serve(dir) {
  const js = readFileSync(join(dir, 'app.js'));
  const server = http.createServer((req, res) => {
    if (req.url === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(js);
    } else {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(HTML);
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ origin: `http://127.0.0.1:${server.address().port}`, server });
  }));
}

const docket = new URL(base).origin;
const events = (page) => page.evaluate(() => window.seen.raw);
const callbacks = (page) => page.evaluate(() => window.seen.callbacks);
const actions = async (page) => (await events(page)).map((e) => e.data && e.data.action);

// Waits until the framing page got `action` (counting `n` of them); returns the last one's data.
async function got(page, action, n = 1) {
  await until(page, `${action} x${n} reached the framing page`,
    ([a, k]) => window.seen.raw.filter((e) => e.data && e.data.action === a).length >= k, [action, n]);
  const all = (await events(page)).filter((e) => e.data && e.data.action === action);
  for (const e of all) assert.equal(e.origin, docket, `${action} comes from Docket's origin`);
  return all[n - 1].data.data;
}

// Fills the TEXT field of the frame `f` with `text`.
async function fillText(f, text) {
  await f.locator('.sign-field[data-type="TEXT"]').click();
  await f.locator('#field-input').fill(text);
  await f.getByRole('button', { name: 'Save' }).click();
  await f.locator('dialog').waitFor({ state: 'detached' });
}

async function typeSignature(f, name) {
  await f.locator('.sign-field[data-type="SIGNATURE"]').click();
  await f.getByLabel('Or type it').fill(name);
  await f.getByRole('button', { name: 'Save' }).click();
  await f.locator('dialog').waitFor({ state: 'detached' });
}

// The embedded page as a Frame (for axe-core and evaluation), once its script has run.
async function embedded(page) {
  await until(page, 'the frame loaded', () => document.querySelector('iframe') !== null);
  for (;;) {
    const f = page.frames().find((x) => x !== page.mainFrame() && x.url().startsWith(docket + '/embed/'));
    if (f) return f;
    await page.waitForTimeout(100);
  }
}

async function settings(context, allowed) {
  const page = await context.newPage();
  await signIn(page, base, email, password, '/settings/embedding');
  await page.goto(base + '/settings/embedding');
  await page.getByLabel('Allowed origins').fill(`${allowed}/checkout`);
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#origins-error').waitFor();
  assert.match(await page.locator('#origins-error').innerText(), /has a path/);
  await axe(page, 'embedding settings, refused');
  await shot(page, outDir, 'embed-settings-error-desktop');
  await page.getByLabel('Allowed origins').fill(allowed);
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Your changes were saved.').waitFor();
  assert.equal(await page.locator('#embed-allowed').innerText(), allowed);
  await axe(page, 'embedding settings');
  await shot(page, outDir, 'embed-settings-desktop');
  await page.setViewportSize(PHONE);
  await axe(page, 'embedding settings (phone)');
  await shot(page, outDir, 'embed-settings-phone');
  await page.close();
}

async function signing(context, shop) {
  const page = await context.newPage();
  const q = new URLSearchParams({ host: base, token: signToken, name: 'Ann Embedded', lockName: '' });
  await page.goto(`${shop}/?${q}`);
  assert.equal(await got(page, 'document-ready'), null);
  const frame = await embedded(page);
  const f = page.frameLocator('iframe');
  await f.locator('#sign-bar').waitFor();
  // Rejection was not offered; the look as asked (the bad colour ignored), light only.
  assert.equal(await f.locator('#reject').count(), 0, 'no rejection unless allowed');
  const look = await frame.evaluate(() => {
    const s = getComputedStyle(document.documentElement);
    return [s.getPropertyValue('--accent').trim(), s.getPropertyValue('--radius').trim(),
      s.getPropertyValue('--bg').trim(), document.documentElement.classList.contains('light-only')];
  });
  assert.deepEqual(look, ['#0a6e31', '4px', '#f6f7f9', true]);
  await axe(frame, 'embedded signing page');
  await frame.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0));
  await shot(page, outDir, 'embed-sign-desktop');

  // The NAME field takes the locked name.
  await f.locator('.sign-field[data-type="NAME"]').click();
  const name = f.locator('#field-input');
  assert.equal(await name.inputValue(), 'Ann Embedded');
  assert.equal(await name.getAttribute('readonly'), '');
  await f.getByRole('button', { name: 'Save' }).click();
  await f.locator('dialog').waitFor({ state: 'detached' });
  const named = await got(page, 'field-signed');
  assert.equal(named.value, 'Ann Embedded');

  // Filled, emptied, filled again.
  await fillText(f, 'Flat 2');
  const filled = await got(page, 'field-signed', 2);
  assert.equal(filled.value, 'Flat 2');
  await f.locator('.sign-field[data-type="TEXT"]').click();
  await axe(frame, 'embedded signing page, a filled field\'s dialog');
  await f.getByRole('button', { name: 'Empty this field' }).click();
  await f.locator('dialog').waitFor({ state: 'detached' });
  assert.deepEqual(await got(page, 'field-unsigned'), { fieldId: filled.fieldId });
  assert.equal(await f.locator('.sign-field[data-type="TEXT"].filled').count(), 0);
  await fillText(f, 'Flat 3');
  await typeSignature(f, 'Ann Embedded');
  await got(page, 'field-signed', 4);

  // At phone width the framing page and the frame fit.
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(200);
  const over = await frame.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(over <= 0, `the embedded page scrolls sideways by ${over}px at phone width`);
  await axe(frame, 'embedded signing page (phone)');
  await shot(page, outDir, 'embed-sign-phone');
  await page.setViewportSize(DESKTOP);

  await f.locator('#complete').click();
  const done = await got(page, 'document-completed');
  assert.deepEqual(done, { token: signToken, documentId: Number(documentId), recipientId: Number(recipientId) });
  await f.locator('#done').waitFor();
  await shot(page, outDir, 'embed-signed-desktop');
  const seen = await callbacks(page);
  assert.deepEqual(seen.map((c) => c.name), ['onDocumentReady', 'onDocumentCompleted'], JSON.stringify(seen));
  assert.deepEqual(seen[1].data, done);
  assert.deepEqual(await actions(page),
    ['document-ready', 'field-signed', 'field-signed', 'field-unsigned', 'field-signed', 'field-signed', 'document-completed']);
  summary.completed = done;
  await page.close();
}

async function rejecting(context, shop) {
  const page = await context.newPage();
  await page.goto(`${shop}/?${new URLSearchParams({ host: base, token: rejectToken, reject: '' })}`);
  await got(page, 'document-ready');
  const f = page.frameLocator('iframe');
  await f.locator('#reject').click();
  await f.getByLabel(/Why are you rejecting it/).fill('The rent is wrong.');
  await f.getByRole('button', { name: 'Reject', exact: true }).click();
  const data = await got(page, 'document-rejected');
  assert.equal(data.reason, 'The rent is wrong.');
  assert.equal(data.token, rejectToken);
  assert.ok(Number.isInteger(data.documentId) && Number.isInteger(data.recipientId), JSON.stringify(data));
  const seen = await callbacks(page);
  assert.deepEqual(seen.find((c) => c.name === 'onDocumentRejected').data, data);
  await shot(page, outDir, 'embed-rejected-desktop');
  summary.rejected = data;
  await page.close();
}

async function direct(context, shop) {
  const page = await context.newPage();
  const q = new URLSearchParams({ kind: 'direct', host: base, token: directToken, email: 'vic@example.com', lockEmail: '' });
  await page.goto(`${shop}/?${q}`);
  await got(page, 'document-ready');
  const frame = await embedded(page);
  const f = page.frameLocator('iframe');
  const mail = f.locator('#email');
  assert.equal(await mail.inputValue(), 'vic@example.com');
  assert.equal(await mail.getAttribute('readonly'), '');
  await axe(frame, 'embedded direct link');
  await shot(page, outDir, 'embed-direct-desktop');
  await page.setViewportSize(PHONE);
  await axe(frame, 'embedded direct link (phone)');
  const over = await frame.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(over <= 0, `the embedded direct page scrolls sideways by ${over}px at phone width`);
  await shot(page, outDir, 'embed-direct-phone');
  await page.setViewportSize(DESKTOP);
  // A refused name is said beside its box; then on to the document made for the visitor.
  await f.getByRole('button', { name: 'Continue to the document' }).click();
  await f.locator('#name-error').waitFor();
  await f.getByLabel('Your full name').fill('Vic Visitor');
  await f.getByRole('button', { name: 'Continue to the document' }).click();
  await f.locator('#sign-bar').waitFor();
  await fillText(f, 'Volunteer');
  await typeSignature(f, 'Vic Visitor');
  await f.locator('#complete').click();
  const done = await got(page, 'document-completed');
  assert.ok(typeof done.token === 'string' && done.token !== directToken, JSON.stringify(done));
  const seen = (await callbacks(page)).map((c) => c.name);
  assert.deepEqual(seen, ['onDocumentReady', 'onDocumentError', 'onFieldSigned', 'onFieldSigned', 'onDocumentCompleted']);
  assert.equal((await actions(page)).filter((a) => a === 'document-ready').length, 1, 'ready once, from the form');
  await f.locator('#done').waitFor();
  await shot(page, outDir, 'embed-direct-signed-desktop');
  summary.direct = done;
  await page.close();
}

async function refused(context, other) {
  const page = await context.newPage();
  const logs = [];
  page.on('console', (m) => logs.push(m.text()));
  await page.goto(`${other}/?${new URLSearchParams({ host: base, token: refusedToken })}`);
  await until(page, 'the frame was tried', () => document.querySelector('iframe') !== null);
  const said = () => logs.some((t) => /frame-ancestors/.test(t));
  for (let i = 0; i < 100 && !said(); i += 1) await page.waitForTimeout(100);
  assert.ok(said(), `no frame-ancestors refusal in the console: ${logs.join('\n')}`);
  await page.waitForTimeout(1000);
  assert.deepEqual(await events(page), [], 'nothing from a refused frame');
  const child = page.frames().find((x) => x !== page.mainFrame());
  assert.ok(!child || !child.url().startsWith(docket), `the frame did not load Docket: ${child && child.url()}`);
  await shot(page, outDir, 'embed-refused-desktop');
  await page.close();
}

const dir = await bundle();
const shop = await serve(dir);
const other = await serve(dir);
const browser = await launch();
try {
  const context = await browser.newContext({ viewport: DESKTOP });
  const errors = [];
  context.on('page', (p) => p.on('pageerror', (e) => errors.push(e.message)));
  await settings(context, shop.origin);
  await signing(context, shop.origin);
  await rejecting(context, shop.origin);
  await direct(context, shop.origin);
  await refused(context, other.origin);
  assert.deepEqual(errors, [], 'script errors');
  await context.close();
  summary.ok = true;
} finally {
  await browser.close();
  shop.server.close();
  other.server.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify(summary));
}
