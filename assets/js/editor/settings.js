// The settings step: the form is saved with PATCH on the document as each change is made and
// before leaving the step by any link (what the server refuses is shown next to its control,
// and the page stays).

import { finishBeforeLeaving, showError, status } from './status.js';
import * as problems from './problems.js';

const checked = (form, name) => [...form.querySelectorAll(`input[name=${name}]:checked`)].map((i) => i.value);
const text = (form, name) => form.elements[name].value.trim();

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
    },
    authOptions: {
      globalAccessAuth: checked(form, 'globalAccessAuth'),
      globalActionAuth: checked(form, 'globalActionAuth'),
    },
  };
}

export function init(api) {
  const form = document.getElementById('settings-form');
  // Edits not saved yet: counted, so that typing during a save is saved next.
  let edits = 0;
  let saving = Promise.resolve(true);
  const save = () => {
    const upTo = edits;
    saving = saving.then(async () => {
      problems.clear(form);
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
