// The settings step: the form is saved with PATCH on the document as each change is made and
// before leaving the step by any link (what the server refuses is shown next to its control,
// and the page stays).

import { finishBeforeLeaving, showError, status } from './status.js';
import * as problems from './problems.js';

const checked = (form, name) => [...form.querySelectorAll(`input[name=${name}]:checked`)].map((i) => i.value);
const text = (form, name) => form.elements[name].value.trim();

// The deadline as `meta.envelopeExpirationPeriod`: a period after sending, a date (typed in the
// browser's time), or none.
function deadline(form) {
  const kind = checked(form, 'deadline')[0];
  if (kind === 'after') {
    return { unit: form.elements.deadlineUnit.value, amount: Number(form.elements.deadlineAmount.value) };
  }
  if (kind === 'until') {
    const typed = form.elements.deadlineUntil.value;
    const at = new Date(typed);
    // What cannot be read goes as typed, for the server to say what is wrong.
    return { until: Number.isNaN(at.getTime()) ? typed : at.toISOString() };
  }
  return { disabled: true };
}

// The reminders as `meta.reminders`: every so many days, at most so many, or none.
// (The box by its name: `form.elements.reminders` is also the fieldset of that id.)
const remindBox = (form) => form.querySelector('input[name=reminders]');
function reminders(form) {
  if (!remindBox(form).checked) return null;
  return { everyDays: Number(form.elements.remindEvery.value), max: Number(form.elements.remindMax.value) };
}

// A date-and-time box shows an RFC 3339 moment in the browser's own time.
function showLocal(input) {
  const at = new Date(input.dataset.until || '');
  if (Number.isNaN(at.getTime())) return;
  const pad = (n) => String(n).padStart(2, '0');
  input.value = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

// A refused deadline or reminders is said in its fieldset, right under the row of the box it
// came from; that box is marked too, described by the reason, so that the focus goes there.
function markRefused(form, details) {
  const boxes = {
    'meta.envelopeExpirationPeriod': () => (checked(form, 'deadline')[0] === 'until' ? 'deadlineUntil' : 'deadlineAmount'),
    'meta.reminders': () => 'remindEvery',
  };
  for (const d of details || []) {
    const which = boxes[d.path];
    const said = form.querySelector(`.error-text[data-for-path="${d.path}"]`);
    if (!which || !said) continue;
    const box = form.elements[which()];
    if (box.dataset.describedby === undefined) box.dataset.describedby = box.getAttribute('aria-describedby') || '';
    box.closest('.row, .deadline-until').after(said);
    box.setAttribute('aria-invalid', 'true');
    box.setAttribute('aria-describedby', `${box.dataset.describedby} ${said.id}`.trim());
  }
}

// The marked boxes described as before.
function unmark(form) {
  form.querySelectorAll('[data-describedby]').forEach((box) => {
    if (box.dataset.describedby) box.setAttribute('aria-describedby', box.dataset.describedby);
    else box.removeAttribute('aria-describedby');
  });
}

// The form as the API's PATCH body; empty optional texts clear their value.
export function body(form) {
  const orNull = (v) => (v === '' ? null : v);
  // Who in the team sees it: only a team's row offers the choice.
  const visibility = form.elements.visibility ? { visibility: form.elements.visibility.value } : {};
  return {
    ...visibility,
    title: text(form, 'title'),
    externalId: orNull(text(form, 'externalId')),
    meta: {
      subject: orNull(text(form, 'subject')),
      message: orNull(form.elements.message.value),
      signingOrder: checked(form, 'signingOrder')[0],
      distributionMethod: checked(form, 'distributionMethod')[0],
      dateFormat: form.elements.dateFormat.value,
      timezone: text(form, 'timezone'),
      redirectUrl: orNull(text(form, 'redirectUrl')),
      language: form.elements.language.value,
      envelopeExpirationPeriod: deadline(form),
      reminders: reminders(form),
    },
    authOptions: {
      globalAccessAuth: checked(form, 'globalAccessAuth'),
      globalActionAuth: checked(form, 'globalActionAuth'),
    },
  };
}

export function init(api) {
  const form = document.getElementById('settings-form');
  showLocal(form.elements.deadlineUntil);
  // Typing a period or a date chooses it.
  const choose = (value) => () => { form.querySelector(`input[name=deadline][value=${value}]`).checked = true; };
  form.elements.deadlineAmount.addEventListener('input', choose('after'));
  form.elements.deadlineUnit.addEventListener('input', choose('after'));
  form.elements.deadlineUntil.addEventListener('input', choose('until'));
  const remind = () => { remindBox(form).checked = true; };
  form.elements.remindEvery.addEventListener('input', remind);
  form.elements.remindMax.addEventListener('input', remind);
  // Edits not saved yet: counted, so that typing during a save is saved next.
  let edits = 0;
  let saving = Promise.resolve(true);
  const save = () => {
    const upTo = edits;
    saving = saving.then(async () => {
      problems.clear(form);
      unmark(form);
      showError(null);
      status('Saving…');
      try {
        const doc = await api.update(body(form));
        document.getElementById('editor-title').textContent = doc.title;
        if (edits === upTo) edits = 0;
        status('Settings saved.');
        return true;
      } catch (err) {
        status('');
        const left = problems.place(form, err.details);
        markRefused(form, err.details);
        showError(left.length || !err.details.length ? err : { message: 'Some settings need a change: see the messages below each.' });
        const first = form.querySelector('[aria-invalid=true]');
        if (first) first.focus();
        return false;
      }
    });
    return saving;
  };
  form.addEventListener('input', () => { edits += 1; });
  // Saved as each change is made (a choice at once, a text when leaving it), as in the other
  // steps; Save settings saves now.
  form.addEventListener('change', () => { edits += 1; save(); });
  form.addEventListener('submit', (e) => { e.preventDefault(); save(); });
  // Leaving by any link (Next, the stepper, the top navigation) saves what is left first, and
  // stays when it cannot be saved.
  finishBeforeLeaving(async () => (edits ? save() : saving), () => edits > 0);
}
