// Bulk send from a template in headless Chromium (issue 56, part 3; tests/it/bulk_send_browser.rs).
// The template's page leads to "Bulk send"; that page lists this template's columns and limits,
// and its CSV downloads with the right header. A file that cannot be used is said on the upload
// page. A file of 3 good rows, 1 bad (an invalid e-mail) and 1 unknown column: the preview marks
// the bad row with its column and reason, and the ignored column; "Send 3 documents" starts the
// run, whose page follows it by itself to "2 of 3 sent" and the hourly limit's wait, then (once
// the test has moved the hour on; this script writes `bulk-waiting.flag` for it) to "3 of 3
// sent" (Done); the report lists the skipped
// row with its reason; the list of bulk sends shows the run. The upload form and the send
// button are reached by Tab. axe-core on every page and state, at 1280 and 390 px (no sideways
// scroll); screenshots `bulk-*`.
//
// Usage: node bulk_send.mjs <base> <email> <password> <template id> <out dir>
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { launch, watch, axe, bothSizes, signIn, DESKTOP } from './lib.mjs';

const [base, email, password, tid, outDir] = process.argv.slice(2);
const summary = { ok: false };
const browser = await launch();
const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
const page = await context.newPage();
const problems = watch(page, base);
const name = (n) => `bulk-${n}`;

// Presses Tab from the page's start until `to` has the focus; the stops on the way.
async function tabTo(to, label, most = 60) {
  await page.locator('body').focus();
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  const seen = [];
  for (let i = 0; i < most; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => document.activeElement.id || document.activeElement.getAttribute('name') || document.activeElement.tagName);
    if (seen[seen.length - 1] !== at) seen.push(at);
    if (await page.locator(to).evaluate((el) => el === document.activeElement)) return seen;
  }
  throw new Error(`Tab never reached ${label}: ${seen.join(', ')}`);
}

// The text of the file a click on `locator` downloads.
async function download(locator) {
  const [file] = await Promise.all([page.waitForEvent('download'), locator.click()]);
  return { name: file.suggestedFilename(), text: readFileSync(await file.path(), 'utf8') };
}

const upload = async (fileName, text) => {
  await page.locator('#bulk-file').setInputFiles({ name: fileName, mimeType: 'text/csv', buffer: Buffer.from(text) });
};

