// The Use page of a template: the document's title says whose it is, "<template> – <name>"
// (the first recipient's Name box), and follows that box as it is typed, until the title is
// edited by hand. The server writes the same default when the page opens and when a title is
// posted as the page offered it (template_use.rs, `default_title`), so the form works without
// this script too.

start();

function start() {
  const title = document.getElementById('title');
  const name = title && title.dataset.follows ? document.getElementById(title.dataset.follows) : null;
  if (!name) return;
  const base = title.dataset.base.trim();
  // As the server's `default_title`: an en dash between spaces, at most 255 characters.
  const titled = (who) => {
    const n = who.trim();
    return n ? Array.from(`${base} – ${n}`).slice(0, 255).join('') : base;
  };
  // A title the page offered (or the server kept as offered) follows; one typed stays.
  let following = title.value.trim() === base || title.value.trim() === titled(name.value);
  name.addEventListener('input', () => {
    if (following) title.value = titled(name.value);
  });
  title.addEventListener('input', () => {
    following = false;
  });
}
