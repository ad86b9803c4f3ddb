// Accounts people run themselves, in headless Chromium; prints one JSON summary line and exits
// non-zero on any failure. Every page and state is judged at desktop and phone sizes (axe-core,
// no sideways scrolling) and kept as screenshots `login-*`, `forgot-*` and `account-*`.
//
//   node accounts.mjs <base> <email> <password> <signing token> <maildir> <recipient email>
//                     <recipient's signing token> <out_dir>
//
// 1. "Forgot password?" from the login page; the link mailed by the real SMTP server (its
//    Maildir read by tests/support/maildir.py); a new password; another browser that was signed
//    in is signed out, and the new password signs in.
// 2. The account page: a new name; a new e-mail (confirm it is you, the link mailed to the new
//    address, the change made by its page); a refused password change.
// 3. The login page reached from a signing link names the document and its sender, offers
//    "Forgot password?" and "Create an account", and focuses the password box.
// 4. A recipient with an account who forgot its password, from their signing link: "Forgot
//    password?", the mailed link, the new password, and the login names the document again
//    and leads to it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, watch, axe, shot, fitsWidth, DESKTOP, PHONE } from './lib.mjs';

const [base, email, password, signToken, maildir, recipient, recipientToken, outDir] = process.argv.slice(2);
const origin = new URL(base).origin;
const here = dirname(fileURLToPath(import.meta.url));
const newPassword = 'a brand new passphrase';
const newEmail = 'ada.king@example.com';
const summary = { ok: false, shots: [] };

const browser = await launch();
const problems = [];

async function context() {
  const ctx = await browser.newContext({ viewport: DESKTOP });
  const page = await ctx.newPage();
  const seen = watch(page, origin);
  problems.push(seen);
  return page;
}

// The page as it is now, judged and kept at both sizes: `<name>.png` and `<name>-phone.png`.
async function look(page, name) {
  for (const [size, suffix] of [[DESKTOP, ''], [PHONE, '-phone']]) {
    await page.setViewportSize(size);
    await fitsWidth(page, name + suffix);
    await axe(page, name + suffix);
    await shot(page, outDir, name + suffix);
    summary.shots.push(name + suffix);
  }
  await page.setViewportSize(DESKTOP);
}

