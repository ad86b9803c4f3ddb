// The consent page: an app logo that cannot load is replaced by the app's initial.
for (const img of document.querySelectorAll('img.app-logo')) {
  const fallback = () => {
    const initial = img.nextElementSibling;
    if (initial && initial.classList.contains('app-logo-fallback')) initial.hidden = false;
    img.remove();
  };
  if (img.complete && img.naturalWidth === 0) fallback();
  else img.addEventListener('error', fallback, { once: true });
}
