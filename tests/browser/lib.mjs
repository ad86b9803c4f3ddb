// What the browser scripts share: Chromium launched as the tests must (Debian's, never a
// download), a watch for script errors and requests leaving the server, axe-core run inside
// each page, screenshots, the two sizes every page is judged at, and signing in.
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export async function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

// Problems seen on `page`: script errors, console errors, and requests to anything but
// `origin` (the server under test) or data: URLs. Check with `assert.deepEqual(problems, [])`.
// A page image answered 503 (every renderer busy, as on a loaded test machine) is not one: the
// pages ask again (assets/js/page-retry.js), and the tests wait for their images to load.
// Those are counted in `problems.retried`.
export function watch(page, origin) {
  const problems = [];
  Object.defineProperty(problems, 'retried', { value: 0, writable: true, enumerable: false });
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) problems.push('foreign ' + u);
  });
  page.on('pageerror', (e) => problems.push('script error ' + e.message));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (/status of 503/.test(m.text()) && /\/pages\/\d+\.png/.test(m.location().url || '')) problems.retried += 1;
    else problems.push('console ' + m.text());
  });
  return problems;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

// Runs axe-core in `page` (injected through the DevTools protocol, so the page's strict CSP
// stays on) and fails on any serious or critical violation, naming each with its elements.
// Returns the number of violations of lesser impact.
export async function axe(page, label) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ': ' + n.failureSummary),
    }));
  });
  const bad = result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `axe-core on ${label}: ${JSON.stringify(bad, null, 1)}`);
  return result.length;
}

// A full-page screenshot `<outDir>/<name>.png`.
export async function shot(page, outDir, name) {
  mkdirSync(outDir, { recursive: true });
  await page.screenshot({ path: `${outDir}/${name}.png`, fullPage: true });
}

// Fails if the page scrolls sideways (every page must fit a 390 px phone).
export async function fitsWidth(page, label) {
  const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(over <= 0, `${label} scrolls sideways by ${over}px`);
}

// A full-page screenshot `<outDir>/<name>-desktop.png` at the page's size and, resized,
// `<name>-phone.png` at phone size, once the page's images have loaded; axe-core and the
// sideways check at both sizes. The page keeps its size afterwards.
export async function bothSizes(page, outDir, name, label) {
  const size = page.viewportSize();
  await page.waitForFunction(() => [...document.images].every((i) => i.complete));
  await shot(page, outDir, name + '-desktop');
  await axe(page, label + ' (desktop)');
  await page.setViewportSize(PHONE);
  await shot(page, outDir, name + '-phone');
  await axe(page, label + ' (phone)');
  await fitsWidth(page, label + ' (phone)');
  await page.setViewportSize(size);
}

// Signs in through the login form at `base`; ends on the page the login leads to.
export async function signIn(page, base, email, password, next = '/') {
  await page.goto(`${base}/auth/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/auth/login'));
}

// Signs on the signing page open in `p`: `text` (if given) into the TEXT field, then a typed
// signature `name`, then Finish. The fields are opened by mouse, or by keyboard (focus, Enter)
// with `keyboard` (fields of a template may overlap).
export async function signOnPage(p, label, name, text, { keyboard = false } = {}) {
  await p.locator('#sign-bar').waitFor();
  const field = (type) => ({
    click: async () => {
      const f = p.locator(`.sign-field[data-type="${type}"]`);
      if (!keyboard) return f.click();
      await f.focus();
      await p.keyboard.press('Enter');
    },
  });
  if (text) {
    await field('TEXT').click();
    await p.locator('#field-input').fill(text);
    await p.getByRole('button', { name: 'Save' }).click();
    await p.locator('dialog').waitFor({ state: 'detached' });
  }
  await field('SIGNATURE').click();
  await p.getByLabel('Or type it').fill(name);
  await p.getByRole('button', { name: 'Save' }).click();
  await p.locator('dialog').waitFor({ state: 'detached' });
  await axe(p, `${label}, filled`);
  await p.locator('#complete').click();
  await p.locator('#done').waitFor();
  await axe(p, `${label}, signed`);
}

// Waits until `fn` (evaluated in the page, may be async) answers something truthy, polling
// every 100 ms for up to `timeout` ms; `label` names the condition when it never holds.
// `page.waitForFunction` is not for this: it takes an async function's promise for a truthy
// answer at once, without waiting for it (microsoft/playwright#29132).
export async function until(page, label, fn, arg, { timeout = 30000 } = {}) {
  const end = Date.now() + timeout;
  for (;;) {
    const answer = await page.evaluate(fn, arg);
    if (answer) return answer;
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting until ${label}`);
    await page.waitForTimeout(100);
  }
}

// Every visible drop-down list on the page draws its arrow (the stylesheet's chevron), so that
// it never reads as a text box.
export async function selectsShowArrows(page, label) {
  const bare = await page.locator('select').evaluateAll((all) => all
    .filter((el) => el.offsetParent !== null && !el.multiple)
    .filter((el) => getComputedStyle(el).backgroundImage === 'none')
    .map((el) => el.id || el.name || el.outerHTML.slice(0, 60)));
  assert.deepEqual(bare, [], `${label}: drop-down lists without an arrow`);
}

