// The upload page and the document page in headless Chromium, at desktop and phone sizes.
// Choosing or dropping a file starts its upload. A refused upload shows the server's reason and
// another file can be chosen; an accepted one shows its progress finish and goes to the editor. Recipients, fields and the send are seeded through the API (with the owner's
// key); then, on the document page: copy a signing link, send a reminder, correct an e-mail
// (the old link dead, the new one working), download the original, cancel. axe-core on every
// page and state; no sideways scrolling; screenshots upload-* and document-* at both sizes.
//
// Usage: node document_page.mjs <base> <email> <password> <api key> <fixtures dir> <out dir>
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, watch, axe, shot, fitsWidth, signIn, DESKTOP, PHONE } from './lib.mjs';

const [base, email, password, key, fixtures, outDir] = process.argv.slice(2);
const summary = { ok: false };
// The refusals the test provokes (a wrong file, a wrong address, the editor that another
// branch adds) log their status in the console; anything else is a problem.
const unexpected = (p) => !/Failed to load resource: the server responded with a status of (400|404|415)/.test(p);
const browser = await launch();

async function api(method, path, body) {
  const resp = await fetch(base + path, {
    method,
    headers: { authorization: key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await resp.text();
  assert.ok(resp.ok, `${method} ${path}: ${resp.status} ${text}`);
  return JSON.parse(text);
}

// Two signers with a signature field each, sent without e-mails (the owner hands out links).
async function seed(id) {
  const ann = await api('POST', `/api/v1/documents/${id}/recipients`, { name: 'Ann Archer', email: 'ann@example.com', role: 'SIGNER' });
  const ben = await api('POST', `/api/v1/documents/${id}/recipients`, { name: 'Ben Baker', email: 'ben@example.com', role: 'APPROVER' });
  const field = (r, y) => ({ recipientId: r.id, type: 'SIGNATURE', pageNumber: 1, pageX: 10, pageY: y, pageWidth: 30, pageHeight: 8 });
  await api('POST', `/api/v1/documents/${id}/fields`, [field(ann, 70), field(ben, 82)]);
  await api('POST', `/api/v1/documents/${id}/send`, { sendEmail: false });
  return { ann, ben };
}

// Uploads `file` through the page, by choosing it (`how` 'pick') or dropping it on the zone
// ('drop'): that alone starts the upload (there is no button to press), titled after the file
// name; the progress bar ends full and the browser goes to the editor, where the title becomes
// `title`. Answers the new document's id.
async function uploadThroughPage(page, file, title, how) {
  await page.exposeFunction('reportProgress', (v) => { page.progress.push(Number(v)); });
  page.progress = [];
  await page.evaluate(() => {
    const bar = document.getElementById('upload-progress');
    new MutationObserver(() => window.reportProgress(bar.value)).observe(bar, { attributes: true });
  });
  assert.equal(await page.getByRole('button', { name: /Upload/ }).count(), 0, 'no upload button to press');
  if (how === 'drop') {
    const bytes = [...readFileSync(`${fixtures}/${file}`)];
    const dropped = await page.evaluateHandle(([name, b]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(b)], name, { type: 'application/pdf' }));
      return dt;
    }, [file, bytes]);
    await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer: dropped });
  } else {
    await page.getByLabel(/choose a file/i).setInputFiles(`${fixtures}/${file}`);
  }
  await page.waitForURL(/\/documents\/\d+\/edit$/);
  assert.ok(page.progress.includes(100), `the progress bar filled: ${page.progress}`);
  const id = Number(new URL(page.url()).pathname.split('/')[2]);
  const titleBox = page.getByLabel('Title', { exact: true });
  assert.equal(await titleBox.inputValue(), file.replace(/\.pdf$/, ''), 'titled after the file name');
  await titleBox.fill(title);
  await page.getByRole('link', { name: 'Next: Recipients' }).click();
  await page.waitForURL(/step=recipients$/);
  assert.equal((await api('GET', `/api/v1/documents/${id}`)).title, title, 'the title changed in the editor');
  return id;
}

