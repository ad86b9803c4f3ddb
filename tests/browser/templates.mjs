// Templates in headless Chromium: the empty list, a new template from a PDF through the upload
// page, the same editor as documents with two placeholder recipients (no e-mail), their fields
// placed, "Save template", the details page with the template's and recipients' ids, "Use
// template" (the title following the first name typed, until the title is edited by hand; a
// refusal shown next to the address it names, then real names and addresses and a prefilled
// value) sent; Duplicate, then Delete of the copy after its confirmation dialog; the
// direct link turned on (refused first: the second recipient has no address yet), copied, and
// visited by a stranger on a phone who gives a name and an address (refused first) and signs;
// then a new link made, the old one gone; the sent document saved as a template from its page
// (by keyboard), which opens the new template. Every page and state is checked by axe-core and shot
// at desktop and phone sizes. Prints one JSON line with the template, the document made from it
// and its recipients' names, for the Rust side to have them sign, and the stranger's address.
//
// Usage: node templates.mjs <base> <email> <password> <fixtures dir> <out_dir>
import assert from 'node:assert/strict';
import { launch, watch, axe, shot, fitsWidth, signIn, signOnPage, DESKTOP, PHONE, until } from './lib.mjs';

const [base, email, password, fixtures, outDir] = process.argv.slice(2);
const browser = await launch();
const context = await browser.newContext({ viewport: DESKTOP });
await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
const page = await context.newPage();
const problems = watch(page, base);
const summary = { ok: false };
// The title of the document the Use page sends, and so of the template saved from it.
const SAVED_TITLE = 'Lease – Thomas Tenant, flat 3';

// `path` of /api/v1 through the page's session.
const api = (path) => page.evaluate(async (url) => {
  const token = document.querySelector('meta[name=csrf-token]').content;
  const r = await fetch(url, { credentials: 'same-origin', headers: { 'X-CSRF-Token': token } });
  return r.json();
}, path);
const saved = (text) => page.locator('#editor-status').filter({ hasText: text }).waitFor();
const texts = async (selector) => (await page.locator(selector).allInnerTexts()).map((t) => t.trim());

// Every page image of the details page drawn (scrolled to, as they load lazily).
async function allPages() {
  await page.locator('.doc-pages img').last().scrollIntoViewIfNeeded();
  await page.waitForFunction(() => [...document.querySelectorAll('.doc-pages img')].every((i) => i.complete && i.naturalWidth > 0), null, { timeout: 20000 });
  await page.evaluate(() => window.scrollTo(0, 0));
}

// The page as it is now, checked and shot at desktop size, then the same address at phone size.
async function judge(name, { phone = true, ready = null } = {}) {
  await axe(page, name);
  await fitsWidth(page, name);
  await shot(page, outDir, `templates-${name}-desktop`);
  if (!phone) return;
  await page.setViewportSize(PHONE);
  await page.reload();
  if (ready) await page.locator(ready).first().waitFor();
  if (name === 'details') await allPages();
  await fitsWidth(page, `${name} on a phone`);
  await axe(page, `${name} (phone)`);
  await shot(page, outDir, `templates-${name}-phone`);
  await page.setViewportSize(DESKTOP);
  await page.reload();
  if (ready) await page.locator(ready).first().waitFor();
}

