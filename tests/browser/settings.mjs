// Settings in headless Chromium, at desktop and phone sizes. API tokens: make one (after
// confirming who it is, back to the form as typed; the token shown once, copied with the button), call /api/v1/documents with it from this script, revoke
// it after the confirmation dialog, see the call refused. Webhooks: a refused form, then one to
// the loopback receiver the Rust side started (its secret shown once and copied), a test event
// that shows in the delivery log as delivered with the receiver's answer and a "Test" badge
// without a reload (the page's script reads the log again while a delivery is pending), a
// redelivery (a test too), an
// edit that switches it off, a deletion after the dialog. axe-core on every page and state; no
// sideways scrolling; screenshots settings-*-desktop and settings-*-phone.
//
// Usage: node settings.mjs <base> <email> <password> <receiver url> <out dir>
import assert from 'node:assert/strict';
import { launch, watch, axe, shot, fitsWidth, signIn, DESKTOP, PHONE } from './lib.mjs';

const [base, email, password, receiver, outDir] = process.argv.slice(2);
const summary = { ok: false };
// The refused forms answer 400 on purpose; anything else in the console is a problem.
const unexpected = (p) => !/Failed to load resource: the server responded with a status of 400/.test(p);
const browser = await launch();

async function documentsWith(token) {
  const resp = await fetch(base + '/api/v1/documents', { headers: { authorization: 'Bearer ' + token } });
  return resp.status;
}

// Checks the page as it is now: axe-core, the width, a screenshot `settings-<name>`.
async function look(page, name, size) {
  await axe(page, `${name} (${size})`);
  await fitsWidth(page, `${name} (${size})`);
  await shot(page, outDir, `settings-${name}-${size}`);
}

// Waits (20 s at most) for the log to show `count` rows with `text` by itself: the page's
// script reads the deliveries again while one is pending. The page must not have been
// reloaded since `stay(page)`.
async function waitForLog(page, text, count) {
  for (let i = 0; i < 80; i++) {
    const n = await page.locator('#deliveries tbody tr', { hasText: text }).count();
    if (n >= count) {
      assert.equal(await page.evaluate(() => window.stayedHere), true, 'the log changed without a reload');
      return;
    }
    await page.waitForTimeout(250);
  }
  assert.fail(`the delivery log never showed ${count} × ${text} without a reload`);
}

// On "Confirm it is you" (where a new token sends a session that has not confirmed within five
// minutes): the password, then back to the page whose address matches `back`. The webhook
// made a little later in the same session is not asked again.
async function confirmFirst(page, back) {
  await page.waitForURL(/\/account\/confirm\?next=/);
  await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
  await page.getByLabel('Your password').fill(password);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.waitForURL(back);
}

// Marks the page as it is, for waitForLog to tell that it was not reloaded.
const stay = (page) => page.evaluate(() => { window.stayedHere = true; });

