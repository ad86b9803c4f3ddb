// A filled field's value laid out as the sealed PDF stamps it (`signing::pdf::seal::stamp::
// fit_text`): one line, whitespace collapsed, at 70% of the box's height or smaller when the
// line is wider than the box less its padding (a tenth of its height, at most 2 pt, each side),
// never under 2 pt; centred up and down, placed across as the field's alignment says, and from
// the left padding when it cannot fit. The face is the seal's too (sign.css: DejaVu Sans for
// text, Dancing Script for typed signatures), so what a signer sees is what gets sealed.

const HEIGHT_SHARE = 0.7;
const MIN_PT = 2;

// `span` (absolutely placed, `white-space: nowrap`, `line-height: 1`) inside `box`, a field
// whose page is `pxPerPt` CSS pixels to the point; `align` is the field's `textAlign`.
export function fitValue(span, box, pxPerPt, align) {
  const { width: w, height: h } = box.getBoundingClientRect();
  if (!w || !h || !pxPerPt) return;
  const pad = Math.min(h * 0.1, 2 * pxPerPt);
  span.style.fontSize = '100px';
  const widthAt1 = Math.max(span.getBoundingClientRect().width / 100, Number.EPSILON);
  const size = Math.max(Math.min(h * HEIGHT_SHARE, Math.max(w - 2 * pad, 0) / widthAt1), MIN_PT * pxPerPt);
  const textWidth = widthAt1 * size;
  let left = pad;
  if (align === 'center') left = (w - textWidth) / 2;
  else if (align === 'right') left = w - pad - textWidth;
  left = Math.max(left, pad);
  // The span is placed in the box's padding box, inside its border.
  span.style.fontSize = size + 'px';
  span.style.left = (left - box.clientLeft) + 'px';
  span.style.top = ((h - size) / 2 - box.clientTop) + 'px';
}
