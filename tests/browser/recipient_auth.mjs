// Recipient authentication in headless Chromium, one flow per mode; prints one JSON summary line
// and exits non-zero on any failure.
//
//   node recipient_auth.mjs account <link> <email> <password> <maildir> <out_dir>
//     ACCOUNT access: the link shows only the title; the recipient asks for an account, follows
//     the mailed link (a real SMTP server's Maildir, read by tests/support/maildir.py), chooses a
//     password and signs.
//   node recipient_auth.mjs totp <link> <email> <password> - <second link> <out_dir>
//     TWO_FACTOR_AUTH, for a recipient without an authenticator app: before signing in, the
//     banner says a code will be asked; signed in, the page keeps its finish button (a code can
//     come by e-mail) and offers setting up an app beside it, and rejecting (the second
//     document) needs no code. On the first, the recipient follows that way to the account
//     page, enrols (the key read off the page, codes computed here), comes back by "Back to the
//     document" and signs with a current code after a wrong one is refused with a sentence.
//   node recipient_auth.mjs emailed <link> <email> <password> <maildir> <out_dir>
//     TWO_FACTOR_AUTH by e-mail, for a recipient without an authenticator app: signed in, they
//     fill in, press finish, "E-mail me a code", read the code from the mail (the real SMTP
//     server's Maildir), are refused a wrong one with a sentence, and sign with it.
//   node recipient_auth.mjs passkey <link> <email> <password> - <out_dir>
//     PASSKEY: the recipient signs in, registers a passkey in Chromium's virtual authenticator
//     on the account page and signs with it.
//   node recipient_auth.mjs password <link> <email> <password> - <out_dir>
//     PASSWORD: the recipient signs in and, to finish, types the account's password again; a
//     wrong one is refused in the dialog.
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { axe, bothSizes as bothSizesIn, PHONE } from './lib.mjs';

const args = process.argv.slice(2);
const outDir = args[args.length - 1];
const [mode, link, email, password, maildir] = args;
const secondLink = args.length > 6 ? args[5] : null;
const bothSizes = (page, name, label) => bothSizesIn(page, outDir, name, label);
mkdirSync(outDir, { recursive: true });
const origin = new URL(link).origin;
const here = dirname(fileURLToPath(import.meta.url));

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const summary = { ok: false, mode };

function watch(page) {
  const problems = [];
  page.on('request', (r) => { if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) problems.push('foreign ' + r.url()); });
  page.on('pageerror', (e) => problems.push('script error ' + e.message));
  return problems;
}

// RFC 6238 (SHA-1, six digits, 30 s steps) from a base32 key, computed here.
function totp(base32, unix) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of base32.replace(/\s+/g, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(unix / 30)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const off = mac[mac.length - 1] & 15;
  const n = (mac.readUInt32BE(off) & 0x7fffffff) % 1000000;
  return String(n).padStart(6, '0');
}

const statusLine = async (page) => (await page.locator('#signing-status').innerText()).trim();

// A message as the page must show it: a sentence.
function assertSentence(text, what) {
  assert.match(text.trim(), /^[A-Z].*[.!?]$/s, what + ' is a sentence: ' + text);
}

