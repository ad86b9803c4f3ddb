// Folders in headless Chromium (signing::folders, pages/app/folder_parts.html): by keyboard,
// a folder made on the dashboard, one inside it, the path back, the folder pinned and renamed,
// a document put into it from its page; a team's folder with "Who sees it"; the templates
// list's folders. axe-core on every state (forms open), desktop and phone sizes, no sideways
// scrolling, screenshots `folders-*-desktop|phone`. Prints one JSON line with "ok":true.
//
// Usage: node folders.mjs <base> <password> <document id> <out_dir>
// (Ada: ada@example.com, admin of team "sales", with the draft <document id> of her own.)
import assert from 'node:assert/strict';
import { launch, watch, signIn, bothSizes, DESKTOP } from './lib.mjs';

const [base, password, documentId, outDir] = process.argv.slice(2);
const browser = await launch();
const ctx = await browser.newContext({ viewport: DESKTOP });
const page = await ctx.newPage();
const problems = watch(page, base);

// Tabs from the page's start until `locator` has the focus (at most 60 stops).
async function tabTo(locator) {
  const handle = await locator.elementHandle();
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    if (await handle.evaluate((e) => e === document.activeElement)) return;
  }
  throw new Error(`never reached ${locator}`);
}

await signIn(page, base, 'ada@example.com', password, '/');

// A folder by keyboard: open "New folder", type, Enter.
await tabTo(page.locator('#folder-new > summary'));
await page.keyboard.press('Enter');
await page.locator('#folder-new-name').focus();
await page.keyboard.type('Leases');
await page.keyboard.press('Enter');
await page.waitForURL((u) => u.pathname === '/' && !u.search);
await page.getByRole('link', { name: /Leases/ }).waitFor();
await page.locator('#folder-new > summary').click();
await bothSizes(page, outDir, 'folders-top', 'the top level with the new folder form open');

// Into it, by keyboard; a folder inside; the path back.
await tabTo(page.locator('.folder-link', { hasText: 'Leases' }));
await page.keyboard.press('Enter');
await page.waitForURL((u) => u.searchParams.has('folder'));
const leases = new URL(page.url()).searchParams.get('folder');
assert.match(leases, /^[A-Za-z0-9]{24}$/);
assert.equal(await page.locator('.folder-path [aria-current=page]').textContent(), 'Leases');
await page.locator('#folder-new > summary').click();
await page.locator('#folder-new-name').fill('2026');
await page.locator('#folder-create').click();
await page.locator('.folder-link', { hasText: '2026' }).waitFor();

// Manage it: pin, rename; the form open for the checks.
await page.locator('#folder-manage > summary').click();
await page.locator('#folder-pin').click();
await page.locator('#folder-manage > summary').click();
await page.locator('#folder-rename').fill('Leases and rents');
await page.locator('#folder-rename-save').click();
await page.waitForURL((u) => u.searchParams.get('folder') === leases);
assert.equal(await page.locator('.folder-path [aria-current=page]').textContent(), 'Leases and rents');
await page.locator('#folder-manage > summary').click();
await bothSizes(page, outDir, 'folders-manage', 'a folder with its forms open');
await page.locator('#folder-root').click();
await page.locator('.folder-link', { hasText: 'Pinned' }).waitFor();

// The document into the folder from its page, by keyboard.
await page.goto(`${base}/documents/${documentId}`);
await page.getByRole('heading', { name: 'Folder' }).waitFor();
await page.locator('#item-folder').selectOption({ label: 'Leases and rents' });
await page.locator('#item-folder-save').focus();
await page.keyboard.press('Enter');
await page.waitForURL((u) => u.pathname === `/documents/${documentId}`);
await page.getByText('In “Leases and rents”.').waitFor();
await page.getByRole('heading', { name: 'Folder' }).scrollIntoViewIfNeeded();
await bothSizes(page, outDir, 'folders-document', 'the document page with its folder');
await page.goto(`${base}/?tab=all&folder=${leases}`);
await page.locator('.doc-title').first().waitFor();

// A team's folder: "Who sees it" for its admin.
await page.goto(`${base}/t/sales`);
await page.locator('#folder-new > summary').click();
await page.locator('#folder-new-name').fill('Board');
await page.locator('#folder-create').click();
await page.locator('.folder-link', { hasText: 'Board' }).click();
await page.locator('#folder-manage > summary').click();
await page.locator('#folder-visibility').selectOption('ADMIN');
await page.locator('#folder-visibility-save').click();
await page.waitForURL((u) => u.searchParams.has('folder'));
await page.locator('#folder-manage > summary').click();
assert.equal(await page.locator('#folder-visibility').inputValue(), 'ADMIN');
await bothSizes(page, outDir, 'folders-team', "a team's folder with who sees it");

// The templates list has folders of its own.
await page.goto(`${base}/templates`);
await page.locator('#folder-new > summary').click();
await page.locator('#folder-new-name').fill('Contracts');
await page.locator('#folder-create').click();
await page.locator('.folder-link', { hasText: 'Contracts' }).waitFor();
await bothSizes(page, outDir, 'folders-templates', 'the templates list with a folder');

assert.deepEqual(problems, []);
await browser.close();
console.log(JSON.stringify({ ok: true }));
