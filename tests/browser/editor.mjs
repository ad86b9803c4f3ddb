// The editor of a draft in headless Chromium: settings (a refused value shown next to its
// control, then saved; typing kept when leaving by the stepper or the top navigation), two
// recipients added (by keyboard: Enter goes on), one compact line each, a pasted list of three
// added and removed, reordered by mouse and keyboard, fields placed by mouse drag and by
// keyboard nudges, a property changed, undo, the review's refusal shown next to the recipient it
// names with a link that fixes it, the review's pages and what each recipient is asked, then
// Send. Prints one JSON line with where the fields were placed, in points from the page's
// top-left corner, for the Rust side to find the signed values there in the sealed PDF.
//
// Usage: node editor.mjs <base> <document id> <email> <password> <out_dir>
import assert from 'node:assert/strict';
import { launch, watch, axe, shot, fitsWidth, signIn, DESKTOP, PHONE, until, selectsShowArrows } from './lib.mjs';

const [base, id, email, password, outDir] = process.argv.slice(2);
const edit = (step) => `${base}/documents/${id}/edit?step=${step}`;
const browser = await launch();
const context = await browser.newContext({ viewport: DESKTOP });
const page = await context.newPage();
const problems = watch(page, base);
const summary = { ok: false };

// The document as the API answers it, through the page's session.
const load = () => page.evaluate(async (url) => {
  const token = document.querySelector('meta[name=csrf-token]').content;
  const r = await fetch(url, { credentials: 'same-origin', headers: { 'X-CSRF-Token': token } });
  return r.json();
}, `/api/v1/documents/${id}`);
const saved = (text) => page.locator('#editor-status').filter({ hasText: text }).waitFor();

// Where a pressed palette item puts a field on the first page (in the page, for evaluate): the
// middle of the page's part on the screen, in percent of the page's height.
function lookingAt() {
  const r = document.querySelector('.ed-page img').getBoundingClientRect();
  const top = Math.max(r.top, 0);
  const bottom = Math.min(r.bottom, window.innerHeight);
  return (((top + bottom) / 2 - r.top) / r.height) * 100;
}

// The "For" list shows each recipient's name whole (its widest option fits inside the list, the
// arrow's room aside), and the chosen one's name and address whole below it, not cut.
async function forShowsWholeNames(label) {
  const r = await page.evaluate(() => {
    const s = document.getElementById('field-recipient');
    const cs = getComputedStyle(s);
    const pen = document.createElement('canvas').getContext('2d');
    pen.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const widest = Math.max(...[...s.options].map((o) => pen.measureText(o.text).width));
    const who = document.getElementById('field-recipient-who');
    return { room, widest, who: who.innerText.trim(), over: who.scrollWidth - who.clientWidth };
  });
  assert.ok(r.widest <= r.room, `${label}: the widest name needs ${r.widest}px, the list has ${r.room}px`);
  assert.ok(r.over <= 0, `${label}: the chosen recipient is cut by ${r.over}px`);
  assert.match(r.who, /^(Ann Archer|Bob Baker) \((ann|bob)@example\.com\)$/, label);
}

async function phoneLook(step, name) {
  await page.setViewportSize(PHONE);
  await page.goto(edit(step));
  await page.locator('#editor').waitFor();
  await fitsWidth(page, `${name} on a phone`);
  await axe(page, `${name} (phone)`);
  await shot(page, outDir, `${name}-phone`);
  await page.setViewportSize(DESKTOP);
}