async function desktop() {
  const context = await browser.newContext({ viewport: DESKTOP });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  const problems = watch(page, base);
  await signIn(page, base, email, password, '/documents/new');
  assert.equal(new URL(page.url()).pathname, '/documents/new');
  await page.getByRole('heading', { name: 'New document' }).waitFor();
  await axe(page, 'upload page');
  await fitsWidth(page, 'upload page');
  await shot(page, outDir, 'upload-desktop');

  // A file that is not a PDF, sent as soon as it is chosen: the server's reason, next to the
  // form; nothing made.
  await page.getByLabel(/choose a file/i).setInputFiles(`${fixtures}/not-a-pdf-text.pdf`);
  const refusal = page.getByRole('alert');
  await refusal.waitFor();
  assert.match(await refusal.textContent(), /not a PDF|upload a PDF/i);
  await axe(page, 'upload page, refused');
  await shot(page, outDir, 'upload-refused-desktop');

  // Keyboard: the file input is reachable by Tab from the page's start.
  await page.goto(`${base}/documents/new`);
  let reached = false;
  for (let i = 0; i < 12 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement && document.activeElement.id === 'pdf-file');
  }
  assert.ok(reached, 'the file input is reachable by keyboard');

  const id = await uploadThroughPage(page, 'mixed-sizes-3p.pdf', 'Lease for Flat 3', 'drop');
  summary.uploaded = id;
  const { ann } = await seed(id);

  // The first page's first image answer is a busy server's 503: the page asks again.
  let busy = 0;
  await page.route(/\/pages\/1\.png/, (route) => (busy++ === 0
    ? route.fulfill({ status: 503, headers: { 'retry-after': '5' }, body: 'busy' })
    : route.continue()));
  await page.goto(`${base}/documents/${id}`);
  await page.getByRole('heading', { name: 'Lease for Flat 3' }).waitFor();
  await page.getByText('Waiting for signatures').waitFor();
  await page.getByText('You sent the document for signing').waitFor();
  // A pending document's pages are drawn again with their fields once the document is read:
  // the server's plain images are replaced, so take the images after that.
  await page.locator('#doc-pages .ed-pages').waitFor();
  const imgs = page.getByRole('img', { name: /Page \d of 3/ });
  assert.equal(await imgs.count(), 3, 'three page previews');
  assert.equal(await imgs.first().getAttribute('loading'), 'lazy');
  await imgs.first().scrollIntoViewIfNeeded();
  await page.waitForFunction(() => { const i = document.querySelector('#doc-pages img'); return i.complete && i.naturalWidth > 0; });
  assert.ok(busy >= 2, 'the refused page image was asked for again');
  assert.ok(problems.retried >= 1);
  await page.unroute(/\/pages\/1\.png/);
  await page.evaluate(() => window.scrollTo(0, 0));
  await axe(page, 'document page, pending');
  await fitsWidth(page, 'document page');
  await shot(page, outDir, 'document-pending-desktop');

  // Copy Ann's link.
  const annItem = page.locator(`#recipient-${ann.id}`);
  const oldLink = await annItem.getByLabel(/Signing link for Ann/).inputValue();
  assert.match(oldLink, /\/sign\//);
  await annItem.getByRole('button', { name: 'Copy link' }).click();
  await annItem.getByText('Link copied.').waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), oldLink);

  // A reminder to Ann.
  await annItem.getByRole('button', { name: 'Send a reminder' }).click();
  await annItem.getByText(/Reminder sent to Ann Archer|No reminder was sent/).waitFor();
  summary.reminder = await annItem.locator('.action-result').textContent();

  // A wrong address is refused next to the field; a right one makes a new link.
  await annItem.getByText('Correct the e-mail address').click();
  const emailBox = annItem.getByLabel(/New e-mail address for Ann/);
  await emailBox.fill('not an address');
  await annItem.getByRole('button', { name: 'Save address' }).click();
  await annItem.locator('.action-result .alert.error').waitFor();
  await axe(page, 'document page, e-mail refused');
  await emailBox.fill('ann.archer@example.com');
  await annItem.getByRole('button', { name: 'Save address' }).click();
  await page.getByText(/the old link no longer works/).waitFor();
  const newLink = await page.locator(`#recipient-${ann.id}`).getByLabel(/Signing link for Ann/).inputValue();
  assert.notEqual(newLink, oldLink, 'a new link');
  assert.ok((await page.request.get(oldLink)).status() >= 400, 'the old link is dead');
  assert.equal((await page.request.get(newLink)).status(), 200, 'the new link works');
  await page.getByText(/changed Ann Archer's e-mail address/).waitFor();
  await axe(page, 'document page, e-mail corrected');
  await shot(page, outDir, 'document-corrected-desktop');

  // The original, as a download with its name.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download original PDF' }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'Lease-for-Flat-3.pdf');

  // Cancel sits in the page's last section, a bordered danger area with a heading and what it
  // does, not beside the downloads (issue 55, item 11); Tab reaches it.
  const danger = page.getByRole('region', { name: 'Cancel this document' });
  await danger.getByText('every signing link stops working').waitFor();
  assert.equal(await page.locator('.doc-page > div.stack.tight #remove-open').count(), 0, 'not in the head row');
  assert.equal(await page.evaluate(() => {
    const sections = [...document.querySelectorAll('.doc-page > section')];
    return sections[sections.length - 1].id;
  }), 'danger-zone', 'the last section');
  assert.notEqual(await danger.evaluate((el) => getComputedStyle(el).borderTopStyle), 'none', 'bordered');
  const opener = page.getByRole('button', { name: 'Cancel document' });
  assert.equal(await opener.evaluate((el) => el.closest('#danger-zone') !== null), true);
  let tabbed = false;
  for (let i = 0; i < 150 && !tabbed; i++) {
    await page.keyboard.press('Tab');
    tabbed = await opener.evaluate((el) => el === document.activeElement);
  }
  assert.ok(tabbed, 'Tab reaches the cancel button');
  await danger.scrollIntoViewIfNeeded();
  await shot(page, outDir, 'document-danger-desktop');

  // Cancel: a dialog that starts on the safe choice and gives focus back when closed.
  await opener.click();
  const dialog = page.getByRole('dialog', { name: 'Cancel this document?' });
  await dialog.waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'remove-keep');
  await axe(page, 'document page, cancel dialog');
  await shot(page, outDir, 'document-cancel-desktop');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await page.evaluate(() => document.activeElement.id), 'remove-open', 'focus back on the button');
  await opener.click();
  await dialog.getByRole('button', { name: 'Cancel document' }).click();
  await page.getByText(/The document is cancelled/).waitFor();
  await page.getByText('You cancelled the document').first().waitFor();
  assert.ok((await page.request.get(newLink)).status() >= 400, 'a cancelled document\'s link is dead');
  await axe(page, 'document page, cancelled');
  await shot(page, outDir, 'document-cancelled-desktop');

  assert.deepEqual(problems.filter(unexpected), []);
  await context.close();
}

