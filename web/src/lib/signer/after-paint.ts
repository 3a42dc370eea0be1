// What waits for the signer page's first paint (docs/performance.md, "The signer page on a phone"): the
// document's request and pdf.js are asked for after it, so on a phone's slow network they do not share the
// bandwidth and the CPU with what the first paint needs (the page's scripts, its words, the link's view).
/** Resolves once what the page shows now has been painted: the next frame, then a task after it. */
export function afterPaint(): Promise<void> {
  return new Promise((resolve) => {
    // A page opened in a background tab gets no frames until it is shown: it need not wait for one.
    if (document.visibilityState === 'hidden') setTimeout(resolve, 0);
    else requestAnimationFrame(() => setTimeout(resolve, 0));
  });
}
