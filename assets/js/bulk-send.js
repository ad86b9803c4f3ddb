// A bulk send's page while it runs (pages/app/bulk_run.html): every two seconds the page itself
// is fetched again (the session's own GET, no API credential) and its progress region
// (#bulk-progress: the bar, "12 of 48 sent", the counts, the rows) is swapped for the fresh one;
// its polite live line says the new count. It stops once the run no longer runs, or when a fetch
// fails (the "Refresh" link still works). A wait for the hourly limit is shown in the reader's
// own time.
import { localise } from './local-time.js';

const EVERY = 2000;
const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

function localUntil(root) {
  for (const el of root.querySelectorAll('[data-until]')) {
    const when = new Date(el.dataset.until);
    if (!Number.isNaN(when.getTime())) el.textContent = clock.format(when);
  }
}

const running = (region) => region && region.dataset.running === 'true';

async function refresh() {
  const here = document.getElementById('bulk-progress');
  if (!running(here)) return;
  let fresh;
  try {
    const r = await fetch(location.pathname, { credentials: 'same-origin', headers: { Accept: 'text/html' } });
    if (!r.ok) return;
    const page = new DOMParser().parseFromString(await r.text(), 'text/html');
    fresh = page.getElementById('bulk-progress');
  } catch {
    return;
  }
  if (!fresh) return;
  // The focus stays where it was when its element is in the fresh copy too.
  const focused = here.contains(document.activeElement) ? document.activeElement.id : '';
  const live = here.querySelector('#bulk-live');
  const said = fresh.querySelector('#bulk-live');
  // The live line is kept (a region replaced whole is not read out) and given the new text.
  if (live && said) said.replaceWith(live);
  here.replaceChildren(...fresh.childNodes);
  here.dataset.running = fresh.dataset.running;
  if (live && said && live.textContent !== said.textContent) live.textContent = said.textContent;
  localise(here);
  localUntil(here);
  if (focused) document.getElementById(focused)?.focus();
  if (running(here)) setTimeout(refresh, EVERY);
}

localUntil(document);
if (running(document.getElementById('bulk-progress'))) setTimeout(refresh, EVERY);
