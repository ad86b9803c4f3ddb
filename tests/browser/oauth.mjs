// Docket's OAuth pages in headless Chromium: log in, see the app on the consent page, Allow,
// arrive at the redirect URI with a code; exchange it; revoke the app on the account page and
// see the token stop working. Prints one JSON summary line; exits non-zero on any failure.
//
// Usage: node oauth.mjs <base> <auth_url> <email> <password> <client_id> <client_secret> <redirect_uri> <out_dir>
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { axe } from './lib.mjs';

const [base, authUrl, email, password, clientId, clientSecret, redirectUri, outDir] = process.argv.slice(2);
mkdirSync(outDir, { recursive: true });

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const summary = {};
try {
  for (const [label, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 375, height: 740 }]]) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const foreign = [];
    page.on('request', (r) => {
      const u = r.url();
      if (!u.startsWith(base) && !u.startsWith(redirectUri) && !u.startsWith('data:') && !u.startsWith('https://cal.example.com/')) foreign.push(u);
    });
    // The app's logo lives on the internet, which this machine cannot reach: serve a stand-in on
    // the desktop pass, and a broken one (404) on the phone pass, where the initial replaces it.
    const logoLoads = label === 'desktop';
    await context.route((u) => u.hostname === 'cal.example.com', (route) => (logoLoads
      ? route.fulfill({ status: 200, contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#e4572e"/></svg>' })
      : route.fulfill({ status: 404, contentType: 'text/plain', body: 'gone' })));

    // 1. The authorization URL sends us to the login page.
    await page.goto(authUrl);
    assert.match(page.url(), /\/auth\/login\?next=/);
    await page.screenshot({ path: `${outDir}/login-${label}.png`, fullPage: true });
    await axe(page, `the login page (${label})`);
    // Keyboard: the e-mail field has focus; type, Tab to the password, Enter submits.
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /Wrong e-mail or password/);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').focus();
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');

    // 2. The consent page names the app and the scopes in plain words.
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    const text = await page.locator('main').innerText();
    assert.match(text, /Cal/);
    assert.match(text, /See your name, username and e-mail address/);
    assert.match(text, /See your bookings/);
    assert.match(text, new RegExp(email.replace(/[.@]/g, '\\$&')));
    if (logoLoads) {
      await page.waitForFunction(() => { const i = document.querySelector('img.app-logo'); return i && i.complete && i.naturalWidth > 0; });
      assert.ok(await page.locator('.app-logo-fallback').isHidden(), 'no placeholder beside a logo');
    } else {
      await page.locator('.app-logo-fallback').waitFor({ state: 'visible' });
      assert.equal((await page.locator('.app-logo-fallback').innerText()).trim(), 'C');
      assert.equal(await page.locator('img.app-logo').count(), 0, 'the broken image is gone');
    }
    await page.screenshot({ path: `${outDir}/consent-${label}.png`, fullPage: true });
    await axe(page, `the consent page (${label})`);
    const noOverflow = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    assert.ok(noOverflow, 'consent page fits the viewport');

    // 3. Allow: the browser arrives at the redirect URI with a code, the state and iss.
    await Promise.all([
      page.waitForURL((u) => u.toString().startsWith(redirectUri)),
      page.getByRole('button', { name: 'Allow' }).click(),
    ]);
    const back = new URL(page.url());
    const code = back.searchParams.get('code');
    assert.ok(code, 'a code came back');
    assert.equal(back.searchParams.get('state'), 'browser-state');
    assert.equal(back.searchParams.get('iss'), base);

    // 4. The app exchanges the code and calls the identity check.
    const token = await fetch(`${base}/api/auth/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, client_secret: clientSecret }),
    }).then((r) => r.json());
    assert.ok(token.access_token, JSON.stringify(token));
    const me = () => fetch(`${base}/api/auth/oauth/me`, { headers: { authorization: `Bearer ${token.access_token}` } });
    assert.equal((await me()).status, 200);

    // 5. The account page lists the app; Revoke ends its access.
    await page.goto(`${base}/account`);
    await page.getByRole('heading', { name: 'Cal', exact: true }).waitFor();
    // When it was allowed, in the reader's own time (js/local-time.js), not as UTC text.
    const allowed = page.locator('.list-item', { hasText: 'Cal' }).locator('time').first();
    assert.match(await allowed.getAttribute('datetime'), /^\d{4}-\d\d-\d\dT/);
    assert.match(await allowed.textContent(), /^(just now|\d+ minutes? ago)$/);
    await page.screenshot({ path: `${outDir}/account-${label}.png`, fullPage: true });
    await axe(page, `the account page (${label})`);
    await page.getByRole('button', { name: 'Revoke Cal' }).click();
    await page.getByText('No apps are connected to your account.').waitFor();
    assert.equal((await me()).status, 401, 'the token stopped working');

    // 6. Sign out.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/auth\/login/);

    assert.deepEqual(foreign, [], 'no external requests');
    summary[label] = { code: true, revoked: true };
    await context.close();
  }
  console.log(JSON.stringify({ ok: true, ...summary }));
} finally {
  await browser.close();
}