async function signIn(page, target = link) {
  // The banner's sign-in goes to the login page with the address filled in, and back.
  await page.locator('#sign-in').click();
  await page.waitForURL(/\/auth\/login/);
  assert.equal(await page.locator('#email').inputValue(), email, 'the address is filled in');
  await page.fill('#password', password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(target);
}

// A change of sign-in security first asks to confirm it is you: an account without a second
// factor confirms with its password, and comes back to the account page.
async function confirmWithPassword(page) {
  await page.waitForURL(/\/account\/confirm/);
  await page.locator('#confirm h1').waitFor();
  await axe(page, 'the confirm-it-is-you page');
  await page.screenshot({ path: `${outDir}/auth-confirm.png`, fullPage: true });
  const desktop = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${outDir}/auth-confirm-phone.png`, fullPage: true });
  await page.setViewportSize(desktop);
  await page.fill('#password', password);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.waitForURL(/\/account(\?|#|$)/);
}

async function typeSignature(page) {
  await page.locator('.sign-field[data-type=SIGNATURE]').first().click();
  await page.fill('#typed-signature', 'Signed by test');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('dialog').waitFor({ state: 'detached' });
  await page.locator('.sign-field[data-type=SIGNATURE] .sign-typed').waitFor();
}

async function finished(page) {
  await page.locator('#done').waitFor();
}

async function account() {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const problems = watch(page);
  await page.goto(link);
  await page.locator('#account-gate').waitFor();
  assert.equal(await page.locator('.sign-page').count(), 0, 'no page of the document is shown');
  assert.equal(await page.locator('#signing').count(), 0, 'no signing page yet');
  const state = await page.evaluate(async (l) => (await fetch(l + '/state')).status, link);
  assert.equal(state, 401, 'the JSON calls answer 401');
  await axe(page, 'the signing gate (an account is needed)');
  await page.screenshot({ path: `${outDir}/auth-account-gate.png`, fullPage: true });
  await bothSizes(page, 'auth-account-gate', 'the ACCOUNT gate');
  assert.match(await page.locator('#account-gate').innerText(), /Sent by .+ \(.+@.+\)/);
  // "Create an account" is a button beside "Sign in", not a text link.
  const create = await page.locator('#create-account').evaluate((b) => {
    const s = getComputedStyle(b);
    return { border: s.borderTopStyle, width: parseFloat(s.borderTopWidth), color: s.borderTopColor };
  });
  assert.ok(create.border === 'solid' && create.width >= 1 && !/rgba\(0, 0, 0, 0\)|transparent/.test(create.color), JSON.stringify(create));
  const [a, b] = [await page.locator('#sign-in').boundingBox(), await page.locator('#create-account').boundingBox()];
  assert.ok(Math.abs(a.y - b.y) < 4, 'side by side');
  await page.locator('#create-account').click();
  await page.getByText('Check your e-mail').waitFor();
  await axe(page, 'the sign-up link sent');

  // The mail, as the real SMTP server received it.
  let signup = null;
  const out = mkdtempSync(join(tmpdir(), 'mail-'));
  for (let i = 0; i < 300 && !signup; i++) {
    const mails = JSON.parse(execFileSync('python3', [join(here, '../support/maildir.py'), join(maildir, 'md'), out]));
    const m = mails.find((x) => x.to.includes(email) && /Create your Docket account/.test(x.subject));
    if (m) signup = m.text.match(/https?:\/\/\S+\/auth\/signup\/\S+/)[0];
    else await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(signup, 'the account link arrived by mail');
  await page.goto(signup);
  await axe(page, 'the sign-up form');
  await page.fill('#name', 'Nora New');
  await page.fill('#password', password);
  await page.fill('#password2', password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(link);
  await page.locator('.sign-page img').first().waitFor();
  await typeSignature(page);
  await page.locator('#complete').click();
  await finished(page);
  await page.screenshot({ path: `${outDir}/auth-account-signed.png`, fullPage: true });
  assert.deepEqual(problems, []);
  await ctx.close();
}

async function twoFactor() {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const problems = watch(page);
  // The second document first, before signing in: the banner says what will be asked.
  await page.goto(secondLink);
  await page.locator('#auth-banner').waitFor();
  assert.ok(await page.locator('.sign-field').first().isDisabled(), 'no acting before signing in');
  assert.match(await page.locator('#auth-banner').innerText(), /When you finish, it will also ask for a six-digit code, from your authenticator app or sent to you by e-mail\./);
  assert.equal(await statusLine(page), `You can read the document now. To fill it in, sign in as ${email} first.`);
  assert.equal(await page.locator('#complete, #sign-bar').count(), 0, 'nothing to press but sign in');
  await bothSizes(page, 'auth-totp-signin', 'the signing page before signing in');
  await signIn(page, secondLink);
  // Signed in without an authenticator app: the finish button (a code can come by e-mail),
  // and the way to set up an app beside it; no dead end.
  await page.locator('#complete').waitFor();
  await page.locator('#enrol').waitFor();
  assert.equal(await page.locator('#enrol-to-sign').count(), 0, 'finishing is not replaced by enrolling');
  assert.match(await page.locator('#auth-banner').innerText(), /No authenticator app\? When you finish, press “E-mail me a code”/);
  assert.match(await statusLine(page), /^Required fields still empty: 1\. /);
  await bothSizes(page, 'auth-totp-setup', 'the signing page offering a code by e-mail or an app');
  // Rejecting needs no code.
  await page.locator('#reject').click();
  await page.fill('#reject-reason', 'I have no authenticator app and do not agree.');
  await page.locator('dialog button[type=submit]').click();
  await page.locator('#done').waitFor();
  assert.match(await page.locator('#done').innerText(), /You rejected this document/);
  await bothSizes(page, 'auth-reject-done', 'the page after rejecting without a code');

  // The first document: fill in, then the way to the account page and back.
  await page.goto(link);
  await page.locator('#enrol').waitFor();
  await typeSignature(page);
  assert.equal(await statusLine(page), 'Everything required is filled in. Check the document, then press “Finish and sign”.');
  await page.locator('#enrol').click();
  await page.waitForURL(/\/account/);
  await page.locator('#totp-start').click();
  await confirmWithPassword(page);
  await page.locator('#totp-start').click();
  await page.locator('#totp-enrol img.qr').waitFor();
  assert.ok(await page.locator('#totp-enrol img.qr').evaluate((i) => i.complete && i.naturalWidth > 0), 'the QR code is drawn');
  await axe(page, 'the authenticator enrolment');
  const key = (await page.locator('#totp-secret').textContent()).trim();
  const now = Date.now() / 1000;
  // Enrol with the previous step's code, so the current one is still unused for signing.
  await page.fill('#code', totp(key, now - 30));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.locator('#recovery-codes, #totp-enrol .alert.error').first().waitFor();
  if (!(await page.locator('#recovery-codes').count())) {
    // The 30 s step turned between reading the clock and the server's check: the current code.
    await page.fill('#code', totp(key, Date.now() / 1000));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.locator('#recovery-codes').waitFor();
  }
  const recovery = (await page.locator('#recovery-codes code').first().textContent()).trim();
  await bothSizes(page, 'auth-totp-recovery', 'the recovery codes');
  await page.getByRole('link', { name: 'Back to the document' }).click();
  await page.waitForURL(link);
  await page.locator('#complete').waitFor();
  assert.match(await page.locator('#auth-banner').innerText(), /When you finish, you will be asked for a six-digit code, from your authenticator app or sent to you by e-mail\./);
  assert.equal(await page.locator('#enrol').count(), 0, 'an app is set up: nothing more to offer');
  assert.equal(await statusLine(page), 'Everything required is filled in. Check the document, then press “Finish and sign”.');
  // Without a code the raw call is refused.
  const refused = await page.evaluate(async (l) => {
    const r = await fetch(l + '/complete', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    return [r.status, (await r.json()).code];
  }, link);
  assert.deepEqual(refused, [401, 'second_factor_required']);
  await page.locator('#complete').click();
  await page.locator('#totp-code').waitFor();
  await axe(page, 'the signing dialog asking for a code');
  // The code box is a styled text box in a rounded dialog.
  const box = await page.locator('#totp-code').evaluate((i) => {
    const s = getComputedStyle(i);
    return { type: i.type, radius: s.borderTopLeftRadius, height: parseFloat(s.height) };
  });
  assert.deepEqual([box.type, box.radius], ['text', '8px']);
  assert.ok(box.height >= 44, 'a full-size box: ' + box.height);
  const frame = await page.locator('dialog').evaluate((d) => {
    const s = getComputedStyle(d);
    return [s.borderTopWidth, s.borderTopLeftRadius];
  });
  assert.deepEqual(frame, ['1px', '12px']);
  await page.fill('#totp-code', '000000');
  await page.locator('dialog button[type=submit]').click();
  await page.locator('dialog [role=alert]').waitFor({ state: 'visible' });
  summary.wrongCode = await page.locator('dialog [role=alert]').textContent();
  assertSentence(summary.wrongCode, 'the wrong code\'s message');
  await bothSizes(page, 'auth-totp-code', 'the code dialog with its error');
  // The next step's code (accepted one step ahead): later than any step the enrolment used.
  await page.fill('#totp-code', totp(key, Date.now() / 1000 + 30));
  await page.locator('dialog button[type=submit]').click();
  await finished(page);
  assert.deepEqual(problems, []);
  await ctx.close();

  // Signing in afresh now takes two steps; the second is answered with a recovery code.
  const again = await browser.newContext();
  const login = await again.newPage();
  const loginProblems = watch(login);
  await login.goto(`${origin}/auth/login`);
  await login.fill('#email', email);
  await login.fill('#password', password);
  await login.getByRole('button', { name: 'Sign in' }).click();
  await login.getByRole('heading', { name: 'Two-step sign-in' }).waitFor();
  await axe(login, 'the two-step sign-in page');
  await login.getByText('Lost your device? Use a recovery code').click();
  await login.getByLabel('Recovery code').fill(recovery);
  await axe(login, 'the two-step sign-in page, recovery code open');
  await login.screenshot({ path: `${outDir}/auth-second-factor.png`, fullPage: true });
  await login.getByRole('button', { name: 'Use recovery code' }).click();
  await login.waitForURL((u) => !u.pathname.startsWith('/auth/'));
  assert.deepEqual(loginProblems, []);
  await again.close();
}

async function passkey() {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const problems = watch(page);
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', transport: 'internal', hasResidentKey: true,
      hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true,
    },
  });
  await page.goto(link);
  await page.locator('#auth-banner').waitFor();
  await signIn(page);
  // A drawn signature shows as its image in its box.
  await page.locator('.sign-field[data-type=SIGNATURE]').first().click();
  const pad = page.locator('canvas.sign-pad');
  const box = await pad.boundingBox();
  await page.mouse.move(box.x + 20, box.y + 60);
  await page.mouse.down();
  await page.mouse.move(box.x + 200, box.y + 120, { steps: 8 });
  await page.mouse.move(box.x + 320, box.y + 50, { steps: 8 });
  await page.mouse.up();
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('dialog').waitFor({ state: 'detached' });
  const drawn = async () => {
    const img = page.locator('.sign-field[data-type=SIGNATURE] img.sign-image');
    await img.waitFor();
    await page.waitForFunction((el) => el.complete && el.naturalWidth > 0, await img.elementHandle());
  };
  await drawn();
  // Without a passkey the page says how to add one; the raw call is refused.
  const refused = await page.evaluate(async (l) => {
    const r = await fetch(l + '/complete', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    return [r.status, (await r.json()).code];
  }, link);
  assert.deepEqual(refused, [401, 'passkey_not_enrolled']);
  await page.locator('#enrol').click();
  await page.waitForURL(/\/account/);
  await page.locator('#add-passkey').click();
  await confirmWithPassword(page);
  // The name box is labelled and empty (a hint, no prefill).
  const name = page.getByLabel('Name of the new passkey');
  assert.equal(await name.inputValue(), '');
  assert.ok(await name.getAttribute('placeholder'));
  assert.ok(await page.locator('label[for=passkey-name]').isVisible(), 'the label shows');
  await bothSizes(page, 'auth-passkey-add', 'the account page, adding a passkey');
  await name.fill('Virtual key');
  await page.locator('#add-passkey').click();
  await page.locator('li.passkey h3', { hasText: 'Virtual key' }).waitFor({ timeout: 10000 }).catch(async (e) => {
    throw new Error('no passkey listed; the page says: ' + await page.locator('#passkey-status').textContent() + '\n' + e);
  });
  await page.screenshot({ path: `${outDir}/auth-passkey-account.png`, fullPage: true });
  await page.locator('#back-to-document').click();
  await page.waitForURL(link);
  await drawn();
  // Reject's dialog says Reject; cancelled, nothing happens.
  await page.locator('#reject').click();
  assert.equal(await page.locator('dialog button[type=submit]').textContent(), 'Reject');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.locator('dialog').waitFor({ state: 'detached' });
  await page.locator('#complete').click();
  await finished(page);
  await page.screenshot({ path: `${outDir}/auth-passkey-signed.png`, fullPage: true });
  assert.deepEqual(problems, []);
  await ctx.close();
}

// The code in the latest mail to the recipient whose subject is `subject`, as the real SMTP
// server received it.
async function mailedCode(subject) {
  const out = mkdtempSync(join(tmpdir(), 'mail-'));
  for (let i = 0; i < 300; i++) {
    const mails = JSON.parse(execFileSync('python3', [join(here, '../support/maildir.py'), join(maildir, 'md'), out]));
    const m = mails.filter((x) => x.to.includes(email) && subject.test(x.subject)).pop();
    const code = m && m.text.match(/^\s*(\d{6})\s*$/m);
    if (code) return code[1];
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('no code arrived by mail');
}

async function emailed() {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const problems = watch(page);
  await page.goto(link);
  await page.locator('#auth-banner').waitFor();
  await signIn(page);
  await page.locator('#complete').waitFor();
  assert.match(await page.locator('#auth-banner').innerText(), new RegExp('the code comes to ' + email.replace('.', '\\.')));
  await typeSignature(page);
  await page.locator('#complete').click();
  await page.locator('#totp-code').waitFor();
  assert.match(await page.locator('#totp-hint').innerText(), /Ask for it by e-mail/);
  await page.locator('#email-code').click();
  await page.locator('#email-code-status').filter({ hasText: 'We sent a code to ' + email }).waitFor();
  assertSentence(await page.locator('#email-code-status').innerText(), 'what the e-mail button says');
  assert.equal(await page.evaluate(() => document.activeElement && document.activeElement.id), 'totp-code', 'the code box has the focus');
  await bothSizes(page, 'auth-email-code', 'the code dialog after e-mailing a code');
  // Asked again at once: told to wait, in a sentence.
  await page.locator('#email-code').click();
  await page.locator('#email-code-status').filter({ hasText: 'a moment ago' }).waitFor();
  const code = await mailedCode(/^Your code for /);
  await page.fill('#totp-code', code === '000000' ? '111111' : '000000');
  await page.locator('dialog button[type=submit]').click();
  await page.locator('dialog [role=alert]').waitFor({ state: 'visible' });
  summary.wrongEmailedCode = await page.locator('dialog [role=alert]').textContent();
  assertSentence(summary.wrongEmailedCode, 'the wrong code\'s message');
  // By keyboard: the code typed into the focused box, Enter to sign.
  await page.locator('#totp-code').focus();
  await page.fill('#totp-code', code);
  await page.keyboard.press('Enter');
  await finished(page);
  await bothSizes(page, 'auth-email-signed', 'the page after signing with an e-mailed code');
  assert.deepEqual(problems, []);
  await ctx.close();
}

async function passwordAgain() {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const problems = watch(page);
  await page.goto(link);
  await page.locator('#auth-banner').waitFor();
  await signIn(page);
  assert.match(await page.locator('#auth-banner').textContent(), /password again/);
  await typeSignature(page);
  await page.locator('#complete').click();
  await page.fill('#account-password', 'not the password');
  await page.locator('dialog button[type=submit]').click();
  await page.locator('dialog [role=alert]').waitFor({ state: 'visible' });
  summary.wrongPassword = await page.locator('dialog [role=alert]').textContent();
  assertSentence(summary.wrongPassword, 'the wrong password\'s message');
  await page.fill('#account-password', password);
  await page.locator('dialog button[type=submit]').click();
  await finished(page);
  await page.screenshot({ path: `${outDir}/auth-password-signed.png`, fullPage: true });
  assert.deepEqual(problems, []);
  await ctx.close();
}

try {
  if (mode === 'account') await account();
  else if (mode === 'password') await passwordAgain();
  else if (mode === 'totp') await twoFactor();
  else if (mode === 'emailed') await emailed();
  else if (mode === 'passkey') await passkey();
  else throw new Error('unknown mode ' + mode);
  summary.ok = true;
} catch (e) {
  summary.error = String(e && e.stack || e);
} finally {
  await browser.close();
  console.log(JSON.stringify(summary));
  process.exit(summary.ok ? 0 : 1);
}
