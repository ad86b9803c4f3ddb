// Every <time datetime> of an application page in the reader's own time zone: the server writes
// UTC ("21 Nov 2026, 09:30 UTC"), which stays readable without scripts; here a moment of the
// last week becomes "5 minutes ago" or "yesterday", an older one the date and time as the
// browser's language writes them. The exact local moment is kept in the element's title.
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const exact = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'long' });
// How many of each unit make the next one, up to a week.
const UNITS = [[60, 'second'], [60, 'minute'], [24, 'hour'], [7, 'day']];

export function describe(when, now = Date.now()) {
  let amount = (when.getTime() - now) / 1000;
  if (Math.abs(amount) < 60) return 'just now';
  for (const [size, unit] of UNITS) {
    if (Math.abs(amount) < size) return relative.format(Math.round(amount), unit);
    amount /= size;
  }
  return dateTime.format(when);
}

export function localise(root = document) {
  for (const el of root.querySelectorAll('time[datetime]')) {
    const when = new Date(el.getAttribute('datetime'));
    if (Number.isNaN(when.getTime())) continue;
    el.title = exact.format(when);
    el.textContent = describe(when);
  }
}

localise();
