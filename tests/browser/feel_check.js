// Run in the page by tests/browser/test_feel_browser.py: lists controls a thumb
// cannot hit (< 44 px), unlabelled fields, and sideways scrolling.
() => {
  const out = [];
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  };
  const name = (el) => (el.getAttribute('aria-label') || el.innerText || el.value || el.name || el.tagName).trim().slice(0, 40);
  for (const el of document.querySelectorAll('button, a.btn, a.tile, .table-list a, input, select, textarea, summary')) {
    if (el.type === 'hidden' || !visible(el) || el.closest('[hidden], .visually-hidden')) continue;
    let box = el;
    if ((el.type === 'radio' || el.type === 'checkbox') && el.closest('label')) box = el.closest('label');
    const r = box.getBoundingClientRect();
    if (r.height < 44 || (r.width < 44 && el.type !== 'radio' && el.type !== 'checkbox')) {
      out.push(`too small: ${el.tagName.toLowerCase()} "${name(el)}" ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
    if (['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)) {
      const labelled = (el.labels && el.labels.length) || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
      if (!labelled) out.push(`no label: ${el.tagName.toLowerCase()} name=${el.name}`);
    }
  }
  if (document.documentElement.scrollWidth > window.innerWidth + 1) {
    out.push(`page scrolls sideways: ${document.documentElement.scrollWidth}px wide`);
  }
  return out;
}