try {
  // ---------- Settings ----------
  await signIn(page, base, email, password, `/documents/${id}/edit`);
  assert.match(page.url(), /step=settings|\/edit$/);
  await page.getByRole('link', { name: /Settings/ }).first().waitFor();
  assert.equal(await page.locator('.stepper [aria-current=step]').innerText().then((t) => t.includes('Settings')), true);
  await axe(page, 'editor settings');
  await selectsShowArrows(page, 'editor settings');
  await page.getByLabel('Title').fill('Lease 2026');
  await page.getByLabel('Subject').fill('Please sign {document.name}');
  await page.getByLabel('One after the other, in the recipients\' order').check();
  await page.getByLabel('Time zone').fill('Europe/Paris');
  await page.getByLabel('After signing, go to (optional)').fill('not a link');
  await page.getByRole('button', { name: 'Save settings' }).click();
  // The server's refusal, next to the control it names.
  await page.locator('#redirectUrl[aria-invalid=true]').waitFor();
  assert.ok(await page.locator('[data-for-path="meta.redirectUrl"]').isVisible(), 'the reason is under the address');
  await page.getByLabel('After signing, go to (optional)').fill('https://example.com/thanks');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await saved('Settings saved.');
  assert.equal(await page.locator('#editor-title').innerText(), 'Lease 2026');
  await shot(page, outDir, 'editor-settings-desktop');
  let doc = await load();
  assert.equal(doc.meta.signingOrder, 'SEQUENTIAL');
  assert.equal(doc.meta.timezone, 'Europe/Paris');
  assert.equal(doc.meta.redirectUrl, 'https://example.com/thanks');
  // Nothing typed is lost: leaving by the stepper saves it (back again, it is there), and so
  // does the top navigation; a value the server refuses keeps the page, with the reason.
  await page.getByLabel('Subject').fill('Your lease, {signer.name}');
  await page.getByRole('navigation', { name: 'Steps' }).getByRole('link', { name: /Recipients/ }).click();
  await page.waitForURL(/step=recipients/);
  await page.getByRole('navigation', { name: 'Steps' }).getByRole('link', { name: /Settings/ }).click();
  await page.waitForURL(/step=settings/);
  assert.equal(await page.getByLabel('Subject').inputValue(), 'Your lease, {signer.name}');
  await page.getByLabel('Your reference (optional)').fill('REF-9');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Documents' }).click();
  await page.waitForURL((u) => u.pathname === '/');
  doc = await load();
  assert.equal(doc.externalId, 'REF-9');
  assert.equal(doc.meta.subject, 'Your lease, {signer.name}');
  await page.goto(edit('settings'));
  await page.getByLabel('After signing, go to (optional)').fill('not a link either');
  await page.getByRole('navigation', { name: 'Steps' }).getByRole('link', { name: /Fields/ }).click();
  await page.locator('#redirectUrl[aria-invalid=true]').waitFor();
  assert.match(page.url(), /step=settings|\/edit$/, 'a refused value keeps the page');
  assert.ok(await page.locator('#editor-error').isVisible(), 'the error is shown');
  await page.getByLabel('After signing, go to (optional)').fill('https://example.com/thanks');
  await page.getByLabel('After signing, go to (optional)').press('Tab');
  await saved('Settings saved.');
  // Closing the page with typing not saved yet asks first.
  const other = await context.newPage();
  await other.goto(edit('settings'));
  await other.getByLabel('Subject').fill('Not kept');
  let dialog = null;
  other.on('dialog', async (d) => { dialog = d.type(); await d.accept(); });
  await other.close({ runBeforeUnload: true });
  for (let i = 0; i < 100 && dialog === null; i++) await page.waitForTimeout(100);
  assert.equal(dialog, 'beforeunload', 'the page asked before closing');

  // ---------- Recipients ----------
  await page.getByRole('link', { name: 'Next: Recipients' }).click();
  await page.waitForURL(/step=recipients/);
  await page.locator('#no-recipients').waitFor();
  await page.locator('#new-name').fill('Ann Archer');
  await page.locator('#new-email').fill('ann@example.com');
  await page.getByRole('button', { name: 'Add recipient' }).click();
  await saved('Ann Archer added.');
  // Keyboard first: Enter in the name goes to the address, Enter there adds the line and
  // starts the next one.
  assert.equal(await page.evaluate(() => document.activeElement.id), 'new-name');
  await page.keyboard.type('Bob Baker');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'new-email');
  await page.keyboard.type('bob@example.com');
  await page.keyboard.press('Enter');
  await saved('Bob Baker added.');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'new-name', 'the next line is ready');
  assert.deepEqual((await page.locator('#recipient-list > li strong').allInnerTexts()).map((t) => t.trim()), ['1. Ann Archer', '2. Bob Baker']);
  // One compact line each: name, e-mail and role side by side; authentication folded away.
  const line = await page.locator('#recipient-list > li').first().evaluate((li) => {
    const tops = [...li.querySelectorAll('.recipient-row input, .recipient-row select')].map((el) => Math.round(el.getBoundingClientRect().top));
    return { tops, height: li.getBoundingClientRect().height };
  });
  assert.equal(new Set(line.tops).size, 1, `one line: ${JSON.stringify(line)}`);
  assert.ok(line.height < 110, `a compact line: ${line.height}px`);
  const access = page.locator('#recipient-list > li').first().getByLabel('To open the document');
  assert.equal(await access.isVisible(), false, 'authentication is folded away');
  await page.getByText('Authentication', { exact: true }).first().click();
  assert.equal(await access.isVisible(), true, 'and opens');
  // Enter in a line goes to the next line's name.
  await page.locator('#recipient-list > li').first().locator('input[type=email]').focus();
  await page.keyboard.press('Enter');
  assert.match(await page.evaluate(() => document.activeElement.id), /^r\d+-name$/);
  // A pasted list of addresses: one line each, named where the list names them; then removed.
  await page.locator('#new-email').evaluate((el) => {
    const dt = new DataTransfer();
    dt.setData('text/plain', '"Carter, Cid" <cid@example.com>; dee@example.com\nEve Evans <eve@example.com>,');
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  });
  await saved('3 recipients added.');
  doc = await load();
  assert.deepEqual(doc.recipients.map((r) => [r.name, r.email]).slice(2), [['Carter, Cid', 'cid@example.com'], ['', 'dee@example.com'], ['Eve Evans', 'eve@example.com']]);
  await shot(page, outDir, 'editor-recipients-pasted-desktop');
  page.on('dialog', (d) => d.accept());
  for (const who of ['Carter, Cid', 'dee@example.com', 'Eve Evans']) {
    await page.getByRole('button', { name: `Remove ${who}` }).click();
    await saved(`${who} removed.`);
  }
  assert.deepEqual((await page.locator('#recipient-list > li strong').allInnerTexts()).map((t) => t.trim()), ['1. Ann Archer', '2. Bob Baker']);
  // Bob first by dragging his handle above Ann; Ann first again by keyboard.
  const handle = await page.getByRole('button', { name: /Drag to reorder Bob Baker/ }).boundingBox();
  const annBox = await page.locator('#recipient-list > li').first().boundingBox();
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
  await page.mouse.down();
  await page.mouse.move(handle.x + handle.width / 2, annBox.y + 10, { steps: 6 });
  await page.mouse.up();
  await saved('Bob Baker is now number 1 of 2.');
  assert.deepEqual((await page.locator('#recipient-list > li strong').allInnerTexts()).map((t) => t.trim()), ['1. Bob Baker', '2. Ann Archer']);
  await page.getByRole('button', { name: 'Move up Ann Archer' }).focus();
  await page.keyboard.press('Enter');
  await saved('Ann Archer is now number 1 of 2.');
  assert.deepEqual((await page.locator('#recipient-list > li strong').allInnerTexts()).map((t) => t.trim()), ['1. Ann Archer', '2. Bob Baker']);
  // Bob first, by keyboard: Tab to "Move up Bob Baker" and press Enter.
  await page.getByRole('button', { name: 'Move up Bob Baker' }).focus();
  await page.keyboard.press('Enter');
  await saved('Bob Baker is now number 1 of 2.');
  assert.deepEqual((await page.locator('#recipient-list > li strong').allInnerTexts()).map((t) => t.trim()), ['1. Bob Baker', '2. Ann Archer']);
  doc = await load();
  const byMail = (m) => doc.recipients.find((r) => r.email === m);
  assert.equal(byMail('bob@example.com').signingOrder, 1);
  assert.equal(byMail('ann@example.com').signingOrder, 2);
  await axe(page, 'editor recipients');
  await selectsShowArrows(page, 'editor recipients');
  await shot(page, outDir, 'editor-recipients-desktop');

  // ---------- Fields ----------
  await page.getByRole('link', { name: 'Next: Fields' }).click();
  await page.waitForURL(/step=fields/);
  const img = page.locator('.ed-page img').first();
  await page.waitForFunction((el) => el.complete && el.naturalWidth > 0, await img.elementHandle());
  const sizes = (await page.locator('#editor').getAttribute('data-sizes')).split(' ')[0].split('x').map(Number);
  const [W, H] = sizes;
  // Sharp at the device pixel ratio: the image is at least as wide as it is shown.
  assert.ok(await img.evaluate((el) => el.naturalWidth >= el.clientWidth * window.devicePixelRatio), 'page image is sharp');
  await page.getByLabel('For', { exact: true }).selectOption({ label: 'Ann Archer' });
  await selectsShowArrows(page, 'editor fields');
  await forShowsWholeNames('fields, desktop');

  // Drags palette type `name` to (fx, fy), fractions of page 1 as it shows (its image, inside
  // the sheet's border); the drop point in percent, where the editor centres the field.
  async function drag(name, fx, fy) {
    const box = await page.locator('.ed-page img').first().boundingBox();
    const item = await page.locator('.palette-item', { hasText: new RegExp(`^${name}$`) }).boundingBox();
    await page.mouse.move(item.x + item.width / 2, item.y + item.height / 2);
    await page.mouse.down();
    const x = box.x + box.width * fx;
    const y = box.y + box.height * fy;
    await page.mouse.move(x, y, { steps: 8 });
    await page.mouse.up();
    await saved(`${name} · `);
    await page.waitForFunction((n) => document.querySelectorAll('.ed-field').length === n && [...document.querySelectorAll('.ed-field')].every((e) => e.dataset.id !== 'null'), (await page.locator('.ed-field').count()));
    return { cx: ((x - box.x) / box.width) * 100, cy: ((y - box.y) / box.height) * 100 };
  }
  const fieldOf = (type) => doc.fields.find((f) => f.type === type);
  const corner = (drop, f) => ({ x: ((drop.cx - f.pageWidth / 2) * W) / 100, y: ((drop.cy - f.pageHeight / 2) * H) / 100 });

  const textDrop = await drag('Text', 0.3, 0.2);
  const sigDrop = await drag('Signature', 0.55, 0.45);
  doc = await load();
  assert.equal(doc.fields.length, 2);
  const close = (a, b, what, tol = 0.02) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} is not ${b}`);
  const placed = {};
  for (const [type, drop] of [['TEXT', textDrop], ['SIGNATURE', sigDrop]]) {
    const f = fieldOf(type);
    const c = corner(drop, f);
    // Exact to a tenth of a point.
    close((f.pageX * W) / 100, c.x, `${type} x`, 0.1);
    close((f.pageY * H) / 100, c.y, `${type} y`, 0.1);
    placed[type] = { x: (f.pageX * W) / 100, y: (f.pageY * H) / 100, w: (f.pageWidth * W) / 100, h: (f.pageHeight * H) / 100 };
  }
  // Keyboard: the text field 3 points right (arrows) and 10 down (Shift+arrow).
  await page.locator('.ed-field[data-type=TEXT]').focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Shift+ArrowDown');
  await saved('Text · Ann Archer saved.');
  doc = await load();
  placed.TEXT.x += 3;
  placed.TEXT.y += 10;
  close((fieldOf('TEXT').pageX * W) / 100, placed.TEXT.x, 'TEXT x after nudges');
  close((fieldOf('TEXT').pageY * H) / 100, placed.TEXT.y, 'TEXT y after nudges');
  // A property: the text's label and limit.
  await page.getByLabel('Label', { exact: true }).fill('Company');
  await page.getByLabel('Label', { exact: true }).press('Tab');
  await until(page, 'the server has the text\'s label', async (url) => {
    const token = document.querySelector('meta[name=csrf-token]').content;
    const d = await (await fetch(url, { credentials: 'same-origin', headers: { 'X-CSRF-Token': token } })).json();
    return d.fields.some((f) => f.type === 'TEXT' && f.fieldMeta && f.fieldMeta.label === 'Company');
  }, `/api/v1/documents/${id}`);
  // Undo: move the signature away by dragging it, then Ctrl+Z puts it back.
  const sigBox = await page.locator('.ed-field[data-type=SIGNATURE]').boundingBox();
  await page.mouse.move(sigBox.x + sigBox.width / 2, sigBox.y + sigBox.height / 2);
  await page.mouse.down();
  await page.mouse.move(sigBox.x + sigBox.width / 2 + 80, sigBox.y + sigBox.height / 2 + 60, { steps: 5 });
  await page.mouse.up();
  await saved('Signature · Ann Archer saved.');
  doc = await load();
  assert.ok(Math.abs((fieldOf('SIGNATURE').pageX * W) / 100 - placed.SIGNATURE.x) > 10, 'the drag moved it');
  await page.keyboard.press('Control+z');
  await saved('Undone: move Signature · Ann Archer.');
  doc = await load();
  close((fieldOf('SIGNATURE').pageX * W) / 100, placed.SIGNATURE.x, 'SIGNATURE x after undo');
  close((fieldOf('SIGNATURE').pageY * H) / 100, placed.SIGNATURE.y, 'SIGNATURE y after undo');
  assert.equal(fieldOf('TEXT').fieldMeta.label, 'Company', 'undo took back only the move');
  // Resize the text by its corner handle; undo (the button) puts its size back.
  await page.locator('.ed-field[data-type=TEXT]').click();
  const corner2 = await page.locator('.ed-field[data-type=TEXT] .handle-resize.se').boundingBox();
  await page.mouse.move(corner2.x + corner2.width / 2, corner2.y + corner2.height / 2);
  await page.mouse.down();
  await page.mouse.move(corner2.x + 60, corner2.y + 20, { steps: 5 });
  await page.mouse.up();
  await saved('Text · Ann Archer saved.');
  doc = await load();
  assert.ok((fieldOf('TEXT').pageWidth * W) / 100 > placed.TEXT.w + 20, 'the handle widened it');
  close((fieldOf('TEXT').pageX * W) / 100, placed.TEXT.x, 'the se handle keeps the left edge');
  await page.getByRole('button', { name: /^Undo/ }).click();
  await saved('Undone: resize Text · Ann Archer.');
  doc = await load();
  close((fieldOf('TEXT').pageWidth * W) / 100, placed.TEXT.w, 'TEXT width after undo');
  close((fieldOf('TEXT').pageHeight * H) / 100, placed.TEXT.h, 'TEXT height after undo');
  // Duplicate the signature, then delete the copy with the Delete key.
  await page.locator('.ed-field[data-type=SIGNATURE]').click();
  await page.getByRole('button', { name: 'Duplicate' }).click();
  await page.waitForFunction(() => document.querySelectorAll('.ed-field[data-type=SIGNATURE]').length === 2);
  await saved('Signature · Ann Archer saved.');
  await page.keyboard.press('Delete');
  await saved('Signature · Ann Archer deleted.');
  doc = await load();
  assert.equal(doc.fields.length, 2, 'the copy is gone');
  close((fieldOf('SIGNATURE').pageX * W) / 100, placed.SIGNATURE.x, 'the original stays');
  await page.locator('.ed-field[data-type=SIGNATURE]').click();
  await axe(page, 'editor fields');
  await shot(page, outDir, 'editor-fields-desktop');

  // ---------- Review: refused, fixed, sent ----------
  await page.getByRole('link', { name: 'Next: Review and send' }).click();
  await page.waitForURL(/step=review/);
  await page.locator('.review-recipient').first().waitFor();
  await page.getByRole('button', { name: 'Send for signing' }).click();
  const bobItem = page.locator('.review-recipient', { hasText: 'Bob Baker' });
  await bobItem.locator('.review-problem').waitFor();
  assert.match(await bobItem.locator('.review-problem').innerText(), /bob@example.com signs but has no signature field/);
  await axe(page, 'editor review with a refusal');
  await shot(page, outDir, 'editor-review-desktop');
  await bobItem.getByRole('link', { name: 'Place fields for Bob Baker' }).click();
  await page.waitForURL(/step=fields/);
  await page.getByLabel('For', { exact: true }).selectOption({ label: 'Bob Baker' });
  // By keyboard: Enter on a palette type adds it where the person looks: centred across the
  // page in view (the only one), and down at the middle of its part on the screen.
  await page.locator('.palette-item', { hasText: /^Signature$/ }).focus();
  const lookY = await page.evaluate(lookingAt);
  await page.keyboard.press('Enter');
  await saved('Signature · Bob Baker saved.');
  doc = await load();
  const bobSig = doc.fields.find((f) => f.type === 'SIGNATURE' && f.recipientId === byMail('bob@example.com').id);
  placed.BOB = { x: ((50 - bobSig.pageWidth / 2) * W) / 100, y: ((lookY - bobSig.pageHeight / 2) * H) / 100, w: (bobSig.pageWidth * W) / 100, h: (bobSig.pageHeight * H) / 100 };
  close((bobSig.pageX * W) / 100, placed.BOB.x, 'Bob signature x');
  close((bobSig.pageY * H) / 100, placed.BOB.y, 'Bob signature y');
  await phoneLook('fields', 'editor-fields');
  await page.setViewportSize(PHONE);
  await page.goto(edit('fields'));
  await page.locator('#field-recipient-who .swatch').waitFor();
  await forShowsWholeNames('fields, phone');
  // On a phone: no arrow-key hint without arrow keys (checked where the pointer is coarse, in
  // the touch phone below), icons on the palette, and a tapped type lands where the page shows
  // under the palette, not at its top.
  assert.equal(await page.locator('.palette-item svg').count(), await page.locator('.palette-item').count());
  // Scrolled down to the page's lower half, the palette is still at hand, and a tap puts the
  // field there (in view, above the palette), not at the page's top.
  await page.locator('.ed-page').first().evaluate((el) => {
    const r = el.getBoundingClientRect();
    window.scrollBy(0, r.top + r.height * 0.4);
  });
  const initials = page.locator('.palette-item', { hasText: /^Initials$/ });
  const tap = await initials.evaluate((el) => {
    el.scrollIntoView({ inline: 'nearest', block: 'nearest' });
    const r = el.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2, shown: r.top >= 0 && r.bottom <= window.innerHeight };
  });
  assert.ok(tap.shown, 'the palette is at hand down the page');
  await page.mouse.click(tap.x, tap.y);
  await saved('Initials · Bob Baker saved.');
  const landed = await page.locator('.ed-field[data-type=INITIALS]').evaluate((el) => {
    const r = el.getBoundingClientRect();
    const page = el.closest('.ed-page').getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, fold: document.getElementById('palette').getBoundingClientRect().top, down: (r.top - page.top) / page.height };
  });
  assert.ok(landed.top >= 0 && landed.bottom <= landed.fold && landed.down > 0.5, `the tapped field is in view: ${JSON.stringify(landed)}`);
  await shot(page, outDir, 'editor-fields-tapped-phone');
  // A touch screen (coarse pointer) is not told of arrow keys; a mouse is.
  assert.equal(await page.locator('.keys-hint').isVisible(), true, 'the hint with a mouse');
  const touch = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, storageState: await context.storageState() });
  const onTouch = await touch.newPage();
  await onTouch.goto(edit('fields'));
  await onTouch.locator('.ed-page img').first().waitFor();
  assert.equal(await onTouch.locator('.keys-hint').isVisible(), false, 'no arrow-key hint on a touch screen');
  await fitsWidth(onTouch, 'fields on a touch phone');
  await shot(onTouch, outDir, 'editor-fields-touch-phone');
  await touch.close();
  await page.locator('.ed-field[data-type=INITIALS]').focus();
  await page.keyboard.press('Delete');
  await saved('Initials · Bob Baker deleted.');
  await page.setViewportSize(DESKTOP);
  await phoneLook('settings', 'editor-settings');
  await phoneLook('recipients', 'editor-recipients');
  // On a phone each line stacks: the boxes take the width, their labels shown.
  await page.setViewportSize(PHONE);
  await page.goto(edit('recipients'));
  await page.locator('#recipient-list > li').first().waitFor();
  const stacked = await page.locator('#recipient-list > li').first().evaluate((li) => {
    const name = li.querySelector('input[type=text]').getBoundingClientRect();
    const mail = li.querySelector('input[type=email]').getBoundingClientRect();
    const label = li.querySelector('.row-label').getBoundingClientRect();
    return { below: mail.top >= name.bottom, wide: name.width / li.getBoundingClientRect().width, label: label.width };
  });
  assert.ok(stacked.below && stacked.wide > 0.8 && stacked.label > 20, `stacked on a phone: ${JSON.stringify(stacked)}`);
  await fitsWidth(page, 'recipients on a phone');
  await page.setViewportSize(DESKTOP);
  await phoneLook('review', 'editor-review');
  await page.goto(edit('review'));
  await page.locator('.review-recipient').first().waitFor();
  // What each will be asked, page by page, and where: every field over the pages in its
  // recipient's colour, or one recipient's alone.
  const asked = async (who) => (await page.getByRole('list', { name: `What ${who} is asked` }).innerText()).trim();
  assert.equal(await asked('Ann Archer'), 'Page 1: Text “Company”, Signature');
  assert.equal(await asked('Bob Baker'), 'Page 1: Signature');
  await page.waitForFunction(() => [...document.querySelectorAll('#review-pages img')].every((i) => i.complete && i.naturalWidth > 0));
  const boxes = () => page.locator('#review-pages .ed-field').evaluateAll((all) => all
    .filter((b) => b.offsetParent !== null)
    .map((b) => `${b.innerText.trim()} ${getComputedStyle(b).borderTopColor}`).sort());
  const [ANN, BOB] = ['rgb(47, 111, 222)', 'rgb(194, 65, 12)'];
  assert.deepEqual(await boxes(), [`Signature · Ann Archer ${ANN}`, `Signature · Bob Baker ${BOB}`, `Text “Company” · Ann Archer ${ANN}`]);
  await page.getByLabel('Show the fields of').selectOption({ label: 'Bob Baker' });
  assert.deepEqual(await boxes(), [`Signature · Bob Baker ${BOB}`]);
  await page.getByLabel('Show the fields of').selectOption({ label: 'Everyone' });
  assert.equal((await boxes()).length, 3);
  await axe(page, 'editor review with the pages');
  await selectsShowArrows(page, 'editor review');
  await shot(page, outDir, 'editor-review-pages-desktop');
  await page.getByRole('button', { name: 'Send for signing' }).click();
  await page.waitForURL((u) => u.pathname === `/documents/${id}`);
  // Sent: the document page says so, and the sent document's editor leads to it.
  await page.getByText('Waiting for signatures').first().waitFor();
  await page.goto(edit('fields'));
  assert.equal(new URL(page.url()).pathname, `/documents/${id}`);
  await page.getByText('Waiting for signatures').first().waitFor();
  await axe(page, 'the document page after sending');

  // The refusals the test provokes (400) are the only failed loads allowed.
  assert.deepEqual(problems.filter((p) => !/status of 400/.test(p)), []);
  summary.ok = true;
  summary.placed = placed;
  summary.page = { width: W, height: H };
} catch (e) {
  // Where it stopped, as the browser showed it, and what the page said.
  await shot(page, outDir, 'editor-failure').catch(() => {});
  console.error(`failed at ${page.url()}; status: ${await page.locator('#editor-status').innerText().catch(() => '?')}; problems: ${JSON.stringify(problems)}`);
  throw e;
}
await browser.close();
console.log(JSON.stringify(summary));