try {
  await signIn(page, base, email, password, `/templates/${tid}`);
  // The template's page: Bulk send beside Use.
  const action = page.getByRole('link', { name: 'Bulk send', exact: true });
  await action.waitFor();
  await axe(page, 'template page');
  await action.click();
  await page.waitForURL(`${base}/templates/${tid}/bulk-send`);

  // What a bulk send does, this template's columns, the limits.
  const main = page.locator('main');
  await main.getByText('one document from this template for each row').waitFor();
  const columns = await page.locator('#bulk-columns li').allInnerTexts();
  assert.equal(columns.length, 5, columns.join(' | '));
  assert.match(columns[0], /recipient_1_email[\s\S]*Recipient 1 \(Tenant\): e-mail[\s\S]*\(required\)/);
  assert.match(columns[2], /recipient_2_email[\s\S]*Landlord Lee[\s\S]*lee@example\.com/);
  assert.match(columns[4], /Flat[\s\S]*Field “Flat”/);
  const limits = await page.locator('#bulk-limits').innerText();
  assert.match(limits, /At most 50 rows in one file/);
  assert.match(limits, /At most 2 documents sent in an hour/);
  assert.ok(await page.getByLabel('E-mail the recipients').isChecked(), 'e-mails on at first');
  await bothSizes(page, outDir, name('upload'), 'bulk send page');

  // The CSV to fill in.
  const csv = await download(page.getByRole('link', { name: 'Download a CSV for this template' }));
  assert.equal(csv.text.trim(), 'recipient_1_email,recipient_1_name,recipient_2_email,recipient_2_name,Flat');
  assert.match(csv.name, /\.csv$/);
  summary.header = csv.text.trim();

  // Keyboard: the file box, the e-mail choice and the button, in that order.
  const stops = await tabTo('#bulk-check', 'Check the file');
  const i = (id) => stops.indexOf(id);
  assert.ok(i('bulk-file') >= 0 && i('bulk-file') < i('bulk-email') && i('bulk-email') < i('bulk-check'), stops.join(', '));

  // A file without the Tenant's e-mail column: said on the upload page, nothing sent.
  await upload('wrong.csv', 'recipient_1_name,Flat\nAnn,1\n');
  await page.getByRole('button', { name: 'Check the file' }).click();
  const refused = page.locator('#bulk-error');
  await refused.waitFor();
  assert.match(await refused.innerText(), /no recipient_1_email column/);
  assert.ok(await page.locator('#bulk-file').isVisible(), 'the form again');
  // The page's own 400 is the one error the browser logs.
  const logged = problems.findIndex((p) => /status of 400/.test(p));
  assert.ok(logged >= 0, 'the refusal answers 400');
  problems.splice(logged, 1);
  await bothSizes(page, outDir, name('refused'), 'bulk send page, file refused');

  // The file: 3 good rows, 1 bad, 1 column no label has.
  const rows = [
    'recipient_1_email,recipient_1_name,Flat,Notes',
    'ann@example.com,Ann Archer,Flat 1,keys at the desk',
    'bob@example.com,Bob Baker,Flat 2,',
    'not-an-email,Cy Crane,Flat 3,',
    'dee@example.com,Dee Dunn,Flat 4,',
  ];
  await upload('tenants.csv', rows.join('\n') + '\n');
  await page.getByRole('button', { name: 'Check the file' }).click();
  await page.waitForURL(`${base}/templates/${tid}/bulk-send/preview`);
  const said = await page.locator('#bulk-summary').innerText();
  assert.match(said, /3 documents will be sent\. 1 row has a problem and will be skipped\./);
  // The ignored column, marked in words.
  assert.match(await page.locator('#bulk-ignored').innerText(), /1 column is ignored/);
  const notes = page.locator('#bulk-preview-columns li.ignored');
  assert.match(await notes.innerText(), /Notes[\s\S]*Ignored/);
  // The bad row: its column and reason, in words beside the mark.
  const bad = page.locator('#line-4');
  const badText = await bad.innerText();
  assert.match(badText, /Skipped/);
  assert.match(badText, /recipient_1_email/);
  assert.match(badText, /e-mail/i);
  summary.badRow = badText.replace(/\s+/g, ' ');
  assert.match(await page.locator('#line-2').innerText(), /Ann Archer[\s\S]*ann@example\.com/);
  assert.match(await page.locator('#line-2').innerText(), /Will be sent/);
  assert.match(await page.locator('#line-2').innerText(), /lee@example\.com/);
  assert.match(await page.locator('#line-2').innerText(), /Flat 1/);
  await bothSizes(page, outDir, name('preview'), 'preview');
  const stopsSend = await tabTo('#bulk-send', 'Send 3 documents');
  assert.ok(stopsSend.includes('bulk-send'));

  // Send: the run's page follows the run by itself to its end.
  await page.getByRole('button', { name: 'Send 3 documents' }).click();
  await page.waitForURL(/\/bulk-sends\/\d+$/);
  summary.run = Number(page.url().split('/').pop());
  await axe(page, 'run page, just started');
  // Two go out, then the hourly limit (2 here) holds the third back: the page, refreshed by
  // its script (never reloaded), says so and offers to cancel the rest.
  await page.locator('#bulk-waiting').waitFor({ timeout: 60000 });
  assert.equal(await page.locator('#bulk-sent-label').innerText(), '2 of 3 sent');
  assert.equal(await page.locator('#bulk-status').innerText(), 'Running');
  assert.match(await page.locator('#bulk-waiting').innerText(), /Waiting for the hourly limit until \d{1,2}:\d\d/);
  assert.match(await page.locator('#bulk-live').innerText(), /^2 of 3 sent, Running$/);
  assert.equal(await page.locator('#bulk-live').getAttribute('aria-live'), 'polite');
  assert.ok(await page.getByRole('button', { name: 'Cancel the rest' }).isVisible());
  assert.ok(await page.getByRole('link', { name: 'Refresh' }).isVisible(), 'a refresh without scripts');
  await bothSizes(page, outDir, name('run-waiting'), 'run page, waiting for the hourly limit');
  // The test moves the hour on (the sent rows' times an hour back): the page follows by itself.
  writeFileSync(`${outDir}/bulk-waiting.flag`, String(summary.run));
  await page.locator('#bulk-sent-label', { hasText: '3 of 3 sent' }).waitFor({ timeout: 60000 });
  await page.locator('#bulk-status', { hasText: 'Done' }).waitFor({ timeout: 30000 });
  assert.equal(await page.locator('#bulk-live').innerText(), '3 of 3 sent, Done');
  assert.equal(await page.locator('#bulk-bar').getAttribute('value'), '3');
  assert.equal(await page.locator('#bulk-bar').getAttribute('max'), '3');
  assert.equal(await page.locator('#bulk-cancel').count(), 0, 'nothing left to cancel');
  const counts = await page.locator('#bulk-counts').innerText();
  assert.match(counts, /Sent\s*3/);
  assert.match(counts, /Skipped\s*1/);
  assert.match(await page.locator('#line-4').innerText(), /Skipped[\s\S]*recipient_1_email/);
  assert.equal(await page.locator('#bulk-run-rows a[href*="/documents/"]').count(), 3);
  await bothSizes(page, outDir, name('run'), 'run page, done');

  // The report: every row, the skipped one with its reason.
  const report = await download(page.getByRole('link', { name: 'Download the report (CSV)' }));
  const lines = report.text.trim().split(/\r?\n/);
  assert.match(lines[0], /^line,status,document_id,document_url,recipient_1_email/);
  assert.equal(lines.length, 5, report.text);
  const skipped = lines.find((l) => l.startsWith('4,'));
  assert.match(skipped, /^4,SKIPPED,,,not-an-email/);
  assert.match(skipped, /recipient_1_email/);
  assert.equal(lines.filter((l) => /,SENT,\d+,/.test(l)).length, 3, report.text);
  summary.report = report.text;

  // The list of runs, from the templates list.
  await page.goto(`${base}/templates`);
  await page.getByRole('link', { name: 'Bulk sends', exact: true }).click();
  await page.waitForURL(`${base}/bulk-sends`);
  const listed = await page.locator('#bulk-runs tbody tr').allInnerTexts();
  assert.equal(listed.length, 1, listed.join(' | '));
  assert.match(listed[0], /Lease[\s\S]*tenants\.csv[\s\S]*Done[\s\S]*3 of 3 sent, 1 skipped/);
  await bothSizes(page, outDir, name('list'), 'bulk sends list');

  assert.deepEqual(problems, []);
  summary.ok = true;
} catch (e) {
  summary.error = String(e && e.stack || e);
  await page.screenshot({ path: `${outDir}/${name('failure')}.png`, fullPage: true }).catch(() => {});
} finally {
  console.log(JSON.stringify(summary));
  await browser.close();
  process.exit(summary.ok ? 0 : 1);
}
