// The words of the recipients' pages' scripts, in the document's language: the page carries
// them (`<meta name="docket-messages">`, made from locales/<language>/signing-script.ftl), and
// `t` fills in each `{name}` placeholder. A message the page lacks shows its id, which a test
// makes impossible for the ids in use.

let messages = null;

function load() {
  if (messages) return messages;
  const meta = document.querySelector('meta[name="docket-messages"]');
  try {
    messages = JSON.parse(meta ? meta.content : '{}');
  } catch (_) {
    messages = {};
  }
  return messages;
}

// Message `id` with `vars` (`{ name: value }`) in its placeholders, in one pass: a value that
// looks like a placeholder stays as it is.
export function t(id, vars) {
  const text = load()[id];
  if (text === undefined) return id;
  return text.replace(/\{([a-z]+)\}/g, (whole, name) => (vars && name in vars ? String(vars[name]) : whole));
}
