// The document page: copy a signing link, remind a recipient (or send again to one whose time
// ran out), stop the automatic reminders, correct a pending recipient's
// e-mail address, and cancel, delete or hide the document, each through /api/v1 with the
// page's token; the server's reason for a refusal is shown next to the action. Until the
// document is completed its pages show the fields over them, as the editor draws them (read
// only), each in its recipient's colour.

import { confirming, copy } from './app-ui.js';
import { createCanvas } from './editor/canvas.js';
import { colourOf, nameOf, swatch } from './editor/people.js';
import { TYPE_LABELS } from './editor/properties.js';
import { explain, flash, say, takeFlash } from './messages.js';
import { call, inWorkspace } from './request.js';

const root = document.querySelector('[data-document]');
if (root) start(root);

function start(root) {
  const api = '/api/v1/documents/' + root.dataset.document;
  const notice = document.getElementById('notice');

  const flashed = takeFlash();
  if (flashed) say(notice, flashed, 'success');

  const pages = document.querySelector('#doc-pages[data-fields]');
  if (pages) showFields(pages, api);

  // Copy a signing link (the box is read-only and selectable as a fallback).
  document.querySelectorAll('[data-copy]').forEach((button) => {
    button.addEventListener('click', async () => {
      const ok = await copy(document.getElementById(button.dataset.copy));
      const result = button.closest('.recipient').querySelector('.action-result');
      if (result) {
        say(result, ok ? 'Link copied.' : 'Copy did not work here: the link is selected, press Ctrl+C (or Cmd+C).', ok ? 'success' : 'error');
      }
      button.textContent = ok ? 'Copied' : 'Copy link';
    });
  });

  // Remind one recipient.
  document.querySelectorAll('[data-resend]').forEach((button) => {
    button.addEventListener('click', async () => {
      const item = button.closest('.recipient');
      const result = item.querySelector('.action-result');
      const rid = Number(button.dataset.resend);
      button.disabled = true;
      try {
        const r = await call('POST', api + '/resend', { recipients: [rid] });
        if ('expired' in button.dataset) {
          // A fresh period: the page shows the new deadline.
          flash('Sent again to ' + item.dataset.name + ', with a fresh period.');
          window.location.reload();
          return;
        }
        if ((r.recipients || []).includes(rid)) {
          say(result, 'Reminder sent to ' + item.dataset.name + '.');
        } else {
          say(result, 'No reminder was sent: it is not ' + item.dataset.name + '\'s turn yet, or this document sends no e-mails.', 'info');
        }
      } catch (e) {
        say(result, explain(e), 'error');
      } finally {
        button.disabled = false;
      }
    });
  });

  // Stop the automatic reminders.
  const stop = document.getElementById('stop-reminders');
  if (stop) {
    stop.addEventListener('click', async () => {
      const result = stop.parentElement.querySelector('.action-result');
      stop.disabled = true;
      try {
        await call('DELETE', api + '/reminders');
        flash('Automatic reminders stopped.');
        window.location.reload();
      } catch (e) {
        say(result, explain(e), 'error');
        stop.disabled = false;
      }
    });
  }

  // Correct an e-mail address: a new link, the old one dead.
  document.querySelectorAll('form[data-correct]').forEach((form) => {
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const item = form.closest('.recipient');
      const result = item.querySelector('.action-result');
      const input = form.querySelector('input[name=email]');
      const submit = form.querySelector('button[type=submit]');
      input.removeAttribute('aria-invalid');
      submit.disabled = true;
      try {
        const r = await call('PATCH', api + '/recipients/' + form.dataset.correct, { email: input.value.trim() });
        flash(item.dataset.name + '\'s address is now ' + r.email + '. They have a new signing link; the old link no longer works.');
        window.location.reload();
      } catch (err) {
        input.setAttribute('aria-invalid', 'true');
        say(result, explain(err), 'error');
        submit.disabled = false;
        input.focus();
      }
    });
  });

  // Cancel, delete or hide, after a confirmation.
  confirming(async (confirm) => {
    await call('DELETE', api);
    const outcome = confirm.dataset.outcome;
    if (outcome === 'cancelled') {
      flash('The document is cancelled. Its signing links no longer work.');
      window.location.reload();
    } else {
      flash(outcome === 'deleted' ? 'The draft was deleted.' : 'The document is hidden from your list.');
      window.location.assign(inWorkspace('/'));
    }
  });
}

const SIGNED = ['SIGNATURE', 'FREE_SIGNATURE', 'INITIALS'];

// The pages in `box` again, with the document's fields drawn over them; the plain images stay
// when the document cannot be read.
async function showFields(box, api) {
  const list = box.querySelector('.doc-pages');
  if (!list) return;
  let doc;
  try {
    doc = await call('GET', api);
  } catch {
    return;
  }
  const sizes = box.dataset.sizes.split(' ').filter(Boolean).map((s) => s.split('x').map(Number));
  const holder = document.createElement('div');
  holder.className = 'ed-pages';
  list.replaceWith(holder);
  const canvas = createCanvas(holder, {
    sizes,
    pageUrl: (n, w) => `${box.dataset.pages}/${n}.png?w=${w}`,
    readOnly: true,
    lazy: true,
    describe: (f) => describeField(doc, f),
  });
  doc.fields.forEach(canvas.draw);
  // The recipients' colours: beside each name and in the legend.
  const legend = document.getElementById('doc-legend');
  const shown = doc.recipients.filter((r) => doc.fields.some((f) => f.recipientId === r.id));
  legend.replaceChildren(...shown.map((r) => {
    const li = document.createElement('li');
    li.append(swatch(doc.recipients, r), ` ${nameOf(r)}`);
    return li;
  }));
  legend.hidden = shown.length === 0;
  for (const r of doc.recipients) {
    const name = document.querySelector(`#recipient-${r.id} .recipient-who strong`);
    if (name) name.prepend(swatch(doc.recipients, r));
  }
}

// What a field's box shows: its value once filled, else what it is and whose.
function describeField(doc, f) {
  const r = doc.recipients.find((x) => x.id === f.recipientId);
  const type = TYPE_LABELS[f.type] || f.type;
  const signature = SIGNED.includes(f.type);
  let label = `${type} · ${nameOf(r)}`;
  if (f.inserted) {
    if (f.customText) label = f.customText;
    else label = signature ? `Signed by ${nameOf(r)}` : `${type}: filled`;
  }
  return { label, colour: colourOf(doc.recipients, f.recipientId), filled: f.inserted, signature };
}
