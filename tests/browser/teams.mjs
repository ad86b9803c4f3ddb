// A team's workspace in headless Chromium, at desktop and phone sizes: the switcher beside the
// logo (by keyboard) from the personal dashboard to the team's; a PDF uploaded on the team's
// "New document" page lands in the team's editor and on the team's dashboard, not on the
// personal one (the page's calls carry its workspace); the members page, where the admin
// changes a member's role and invites someone; the general settings; the teams page, where a new team is created and opens on its
// members. axe-core on every page, no sideways scrolling, screenshots teams-*-desktop and
// teams-*-phone. Prints one JSON line with the uploaded document's id.
//
// Last, someone new follows an invitation's link on a phone, makes their account on the way and
// lands on the team's dashboard.
//
// Then a personal document moves into the new team by its page's form, and the team is deleted
// from its settings, its documents going to the admin's own (a wrong confirmation refused first).
//
// Usage: node teams.mjs <base> <email> <password> <fixtures dir> <invitation link> <personal document id> <out dir>
import assert from 'node:assert/strict';
import { launch, watch, axe, shot, fitsWidth, signIn, selectsShowArrows, DESKTOP, PHONE } from './lib.mjs';

const [base, email, password, fixtures, invitation, ownDocument, outDir] = process.argv.slice(2);
const summary = { ok: false };
const browser = await launch();

async function look(page, name, size) {
  await axe(page, `${name} (${size})`);
  await fitsWidth(page, `${name} (${size})`);
  await shot(page, outDir, `teams-${name}-${size}`);
}

// Opens the switcher by keyboard and follows the workspace `name`.
async function switchTo(page, name) {
  const summaryEl = page.locator('#workspace-switcher > summary');
  await summaryEl.focus();
  await page.keyboard.press('Enter');
  const link = page.getByRole('list', { name: 'Workspaces' }).getByRole('link', { name, exact: true });
  await link.waitFor();
  await link.focus();
  await page.keyboard.press('Enter');
}

