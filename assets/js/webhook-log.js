// A webhook's delivery log kept current without a reload (pages/app/settings_webhook.html).
// "Send a test event" and "Redeliver" call the API (POST /api/v1/webhooks/{id}/test and
// .../deliveries/{d}/redeliver) instead of posting the page's forms, and the new delivery shows
// at once. While some delivery is pending, the log is read again from GET
// /api/v1/webhooks/{id}/deliveries: each second at first, less and less often while it waits
// (a retry may be hours away), never while the tab is hidden, and not at all once none is
// pending. Without scripts the forms post and "Refresh" reloads the page.

import { describe, localise } from './local-time.js';
import { explain, say } from './messages.js';
import { call, csrfToken, inWorkspace } from './request.js';

start();

function start() {
  const log = document.getElementById('hook-log');
  if (!log) return;
  const api = '/api/v1/webhooks/' + log.dataset.webhook;
  const body = log.querySelector('#deliveries tbody');
  const said = document.getElementById('hook-said');
  const FIRST = 1000;
  const LONGEST = 30000;
  let delay = FIRST;
  let timer = null;
  // The deliveries asked for here whose result is still to be told, with what was said.
  const awaited = new Map();

  const el = (tag, className, text) => {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const label = (event) => {
    const words = event.toLowerCase().replace(/_/g, ' ');
    return words.charAt(0).toUpperCase() + words.slice(1);
  };
  const when = (iso) => el('time', '', iso);
  const keyOf = (d) => d.status + ':' + d.attempts;

  // What the server writes for a delivery's state: its words and its badge's tone.
  function state(d) {
    if (d.status === 'DELIVERED') return ['Delivered', 'ok'];
    if (d.status === 'FAILED') return ['Failed', 'bad'];
    return d.attempts === 0 ? ['Queued', ''] : ['Retrying', 'warn'];
  }

  // A row of the log as the server renders it (http/app/settings_webhook.rs `Row`).
  function row(d) {
    const tr = el('tr');
    tr.id = 'delivery-' + d.id;
    tr.dataset.key = keyOf(d);
    if (d.status === 'PENDING') tr.dataset.pending = '';
    const main = el('th', 'set-main');
    main.scope = 'row';
    const created = when(d.createdAt);
    created.className = 'small muted';
    created.dateTime = d.createdAt;
    main.append(el('span', 'set-name', label(d.event)), ' ');
    if (d.test) main.append(el('span', 'badge set-test-mark', 'Test'), ' ');
    main.append(created);

    const [words, tone] = state(d);
    const status = el('td');
    status.dataset.label = 'Status';
    status.append(el('span', 'badge' + (tone ? ' ' + tone : ''), words));
    if (d.lastStatus !== null) status.append(' ', el('span', 'small set-http', 'HTTP ' + d.lastStatus));

    const attempts = el('td', '', String(d.attempts));
    attempts.dataset.label = 'Attempts';
    if (d.nextAttemptAt) {
      const next = el('span', 'small muted set-next', 'Next try ');
      const t = when(d.nextAttemptAt);
      t.dateTime = d.nextAttemptAt;
      next.append(t);
      attempts.append(next);
    }

    const answer = el('td', 'set-answer');
    answer.dataset.label = 'Answer';
    if (d.responseExcerpt !== null) answer.append(el('code', 'set-excerpt', d.responseExcerpt));
    if (d.lastError !== null) answer.append(el('span', 'small set-error', d.lastError));
    if (d.responseExcerpt === null && d.lastError === null) {
      answer.append(el('span', 'small muted', d.attempts === 0 ? 'Not sent yet' : 'Empty'));
    }

    const act = el('td', 'set-act');
    if (d.status !== 'PENDING' && log.dataset.on === 'true') {
      const form = el('form');
      form.method = 'post';
      form.action = inWorkspace('/settings/webhooks/') + d.webhookId + '/deliveries/' + d.id + '/redeliver';
      const csrf = el('input');
      Object.assign(csrf, { type: 'hidden', name: 'csrf_token', value: csrfToken() });
      const button = el('button', 'button small', 'Redeliver');
      button.type = 'submit';
      button.append(el('span', 'visually-hidden', ' ' + label(d.event) + ' of ' + describe(new Date(d.createdAt))));
      form.append(csrf, button);
      act.append(form);
    }
    tr.append(main, status, attempts, answer, act);
    return tr;
  }

  const number = (tr) => Number(tr.id.replace('delivery-', ''));

  // The log as `deliveries` (newest first) says: changed rows replaced, new ones added, the
  // others left alone (a focused button keeps its focus); rows newer than the reading (queued
  // while it was on its way) stay.
  function show(deliveries) {
    let at = body.firstElementChild;
    const kept = new Set();
    const newest = deliveries.length ? deliveries[0].id : 0;
    for (const d of deliveries) {
      const id = 'delivery-' + d.id;
      kept.add(id);
      const old = document.getElementById(id);
      if (old && old.dataset.key === keyOf(d)) {
        at = old.nextElementSibling;
        continue;
      }
      const fresh = row(d);
      if (old) {
        at = old.nextElementSibling;
        old.replaceWith(fresh);
      } else {
        body.insertBefore(fresh, at);
      }
      tell(d);
    }
    for (const tr of [...body.rows]) if (!kept.has(tr.id) && number(tr) < newest) tr.remove();
    shown();
  }

  // The table or the empty log's card, whichever applies; its times in the reader's zone.
  function shown() {
    const any = body.rows.length > 0;
    for (const e of log.querySelectorAll('[data-with-rows]')) e.hidden = !any;
    log.querySelector('#log-empty').hidden = any;
    localise(body);
  }

  // Says how a delivery asked for here went, once it is known, after what was said of it.
  function tell(d) {
    if (!awaited.has(d.id) || (d.status === 'PENDING' && d.attempts === 0)) return;
    const before = awaited.get(d.id);
    awaited.delete(d.id);
    const http = d.lastStatus !== null ? ' (HTTP ' + d.lastStatus + ')' : '';
    let result = 'It was delivered' + http + '.';
    if (d.status === 'FAILED') result = 'It failed' + http + ': see the log below.';
    if (d.status === 'PENDING') result = 'The first try failed' + http + '; it is tried again later.';
    say(said, before + ' ' + result, d.status === 'DELIVERED' ? 'success' : 'error');
  }

  const pending = () => body.querySelector('tr[data-pending]') !== null;

  function stop() {
    clearTimeout(timer);
    timer = null;
  }

  // The next reading, while a delivery is pending and the tab is seen.
  function later() {
    stop();
    if (!pending() || document.hidden) return;
    timer = setTimeout(read, delay);
    delay = Math.min(delay * 1.5, LONGEST);
  }

  async function read() {
    stop();
    try {
      show((await call('GET', api + '/deliveries')).deliveries);
    } catch (_) {
      // The log stays as it was; the next reading may do better.
    }
    later();
  }

  // A new delivery (from the test or a redelivery, asked by `button`): shown at once, then
  // followed closely.
  async function queue(button, url, payload, done) {
    if (button) button.disabled = true;
    try {
      const d = await call('POST', url, payload);
      awaited.set(d.id, done);
      say(said, done, 'success');
      if (!document.getElementById('delivery-' + d.id)) body.insertBefore(row(d), body.firstElementChild);
      shown();
    } catch (e) {
      say(said, explain(e), 'error');
      return;
    } finally {
      if (button) button.disabled = false;
    }
    delay = FIRST;
    read();
  }

  // (No test form while the webhook is switched off.)
  const test = document.getElementById('send-test-form') || document.createElement('form');
  test.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = new FormData(test).get('event');
    queue(event.submitter, api + '/test', chosen ? { event: chosen } : {}, 'A test event was queued.');
  });

  log.addEventListener('submit', (event) => {
    const form = event.target;
    const m = /\/deliveries\/(\d+)\/redeliver$/.exec(form.getAttribute('action') || '');
    if (!m) return;
    event.preventDefault();
    queue(event.submitter, api + '/deliveries/' + m[1] + '/redeliver', undefined, 'The delivery was queued again.');
  });

  document.addEventListener('visibilitychange', () => {
    if (document.hidden) {
      stop();
    } else if (pending()) {
      delay = FIRST;
      read();
    }
  });

  later();
}