// The link starting with `path` (with its query) in the newest message to `to` whose subject
// matches `subject`.
async function mailedLink(to, subject, path) {
  const out = mkdtempSync(join(tmpdir(), 'mail-'));
  for (let i = 0; i < 300; i++) {
    const mails = JSON.parse(execFileSync('python3', [join(here, '../support/maildir.py'), join(maildir, 'md'), out]));
    const m = mails.filter((x) => x.to.includes(to) && subject.test(x.subject)).pop();
    if (m) return m.text.match(new RegExp('https?://\\S+' + path + '[A-Za-z0-9]+(\\?\\S*)?'))[0];
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no mail "${subject}" to ${to}`);
}

const focused = (page) => page.evaluate(() => document.activeElement && document.activeElement.id);

try {
  // An old session in another browser, signed in directly at the login page: it lands on the
  // documents list, where a sender's work starts (issue 55, item 5).
  const old = await context();
  await old.goto(`${base}/auth/login`);
  await old.getByLabel('E-mail').fill(email);
  await old.getByLabel('Password').fill(password);
  await old.getByRole('button', { name: /sign in/i }).click();
  await old.waitForURL((u) => !u.pathname.startsWith('/auth/login'));
  assert.equal(new URL(old.url()).pathname, '/', 'a sign-in without a way back lands on the documents list');
  await old.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
  await look(old, 'login-landing');

  // 1. Forgot password.
  const page = await context();
  await page.goto(`${base}/auth/login`);
  assert.equal(await focused(page), 'email', 'an empty login focuses the e-mail box');
  await look(page, 'login');
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await page.waitForURL(/\/auth\/forgot/);
  await look(page, 'forgot');
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send the link' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  // Post, redirect, get: the page names the address once; a reload sends no second link.
  assert.match(page.url(), /\/auth\/forgot\/sent$/);
  assert.ok((await page.locator('#forgot-sent').innerText()).includes(email), 'the address named');
  await look(page, 'forgot-sent');
  await page.reload();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  assert.ok((await page.locator('#forgot-sent').innerText()).includes('the address you typed'), 'a reload names none');
  const reset = await mailedLink(email, /Choose a new Docket password/, '/auth/reset/');
  await page.goto(reset);
  await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
  await look(page, 'forgot-reset');
  await page.getByLabel('New password', { exact: true }).fill(newPassword);
  await page.getByLabel('New password again').fill('not the same at all');
  await page.getByRole('button', { name: 'Save the new password' }).click();
  await page.getByText('The two passwords differ.').waitFor();
  await look(page, 'forgot-reset-error');
  await page.getByLabel('New password', { exact: true }).fill(newPassword);
  await page.getByLabel('New password again').fill(newPassword);
  await page.getByRole('button', { name: 'Save the new password' }).click();
  await page.waitForURL(/\/auth\/login\?done=reset/);
  await page.getByText('Your password was changed. Sign in with the new one.').waitFor();
  assert.equal(await page.locator('#email').inputValue(), email, 'the address is filled in');
  assert.equal(await focused(page), 'password', 'with the address filled in, the password box has the focus');
  await look(page, 'login-after-reset');
  await page.keyboard.type(newPassword);
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => !u.pathname.startsWith('/auth/login'));
  assert.equal(new URL(page.url()).pathname, '/', 'after a reset too, the documents list');
  await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
  // The used link is dead; the old browser was signed out.
  await page.goto(reset);
  await page.getByRole('heading', { name: 'This link has expired' }).waitFor();
  await look(page, 'forgot-expired');
  await old.goto(`${base}/account`);
  await old.waitForURL(/\/auth\/login/);

  // 2. The account page.
  await page.goto(`${base}/account`);
  await look(page, 'account');
  await page.getByLabel('Name', { exact: true }).fill('Ada King');
  await page.getByRole('button', { name: 'Save name' }).click();
  await page.getByText('Your name was changed.').waitFor();
  assert.equal(await page.locator('#name').inputValue(), 'Ada King');
  await page.getByRole('navigation', { name: 'Main' }).getByText('Ada King').waitFor();
  await look(page, 'account-name-saved');

  await page.getByLabel('New e-mail address').fill(newEmail);
  await page.getByRole('button', { name: 'Send a confirmation link' }).click();
  // Confirm it is you (an account without a second factor: its password), then back.
  await page.waitForURL(/\/account\/confirm/);
  await look(page, 'account-confirm');
  await page.getByLabel('Your password').fill(newPassword);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.waitForURL(/\/account\?new_email=/);
  assert.equal(await page.locator('#new-email').inputValue(), newEmail, 'what was typed is kept');
  await page.getByRole('button', { name: 'Send a confirmation link' }).click();
  await page.getByText('Link sent. Check the inbox of your new address.').waitFor();
  await page.locator('#email-waiting').waitFor();
  assert.equal(await page.locator('#current-email').textContent(), email, 'nothing changed yet');
  await look(page, 'account-email-sent');
  const change = await mailedLink(newEmail, /Confirm your new Docket e-mail address/, '/account/email/');
  await page.goto(change);
  await look(page, 'account-email-link');
  await page.getByRole('button', { name: `Use ${newEmail}` }).click();
  await page.getByRole('heading', { name: 'E-mail address changed' }).waitFor();
  assert.match(page.url(), /\/account\/email-changed$/, 'post, redirect, get');
  await look(page, 'account-email-changed');
  await page.getByRole('link', { name: 'Go to your account' }).click();
  await page.waitForURL(/\/account$/);
  assert.equal(await page.locator('#current-email').textContent(), newEmail);

  // A refused password change says why, next to the field.
  await page.getByLabel('Current password').fill('not my password');
  await page.getByLabel('New password', { exact: true }).fill('another new passphrase');
  await page.getByLabel('New password again').fill('another new passphrase');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByText('That is not your current password.').waitFor();
  assert.equal(await page.locator('#current').getAttribute('aria-invalid'), 'true');
  await page.locator('#password').scrollIntoViewIfNeeded();
  await look(page, 'account-password-error');

  // 3. The login page from a signing link.
  const visitor = await context();
  await visitor.goto(`${base}/sign/${signToken}`);
  await visitor.locator('#sign-in').click();
  await visitor.waitForURL(/\/auth\/login/);
  const hint = await visitor.locator('#login-hint').textContent();
  assert.equal(hint, 'Sign in to sign “Guarded”, sent by Owner.');
  assert.equal(await focused(visitor), 'password', 'the address is filled in: the password box has the focus');
  await visitor.getByRole('link', { name: 'Forgot password?' }).waitFor();
  await visitor.getByRole('button', { name: 'Create an account' }).waitFor();
  await look(visitor, 'login-signing');
  await visitor.getByRole('button', { name: 'Create an account' }).click();
  await visitor.getByRole('heading', { name: 'Check your e-mail' }).waitFor();

  // 4. Forgot password from a signing link: the way back is kept through the mailed link.
  const signer = await context();
  const signing = `${base}/sign/${recipientToken}`;
  await signer.goto(signing);
  await signer.locator('#sign-in').click();
  await signer.waitForURL(/\/auth\/login/);
  await signer.getByRole('link', { name: 'Forgot password?' }).click();
  await signer.waitForURL(/\/auth\/forgot/);
  assert.equal(await signer.getByLabel('E-mail').inputValue(), recipient, 'the address is kept');
  await look(signer, 'forgot-signing');
  await signer.getByRole('button', { name: 'Send the link' }).click();
  await signer.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  const back = await mailedLink(recipient, /Choose a new Docket password/, '/auth/reset/');
  assert.match(back, /\?next=%2Fsign%2F/, 'the mailed link carries the way back');
  await signer.goto(back);
  await signer.getByLabel('New password', { exact: true }).fill(newPassword);
  await signer.getByLabel('New password again').fill(newPassword);
  await signer.getByRole('button', { name: 'Save the new password' }).click();
  await signer.waitForURL(/\/auth\/login\?done=reset/);
  await signer.getByText('Your password was changed. Sign in with the new one.').waitFor();
  assert.equal(await signer.locator('#login-hint').textContent(), 'Sign in to sign “Guarded”, sent by Owner.');
  assert.equal(await focused(signer), 'password');
  await look(signer, 'login-after-reset-signing');
  await signer.keyboard.type(newPassword);
  await signer.keyboard.press('Enter');
  await signer.waitForURL(signing);
  await signer.locator('#signing').waitFor();
  assert.equal(await signer.locator('#sign-in').count(), 0, 'signed in: the document, not its gate');

  // The refused forms and the used link answer 422 and 410 on purpose; Chromium logs those.
  const expected = /^console Failed to load resource: the server responded with a status of (410|422) /;
  for (const p of problems) assert.deepEqual(p.filter((x) => !expected.test(x)), []);
  summary.ok = true;
} finally {
  await browser.close();
  console.log(JSON.stringify(summary));
}
