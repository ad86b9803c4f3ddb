// Recipients as the editor shows them: one colour each (by their place in the list), used in
// the recipients list, the legend, the fields on the pages and the review.

const COLOURS = ['#2f6fde', '#c2410c', '#15803d', '#9333ea', '#be123c', '#0e7490', '#a16207', '#4d7c0f'];

export const ROLES = {
  SIGNER: 'Signs',
  APPROVER: 'Approves',
  VIEWER: 'Views',
  ASSISTANT: 'Assists',
  CC: 'Gets a copy',
};

// The recipients in signing order (then as listed).
export function ordered(recipients) {
  return recipients
    .map((r, i) => ({ r, i }))
    .sort((a, b) => ((a.r.signingOrder ?? 1e9) - (b.r.signingOrder ?? 1e9)) || (a.i - b.i))
    .map((x) => x.r);
}

// The colour of recipient `id` among `recipients` (stable per recipient id order).
export function colourOf(recipients, id) {
  const ids = recipients.map((r) => r.id).sort((a, b) => a - b);
  const i = ids.indexOf(id);
  return COLOURS[(i < 0 ? 0 : i) % COLOURS.length];
}

// The number of a template recipient's placeholder address (recipient.2@placeholder.docket.invalid),
// or null for a real address.
export function placeholderNumber(r) {
  const m = /^recipient\.(\d+)@placeholder\.docket\.invalid$/i.exec((r && r.email) || '');
  return m ? Number(m[1]) : null;
}

// The address to show: none for a placeholder.
export function emailOf(r) {
  return placeholderNumber(r) === null ? r.email : '';
}

export function nameOf(r) {
  if (!r) return 'Unknown recipient';
  const n = placeholderNumber(r);
  return r.name || (n === null ? r.email : `Recipient ${n}`);
}

// The recipient with their address when they have one: "Ann (ann@example.com)".
export function describe(r) {
  const email = emailOf(r);
  return email ? `${nameOf(r)} (${email})` : nameOf(r);
}

// A small coloured mark for recipient `r`.
export function swatch(recipients, r) {
  const s = document.createElement('span');
  s.className = 'swatch';
  s.setAttribute('aria-hidden', 'true');
  s.style.setProperty('--who', colourOf(recipients, r.id));
  return s;
}