try {
  // ---------- The empty list, the navigation ----------
  await signIn(page, base, email, password, '/templates');
  assert.equal(new URL(page.url()).pathname, '/templates');
  assert.equal(await page.getByRole('link', { name: 'Templates', exact: true }).getAttribute('aria-current'), 'page');
  await page.getByRole('heading', { name: 'Make your first template' }).waitFor();
  await judge('empty');

  // ---------- New template from a PDF ----------
  await page.getByRole('link', { name: 'Start from a PDF' }).click();
  await page.waitForURL(/\/templates\/new$/);
  await page.getByRole('heading', { name: 'New template' }).waitFor();
  await judge('new');
  await page.getByLabel(/choose a file/i).setInputFiles(`${fixtures}/mixed-sizes-3p.pdf`);
  await page.waitForURL(/\/templates\/\d+\/edit$/);
  const id = Number(new URL(page.url()).pathname.split('/')[2]);
  summary.template = id;
  const edit = (step) => `${base}/templates/${id}/edit?step=${step}`;

  // ---------- The editor: settings, two placeholder recipients ----------
  await page.getByLabel('Title', { exact: true }).fill('Lease');
  await page.getByLabel('Subject').fill('Your lease for {document.name}');
  await judge('editor-settings', { phone: false });
  await page.getByRole('link', { name: 'Next: Recipients' }).click();
  await page.waitForURL(/step=recipients/);
  await page.locator('#no-recipients').waitFor();
  await page.locator('#new-name').fill('Tenant');
  await page.getByRole('button', { name: 'Add recipient' }).click();
  await saved('Tenant added.');
  await page.getByRole('button', { name: 'Add recipient' }).click();
  await saved('A recipient added.');
  assert.deepEqual(await texts('#recipient-list > li strong'), ['1. Tenant', '2. Recipient 2']);
  assert.equal(await page.locator('#recipient-list > li input[type=email]').first().inputValue(), '', 'no address shown for a placeholder');
  // A real address, then none again: the recipient is a placeholder once more.
  const secondMail = page.locator('#recipient-list > li').nth(1).locator('input[type=email]');
  await secondMail.fill('guarantor@example.com');
  await secondMail.press('Tab');
  await saved('Saved.');
  await secondMail.fill('');
  await secondMail.press('Tab');
  await until(page, 'the server has only placeholder addresses', async (url) => {
    const token = document.querySelector('meta[name=csrf-token]').content;
    const d = await (await fetch(url, { credentials: 'same-origin', headers: { 'X-CSRF-Token': token } })).json();
    return d.Recipient.every((r) => r.email.endsWith('@placeholder.docket.invalid'));
  }, `/api/v1/templates/${id}`);
  await saved('Saved.');
  let t = await api(`/api/v1/templates/${id}`);
  assert.ok(t.Recipient.every((r) => r.email.endsWith('@placeholder.docket.invalid')), JSON.stringify(t.Recipient));
  assert.equal(t.templateMeta.subject, 'Your lease for {document.name}', 'Next saved the settings');
  await judge('editor-recipients', { ready: '#recipient-list > li' });

  // ---------- Fields, by keyboard ----------
  await page.getByRole('link', { name: 'Next: Fields' }).click();
  await page.waitForURL(/step=fields/);
  await page.locator('.ed-page img').first().waitFor();
  for (const [who, type] of [['Tenant', 'Signature'], ['Tenant', 'Text'], ['Recipient 2', 'Signature']]) {
    await page.getByLabel('For', { exact: true }).selectOption({ label: who });
    await page.locator('.palette-item', { hasText: new RegExp(`^${type}$`) }).focus();
    await page.keyboard.press('Enter');
    await saved(`${type} · ${who} saved.`);
  }
  // A move, saved through the template's field route.
  await page.locator('.ed-field[data-type=TEXT]').focus();
  await page.keyboard.press('Shift+ArrowDown');
  await saved('Text · Tenant saved.');
  t = await api(`/api/v1/templates/${id}`);
  assert.equal(t.Field.length, 3);
  await judge('editor-fields', { phone: false });

  // ---------- Review and save ----------
  await page.getByRole('link', { name: 'Next: Review and save' }).click();
  await page.waitForURL(/step=review/);
  await page.locator('.review-recipient').first().waitFor();
  assert.match(await page.locator('.review-recipient').first().innerText(), /Tenant\s+E-mail given when used/);
  await judge('editor-review', { ready: '.review-recipient' });
  await page.getByRole('button', { name: 'Save template' }).click();
  await page.waitForURL((u) => u.pathname === `/templates/${id}`);

  // ---------- The details page: the ids ----------
  assert.equal(await page.locator('#template-id').inputValue(), String(id));
  const rids = t.Recipient.map((r) => r.id);
  for (const rid of rids) assert.equal(await page.locator(`#rid-${rid}`).inputValue(), String(rid));
  await page.getByRole('button', { name: 'Copy the template ID' }).click();
  await page.getByText(`Copied ${id}.`).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), String(id));
  await allPages();
  await judge('details', { ready: '#template-id' });

  // ---------- Use template: refused, then sent ----------
  await page.getByRole('link', { name: 'Use template' }).click();
  await page.waitForURL(/\/templates\/\d+\/use$/);
  const [tenant, second] = rids;
  // The title follows the first recipient's name as it is typed (here on a phone).
  const titleBox = page.getByLabel('Title', { exact: true });
  assert.equal(await titleBox.inputValue(), 'Lease', 'no name yet: the template\'s title');
  await page.setViewportSize(PHONE);
  await page.locator(`#r${tenant}_name`).pressSequentially('Tom Tenant');
  assert.equal(await titleBox.inputValue(), 'Lease – Tom Tenant');
  await fitsWidth(page, 'use, the title following, on a phone');
  await axe(page, 'use, the title following (phone)');
  await shot(page, outDir, 'templates-use-title-phone');
  await page.setViewportSize(DESKTOP);
  await shot(page, outDir, 'templates-use-title-desktop');
  await page.locator(`#r${tenant}_email`).fill('tom@example');
  await page.locator(`#r${second}_name`).fill('Gail Guarantor');
  await page.locator(`#r${second}_email`).fill('gail@example.com');
  await page.getByLabel(/^Text for Tenant, page 1/).fill('Flat 3');
  await judge('use', { phone: false });
  await page.getByRole('button', { name: 'Send for signing' }).click();
  await page.locator(`#r${tenant}_email[aria-invalid=true]`).waitFor();
  assert.ok(await page.locator(`#r${tenant}_email-error`).isVisible(), 'the reason is under the address');
  assert.equal(await page.locator(`#r${second}_email`).inputValue(), 'gail@example.com', 'what was typed is kept');
  await axe(page, 'use, refused');
  await fitsWidth(page, 'use, refused');
  await shot(page, outDir, 'templates-use-refused-desktop');
  await page.setViewportSize(PHONE);
  await fitsWidth(page, 'use, refused, on a phone');
  await axe(page, 'use, refused (phone)');
  await shot(page, outDir, 'templates-use-refused-phone');
  await page.setViewportSize(DESKTOP);
  // The refused page keeps the title, still following; edited by hand, it stays.
  assert.equal(await titleBox.inputValue(), 'Lease – Tom Tenant');
  await page.locator(`#r${tenant}_name`).fill('Thomas Tenant');
  assert.equal(await titleBox.inputValue(), 'Lease – Thomas Tenant');
  await titleBox.press('End');
  await titleBox.pressSequentially(', flat 3');
  await page.locator(`#r${tenant}_name`).fill('Tom Tenant');
  assert.equal(await titleBox.inputValue(), SAVED_TITLE, 'a title edited by hand stays');
  await page.locator(`#r${tenant}_email`).fill('tom@example.com');
  await page.getByRole('button', { name: 'Send for signing' }).click();
  await page.waitForURL(/\/documents\/\d+$/);
  summary.document = Number(new URL(page.url()).pathname.split('/')[2]);
  await page.getByText('Waiting for signatures').first().waitFor();
  await axe(page, 'the document made from the template');

  // ---------- Duplicate, then delete the copy ----------
  await page.goto(`${base}/templates/${id}`);
  await page.getByRole('button', { name: 'Duplicate' }).click();
  await page.waitForURL((u) => /^\/templates\/\d+$/.test(u.pathname) && u.pathname !== `/templates/${id}`);
  const copy = Number(new URL(page.url()).pathname.split('/')[2]);
  await page.getByText('Template duplicated').waitFor();
  assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Lease (copy)');
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete this template?' });
  await dialog.waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'remove-keep', 'the safe choice has the focus');
  await axe(page, 'the delete dialog');
  await shot(page, outDir, 'templates-delete-dialog-desktop');
  await dialog.getByRole('button', { name: 'Delete template' }).click();
  await page.waitForURL((u) => u.pathname === '/templates');
  await page.getByText('was deleted').waitFor();
  assert.ok(copy !== id);

  // ---------- The list ----------
  assert.deepEqual(await texts('.templates-table .doc-title'), ['Lease']);
  const row = page.locator('.templates-table tbody tr').first();
  assert.match(await row.innerText(), /Tenant[\s\S]*Recipient 2/);
  await judge('list', { ready: '.templates-table' });
  // The row's actions by keyboard: Use is the first stop after the title.
  await page.locator('.templates-table .doc-title').focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent.trim()), 'Use Lease');

  // ---------- The direct link: on, copied, used by a stranger, replaced ----------
  await page.goto(`${base}/templates/${id}`);
  const direct = page.locator('#direct-section');
  assert.equal(await direct.locator('#direct-state').innerText(), 'Off');
  assert.equal(await page.getByLabel('Visitors sign as').inputValue(), String(tenant));
  await page.getByRole('button', { name: 'Turn on the direct link' }).click();
  await direct.getByText(/give every other recipient an e-mail address first[\s\S]*Recipient 2/i).waitFor();
  await axe(page, 'the direct link, refused');
  await shot(page, outDir, 'templates-direct-refused-desktop');
  // The second recipient gets an address (what the editor's recipients step sends).
  const patched = await page.evaluate(async ([url, token]) => (await fetch(url, {
    method: 'PATCH', credentials: 'same-origin',
    headers: { 'X-CSRF-Token': token, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Rita Referee', email: 'rita@example.com' }),
  })).status, [`/api/v1/templates/${id}/recipients/${second}`, await page.locator('meta[name=csrf-token]').getAttribute('content')]);
  assert.equal(patched, 200);
  await page.reload();
  await page.getByRole('button', { name: 'Turn on the direct link' }).click();
  await page.getByText('The direct link is on').waitFor();
  assert.equal(await direct.locator('#direct-state').innerText(), 'On');
  assert.match(await direct.innerText(), /Visitors sign as Tenant/);
  await direct.getByRole('button', { name: 'Copy the direct link' }).click();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(link, new RegExp(`^${base}/d/[A-Za-z0-9]{32}$`));
  assert.equal(await page.locator('#direct-url').inputValue(), link);
  await judge('direct', { ready: '#direct-url' });

  // A stranger on a phone: no account, no cookie.
  const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const visitor = await phone.newPage();
  const visitorProblems = watch(visitor, base);
  await visitor.goto(link);
  assert.equal(await visitor.getByRole('heading', { level: 1 }).innerText(), 'Lease');
  assert.match(await visitor.locator('#direct-link').innerText(), /Tess Owner[\s\S]*goes to Rita Referee/);
  await axe(visitor, 'the direct link\'s page (phone)');
  await fitsWidth(visitor, 'the direct link\'s page');
  await shot(visitor, outDir, 'templates-direct-visitor-phone');
  await visitor.getByLabel('Your full name').fill('Vera Visitor');
  await visitor.getByLabel('Your e-mail address').fill('vera@example');
  await visitor.getByRole('button', { name: 'Continue to the document' }).click();
  await visitor.locator('#email[aria-invalid=true]').waitFor();
  assert.match(await visitor.locator('#email-error').innerText(), /Enter your e-mail address/);
  assert.equal(await visitor.getByLabel('Your full name').inputValue(), 'Vera Visitor', 'what was typed is kept');
  await axe(visitor, 'the direct link\'s page, refused (phone)');
  await shot(visitor, outDir, 'templates-direct-visitor-refused-phone');
  await visitor.getByLabel('Your e-mail address').fill('vera@example.com');
  await visitor.getByRole('button', { name: 'Continue to the document' }).click();
  await visitor.waitForURL(/\/sign\//);
  await signOnPage(visitor, 'the visitor\'s signing page (phone)', 'Vera Visitor', 'Flat 9', { keyboard: true });
  await fitsWidth(visitor, 'the visitor\'s signing page');
  await shot(visitor, outDir, 'templates-direct-signed-phone');
  // The one failed load: the refused form (422).
  assert.deepEqual(visitorProblems.filter((p) => !/status of 422/.test(p)), []);
  summary.visitor = 'vera@example.com';

  // A new link: the old address is gone.
  await page.getByRole('button', { name: 'Make a new link' }).click();
  const rotateDialog = page.getByRole('dialog', { name: 'Make a new link?' });
  await rotateDialog.waitFor();
  await axe(page, 'the new-link dialog');
  await rotateDialog.getByRole('button', { name: 'Make a new link' }).click();
  await page.getByText('A new link was made').waitFor();
  assert.notEqual(await page.locator('#direct-url').inputValue(), link);
  const gone = await visitor.goto(link);
  assert.equal(gone.status(), 404);
  await phone.close();

  // ---------- The sent document saved as a template ----------
  await page.goto(`${base}/documents/${summary.document}`);
  const saveButton = page.getByRole('button', { name: 'Save as template' });
  await saveButton.waitFor();
  await page.setViewportSize(PHONE);
  await fitsWidth(page, 'the document page with Save as template, on a phone');
  await axe(page, 'the document page (phone)');
  await shot(page, outDir, 'templates-document-phone');
  await page.setViewportSize(DESKTOP);
  await axe(page, 'the document page');
  await shot(page, outDir, 'templates-document-desktop');
  await saveButton.focus();
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => /^\/templates\/\d+$/.test(u.pathname) && u.pathname !== `/templates/${id}` && u.search === '?saved=document');
  const fromDocument = Number(new URL(page.url()).pathname.split('/')[2]);
  await page.locator('#saved-from-document').waitFor();
  assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), SAVED_TITLE);
  const made = await api(`/api/v1/templates/${fromDocument}`);
  assert.deepEqual(made.Recipient.map((r) => r.name), ['Tom Tenant', 'Gail Guarantor']);
  assert.equal(made.Field.length, 3);
  await judge('saved', { ready: '#saved-from-document' });
  summary.saved = fromDocument;

  // The refusal the test provokes (400) is the only failed load allowed, and a page image the
  // busy renderer could not draw yet (503, Retry-After: the page asks again).
  assert.deepEqual(problems.filter((p) => !/status of (400|409|503)/.test(p)), []);
  summary.recipients = { [tenant]: 'Tom Tenant', [second]: 'Gail Guarantor' };
  summary.ok = true;
} catch (e) {
  await shot(page, outDir, 'templates-failure').catch(() => {});
  console.error(`failed at ${page.url()}; status: ${await page.locator('#editor-status').innerText().catch(() => '?')}; problems: ${JSON.stringify(problems)}`);
  throw e;
}
await browser.close();
console.log(JSON.stringify(summary));
