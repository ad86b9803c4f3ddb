// Page images come from renderers that a busy server may not free in time: it answers 503 with
// Retry-After rather than queueing without bound (src/signing/pdf/page_cache.rs). An image
// marked `data-retry` that fails is asked for again a few seconds later, a few times, instead
// of staying broken. One listener on the document (error events do not bubble, but they can be
// caught on their way down) serves the images already in the page and those scripts add later.
const DELAYS = [2000, 4000, 6000, 8000];

function retry(img) {
  const tries = Number(img.dataset.tries || 0);
  if (tries >= DELAYS.length) return;
  img.dataset.tries = String(tries + 1);
  const url = new URL(img.currentSrc || img.src, location.href);
  url.searchParams.set('retry', String(tries + 1));
  setTimeout(function () {
    // One address from now on: the browser would otherwise choose again from srcset.
    img.removeAttribute('srcset');
    img.src = url.pathname + url.search;
  }, DELAYS[tries]);
}

document.addEventListener('error', function (e) {
  const img = e.target;
  if (img instanceof HTMLImageElement && img.hasAttribute('data-retry')) retry(img);
}, true);

// Those that failed before this script ran.
for (const img of document.querySelectorAll('img[data-retry]')) {
  if (img.complete && img.naturalWidth === 0 && img.currentSrc) retry(img);
}