async function desktop() {
  const context = await browser.newContext({ viewport: DESKTOP });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  const problems = watch(page, base);
  await signIn(page, base, email, password, '/settings/tokens');
  await page.getByRole('heading', { name: 'API tokens', exact: true }).waitFor();
  assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).getAttribute('aria-current'), 'page');
  await look(page, 'tokens-empty', 'desktop');

  // A refused form: the name is required, said next to the box.
  await page.getByRole('button', { name: 'Make token' }).click();
  await page.getByText('Give the key a name of 1 to 100 characters.').waitFor();
  await look(page, 'tokens-error', 'desktop');

  // The date box is offered for "On a date I choose" only.
  assert.equal(await page.getByLabel('Last day it works (UTC)').isVisible(), false);
  await page.getByLabel('On a date I choose').check();
  assert.equal(await page.getByLabel('Last day it works (UTC)').isVisible(), true);
  await page.getByLabel('In 30 days').check();
  assert.equal(await page.getByLabel('Last day it works (UTC)').isVisible(), false);

  await page.getByLabel('Name').fill('Deploy script');
  await page.getByRole('button', { name: 'Make token' }).click();
  // A token asks for a session that confirmed who it is: the password (no second factor
  // here), then back to the form as it was typed, to send again.
  await confirmFirst(page, /\/settings\/tokens\?name=/);
  assert.equal(await page.getByLabel('Name').inputValue(), 'Deploy script', 'what was typed is kept');
  assert.equal(await page.getByLabel('In 30 days').isChecked(), true);
  await page.getByRole('button', { name: 'Make token' }).click();
  await page.getByRole('heading', { name: /Your new token/ }).waitFor();
  await page.getByText('you will not see it again').waitFor();
  const shown = await page.getByLabel('Token', { exact: true }).inputValue();
  await page.getByRole('button', { name: 'Copy token' }).click();
  await page.getByText('Copied to the clipboard.').waitFor();
  const token = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(token, shown);
  assert.match(token, /^api_[A-Za-z0-9]{40}$/);
  await look(page, 'tokens-created', 'desktop');
  assert.equal(await documentsWith(token), 200, 'the token works on /api/v1');
  // Post, redirect, get (issue 55, item 4): a reload shows the token no more and makes no other.
  assert.equal(new URL(page.url()).pathname, '/settings/tokens');
  await page.reload();
  await page.getByRole('heading', { name: 'API tokens', exact: true }).waitFor();
  assert.equal(await page.getByText('you will not see it again').count(), 0, 'the token is shown once');
  assert.equal(await page.locator('#tokens tbody tr', { hasText: 'Deploy script' }).count(), 1, 'a reload makes no other token');

  // Revoked after the dialog: the call is refused.
  const row = page.locator('#tokens tbody tr', { hasText: 'Deploy script' });
  await row.getByRole('button', { name: /Revoke/ }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Programs that use it are refused at once').waitFor();
  await look(page, 'tokens-revoke', 'desktop');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await documentsWith(token), 200, 'cancelling revokes nothing');
  await row.getByRole('button', { name: /Revoke/ }).click();
  await dialog.getByRole('button', { name: 'Revoke token' }).click();
  await page.getByText('The token was revoked.').waitFor();
  assert.equal(await page.locator('#tokens tbody tr', { hasText: 'Deploy script' }).count(), 0);
  assert.equal(await documentsWith(token), 401, 'a revoked token is refused');
  await look(page, 'tokens-revoked', 'desktop');

  // Webhooks: the sub-navigation, the empty list, a refused form.
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
  await look(page, 'webhooks-empty', 'desktop');
  await page.getByRole('link', { name: 'Add a webhook' }).click();
  // Every event by default, the boxes out of the way until "Only the events I choose".
  assert.equal(await page.getByLabel('Every event').isChecked(), true);
  await page.getByLabel(/Document signed/).waitFor({ state: 'hidden' });
  await look(page, 'webhook-form', 'desktop');
  await page.getByLabel('Only the events I choose').check();
  await page.getByLabel(/Document signed/).waitFor({ state: 'visible' });
  await page.getByLabel('Address (URL)').fill('not a url');
  await page.getByRole('button', { name: 'Add webhook' }).click();
  await page.getByText('Give at least one event.').waitFor();
  await page.getByText('Must be an absolute http or https URL.').waitFor();
  await look(page, 'webhook-form-error', 'desktop');

  await page.getByLabel('Address (URL)').fill(receiver);
  await page.getByLabel(/Document signed/).check();
  await page.getByLabel(/Document completed/).check();
  await page.getByRole('button', { name: 'Add webhook' }).click();
  await page.getByText('The webhook was added.').waitFor();
  const secret = await page.getByLabel('Secret', { exact: true }).inputValue();
  assert.match(secret, /^whsec_/);
  await page.getByRole('button', { name: 'Copy secret' }).click();
  await page.getByText('Copied to the clipboard.').waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
  await look(page, 'webhook-created', 'desktop');
  // Post, redirect, get: a reload shows the secret no more and adds no other webhook.
  await page.reload();
  await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
  assert.equal(await page.getByLabel('Secret', { exact: true }).count(), 0, 'the secret is shown once');
  // When it was added, in the reader's own time (js/local-time.js).
  assert.match(await page.locator('.set-facts time').textContent(), /^(just now|\d+ minutes? ago)$/);
  const hookPath = new URL(page.url()).pathname === '/settings/webhooks'
    ? await page.getByRole('link', { name: 'Edit' }).getAttribute('href').then((h) => h.replace(/\/edit$/, ''))
    : new URL(page.url()).pathname;

  // A test event: it arrives (the Rust side checks the receiver) and shows as delivered, the
  // log updating by itself.
  await stay(page);
  await page.getByRole('button', { name: 'Send a test event' }).click();
  await page.getByText('A test event was queued.').waitFor();
  await waitForLog(page, 'Delivered', 1);
  const first = page.locator('#deliveries tbody tr').first();
  await first.getByText('HTTP 200').waitFor();
  await first.getByText('received: 200').waitFor();
  await first.locator('.set-name', { hasText: 'Document signed' }).waitFor();
  // Marked as a test (issue 55, item 11), in the row the script drew.
  assert.equal(await first.locator('.badge', { hasText: /^Test$/ }).count(), 1, 'the test event is badged');
  await look(page, 'webhook-log', 'desktop');

  // Said in the status line too.
  await page.locator('#hook-said').getByText('A test event was queued. It was delivered (HTTP 200).').waitFor();

  // Redelivered: a second delivery, delivered too.
  await first.getByRole('button', { name: /Redeliver/ }).click();
  await page.getByText('The delivery was queued again.').waitFor();
  await waitForLog(page, 'Delivered', 2);
  // A test's redelivery is a test too.
  assert.equal(await page.locator('#deliveries tbody tr .badge', { hasText: /^Test$/ }).count(), 2);
  await look(page, 'webhook-redelivered', 'desktop');

  // Edit: switched off, one event less.
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByRole('heading', { name: 'Edit webhook' }).waitFor();
  assert.equal(await page.getByLabel(/Document signed/).isChecked(), true);
  await page.getByLabel(/Document completed/).uncheck();
  await page.getByLabel(/On: post new events/).uncheck();
  await look(page, 'webhook-edit', 'desktop');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Your changes were saved.').waitFor();
  assert.equal(await page.getByLabel('Secret', { exact: true }).count(), 0, 'the secret is shown once');
  await page.locator('.set-hook-card').getByText('Switched off').waitFor();
  // Switched off, it is sent nothing, tests included: the page says so instead of offering one.
  await page.locator('#hook-off').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Send a test event' }).count(), 0);
  assert.equal(await page.getByRole('button', { name: /Redeliver/ }).count(), 0);
  assert.equal(await page.locator('.set-event-list li').count(), 1);

  await page.getByRole('link', { name: '← Webhooks' }).click();
  await page.locator('.set-hook', { hasText: receiver }).getByText('Switched off').waitFor();
  assert.equal(await page.locator('.set-hook').count(), 1, 'one webhook, whatever the reloads');
  await look(page, 'webhooks-list', 'desktop');
  summary.hook = hookPath;
  assert.deepEqual(problems.filter(unexpected), []);
  await context.close();
  return hookPath;
}