async function phone() {
  const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  const problems = watch(page, base);
  await signIn(page, base, email, password, '/documents/new');
  await page.getByRole('heading', { name: 'New document' }).waitFor();
  await axe(page, 'upload page, phone');
  await fitsWidth(page, 'upload page, phone');
  await shot(page, outDir, 'upload-phone');
  await page.getByLabel(/choose a file/i).setInputFiles(`${fixtures}/encrypted-aes256.pdf`);
  await page.getByRole('alert').filter({ hasText: /password/ }).waitFor();
  await axe(page, 'upload page refused, phone');
  await fitsWidth(page, 'upload page refused, phone');
  await shot(page, outDir, 'upload-refused-phone');

  // Another file, chosen on the same page after the refusal.
  const id = await uploadThroughPage(page, 'a4-1p.pdf', 'Consent form for the school trip with a long title', 'pick');

  // The draft's page first.
  await page.goto(`${base}/documents/${id}`);
  await page.getByRole('link', { name: 'Continue editing' }).waitFor();
  await axe(page, 'document page, draft, phone');
  await fitsWidth(page, 'document page draft, phone');
  await shot(page, outDir, 'document-draft-phone');
  // A draft's danger area deletes it.
  const draftDanger = page.getByRole('region', { name: 'Delete this draft' });
  await draftDanger.getByRole('button', { name: 'Delete draft' }).waitFor();
  await draftDanger.scrollIntoViewIfNeeded();
  await shot(page, outDir, 'document-danger-phone');

  const { ben } = await seed(id);
  await page.reload();
  await axe(page, 'document page, pending, phone');
  await fitsWidth(page, 'document page pending, phone');
  await shot(page, outDir, 'document-pending-phone');

  // By keyboard: the reminder for Ben, reached with Tab and pressed with Enter.
  const remind = page.locator(`#recipient-${ben.id}`).getByRole('button', { name: 'Send a reminder' });
  let reached = false;
  for (let i = 0; i < 40 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await remind.evaluate((el) => el === document.activeElement);
  }
  assert.ok(reached, 'the reminder button is reachable by keyboard');
  await page.keyboard.press('Enter');
  await page.locator(`#recipient-${ben.id} .action-result`).getByText(/Reminder sent|No reminder/).waitFor();

  await page.getByRole('button', { name: 'Cancel document' }).click();
  await page.getByRole('dialog').waitFor();
  await fitsWidth(page, 'cancel dialog, phone');
  await shot(page, outDir, 'document-cancel-phone');
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel document' }).click();
  await page.getByText(/The document is cancelled/).waitFor();
  await axe(page, 'document page, cancelled, phone');
  await fitsWidth(page, 'document page cancelled, phone');
  await shot(page, outDir, 'document-cancelled-phone');

  assert.deepEqual(problems.filter(unexpected), []);
  await context.close();
}

try {
  await desktop();
  await phone();
  summary.ok = true;
} finally {
  await browser.close();
  console.log(JSON.stringify(summary));
}