async function desktop() {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const problems = watch(page, base);
  await signIn(page, base, email, password, '/');
  assert.match(await page.locator('#workspace-switcher > summary').innerText(), /Personal\s*$/, 'the personal workspace is shown');
  await page.locator('#workspace-switcher > summary').click();
  await look(page, 'switcher', 'desktop');
  await page.keyboard.press('Escape');
  await page.goto(base + '/');
  await switchTo(page, 'Sales');
  await page.waitForURL(base + '/t/sales');
  assert.match(await page.locator('#workspace-switcher > summary').innerText(), /Sales\s*$/);
  await look(page, 'dashboard', 'desktop');

  // A document made on the team's pages is the team's.
  await page.getByRole('link', { name: 'New document' }).first().click();
  await page.waitForURL(base + '/t/sales/documents/new');
  await page.getByLabel(/choose a file/i).setInputFiles(`${fixtures}/a4-1p.pdf`);
  await page.waitForURL(/\/t\/sales\/documents\/\d+\/edit$/);
  const id = Number(new URL(page.url()).pathname.split('/')[4]);
  summary.document = id;
  // The editor's calls work in the team: its settings step saves the title through the API.
  await page.getByLabel('Title').fill('Team lease, v2');
  await page.getByRole('link', { name: 'Next: Recipients' }).click();
  await page.waitForURL(/\/t\/sales\/documents\/\d+\/edit\?step=recipients$/);
  // Its page images are the team's: under the team's address, not under the personal one.
  const status = (path) => page.evaluate(async (u) => (await fetch(u)).status, path);
  assert.equal(await status(`/t/sales/documents/${id}/pages/1.png?w=800`), 200);
  assert.equal(await status(`/documents/${id}/pages/1.png?w=800`), 404);
  await page.goto(base + '/t/sales?tab=drafts');
  await page.getByRole('link', { name: 'Team lease, v2', exact: true }).waitFor();
  await page.goto(base + '/?tab=all');
  assert.equal(await page.getByRole('link', { name: 'Team lease, v2', exact: true }).count(), 0, 'not on the personal dashboard');

  // The members page: the admin changes Bob's role.
  await page.goto(base + '/t/sales');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.waitForURL(base + '/t/sales/settings/members');
  await selectsShowArrows(page, 'members');
  await look(page, 'members', 'desktop');
  await page.getByLabel('Role of Bob').selectOption('MANAGER');
  await page.getByRole('button', { name: 'Change the role of Bob' }).click();
  await page.getByText('The role was changed').waitFor();
  assert.equal(await page.getByLabel('Role of Bob').inputValue(), 'MANAGER');
  // The last admin cannot step down: said over the list.
  await page.getByLabel('Role of Ada').selectOption('MEMBER');
  await page.getByRole('button', { name: 'Change the role of Ada' }).click();
  await page.getByRole('alert').waitFor();
  await look(page, 'last-admin', 'desktop');

  // An invitation by e-mail, then listed as waiting; the general settings saved.
  await page.goto(base + '/t/sales/settings/members');
  await page.getByLabel('E-mail address').fill('eve@example.com');
  await page.getByLabel('Role', { exact: true }).selectOption('MANAGER');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await page.getByText('The invitation was sent').waitFor();
  await page.locator('#invitations').getByText('eve@example.com', { exact: true }).waitFor();
  await look(page, 'invited', 'desktop');
  await page.getByRole('link', { name: 'General' }).click();
  await page.waitForURL(base + '/t/sales/settings/general');
  await selectsShowArrows(page, 'general');
  await page.getByLabel('Sender name (optional)').fill('Acme Sales');
  await page.getByLabel('One after the other, in the recipients\' order').check();
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Your changes were saved').waitFor();
  assert.equal(await page.getByLabel('Sender name (optional)').inputValue(), 'Acme Sales');
  await look(page, 'general', 'desktop');

  // A new team from the teams page.
  await page.goto(base + '/teams');
  await look(page, 'list', 'desktop');
  await page.getByLabel('Name').fill('Lettings');
  await page.getByLabel('Address').fill('Not a slug!');
  await page.getByRole('button', { name: 'Create team' }).click();
  await page.locator('#team-slug-error').waitFor();
  await look(page, 'create-refused', 'desktop');
  await page.getByLabel('Address').fill('lettings');
  await page.getByRole('button', { name: 'Create team' }).click();
  await page.waitForURL(base + '/t/lettings/settings/members?done=created');
  await page.getByText('The team was created').waitFor();
  await look(page, 'created', 'desktop');

  // A personal document moves into the new team by its page's form.
  await page.goto(`${base}/documents/${ownDocument}`);
  await page.getByLabel('Team', { exact: true }).selectOption('lettings');
  await look(page, 'move', 'desktop');
  await page.getByRole('button', { name: 'Move document' }).click();
  await page.waitForURL(`${base}/t/lettings/documents/${ownDocument}`);
  await page.getByText('moved the document into the team Lettings').waitFor();

  // The team ends from its settings: a wrong confirmation is said beside its box, then its
  // documents become the admin's own.
  await page.goto(base + '/t/lettings/settings/general');
  await page.getByRole('link', { name: 'Delete this team…' }).click();
  await page.waitForURL(base + '/t/lettings/settings/delete');
  await page.getByText('The team has 1 document and 0 templates').waitFor();
  await look(page, 'delete', 'desktop');
  await page.getByLabel('Move them to my personal documents and templates').check();
  await page.getByLabel('Type the team\'s address to confirm').fill('letings');
  await page.getByRole('button', { name: 'Delete team' }).click();
  await page.locator('#confirm-error').waitFor();
  assert.equal(await page.getByLabel('Move them to my personal documents and templates').isChecked(), true, 'the choice is kept');
  await look(page, 'delete-refused', 'desktop');
  await page.getByLabel('Type the team\'s address to confirm').fill('lettings');
  await page.getByRole('button', { name: 'Delete team' }).click();
  await page.waitForURL(base + '/teams?done=deleted-mine');
  await page.getByText('The team was deleted').waitFor();
  assert.equal(await page.getByRole('link', { name: /lettings/i }).count(), 0, 'the team is gone from the list');
  assert.deepEqual(problems.filter((p) => !/status of (400|404|409)/.test(p)), []);
  await context.close();
}

async function phone() {
  const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const problems = watch(page, base);
  await signIn(page, base, email, password, '/t/sales');
  await page.waitForURL(base + '/t/sales');
  await look(page, 'dashboard', 'phone');
  await page.locator('#workspace-switcher > summary').click();
  await page.getByRole('list', { name: 'Workspaces' }).getByRole('link', { name: 'Personal' }).waitFor();
  await look(page, 'switcher', 'phone');
  await page.goto(base + '/t/sales/settings/members');
  await look(page, 'members', 'phone');
  await page.goto(base + '/t/sales/settings/tokens');
  await look(page, 'tokens', 'phone');
  await page.goto(base + '/t/sales/settings/general');
  await look(page, 'general', 'phone');
  await page.goto(base + '/t/sales/settings/delete');
  await look(page, 'delete', 'phone');
  await page.goto(base + '/teams');
  await look(page, 'list', 'phone');
  assert.deepEqual(problems, []);
  await context.close();
}

// The invitation's page, not signed in: the account made on the way, then the team's dashboard.
async function invited() {
  const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const problems = watch(page, base);
  await page.goto(invitation);
  await page.getByText('Create your Docket account for carol@example.com to join.').waitFor();
  await look(page, 'invitation', 'phone');
  await page.getByLabel('Your name').fill('Carol');
  await page.getByLabel('Password', { exact: true }).fill('a long passphrase for carol');
  await page.getByLabel('Password again').fill('a long passphrase for carol');
  await page.getByRole('button', { name: 'Create account and join' }).click();
  await page.waitForURL(base + '/t/sales');
  assert.match(await page.locator('#workspace-switcher > summary').innerText(), /Sales\s*$/);
  await look(page, 'joined', 'phone');
  assert.deepEqual(problems, []);
  await context.close();
}

try {
  await desktop();
  await phone();
  await invited();
  summary.ok = true;
} finally {
  await browser.close();
  console.log(JSON.stringify(summary));
}