async function phone(hookPath) {
  const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  const problems = watch(page, base);
  await signIn(page, base, email, password, '/settings/tokens');
  await page.getByLabel('Name').fill('Phone token');
  await page.getByLabel('Never').check();
  await page.getByRole('button', { name: 'Make token' }).click();
  await confirmFirst(page, /\/settings\/tokens\?name=/);
  assert.equal(await page.getByLabel('Never').isChecked(), true);
  await page.getByRole('button', { name: 'Make token' }).click();
  await page.getByRole('heading', { name: /Your new token/ }).waitFor();
  await look(page, 'tokens-created', 'phone');
  const token = await page.getByLabel('Token', { exact: true }).inputValue();
  assert.equal(await documentsWith(token), 200);
  await page.goto(base + '/settings/tokens');
  await look(page, 'tokens', 'phone');

  await page.goto(base + '/settings/webhooks');
  await look(page, 'webhooks', 'phone');
  await page.goto(base + '/settings/webhooks/new');
  await look(page, 'webhook-form', 'phone');
  await page.getByLabel('Only the events I choose').check();
  await page.getByLabel(/Document signed/).waitFor();
  await look(page, 'webhook-form-some', 'phone');
  await page.goto(base + hookPath);
  await page.locator('#deliveries tbody tr').first().waitFor();
  // The rows the server drew: both test deliveries badged.
  assert.equal(await page.locator('#deliveries tbody tr .badge', { hasText: /^Test$/ }).count(), 2);
  await look(page, 'webhook-log', 'phone');
  await page.goto(base + hookPath + '/edit');
  await look(page, 'webhook-edit', 'phone');

  // Deleted after the dialog.
  await page.goto(base + hookPath);
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByText('its delivery log goes too').waitFor();
  await look(page, 'webhook-delete', 'phone');
  await page.getByRole('dialog').getByRole('button', { name: 'Delete webhook' }).click();
  await page.getByText('The webhook was deleted').waitFor();
  await page.getByText('No webhooks yet.').waitFor();
  await look(page, 'webhooks-deleted', 'phone');
  assert.deepEqual(problems.filter(unexpected), []);
  await context.close();
}

try {
  const hookPath = await desktop();
  await phone(hookPath);
  summary.ok = true;
} finally {
  await browser.close();
  console.log(JSON.stringify(summary));
}
