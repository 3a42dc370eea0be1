// The signing link's data, read before the page is drawn: the link's view (asked for as the app started, when
// the page was opened at this link: lib/signer/early-view.ts; a failure goes to this route's
// +error.svelte through the one error model: 404 "This link is not valid", anything else "could not be
// loaded" with Try again), the language the page speaks, the signer's personal stamps when there is a stamp
// field, and — when the link may act — the document's request, started from here once the page has painted
// (as DocumentPages asks for pdf.js then), so nothing but what the first paint needs travels before it
// (docs/performance.md, "The signer page on a phone").
import { failLoad } from '$lib/shared/load';
import { afterPaint } from '$lib/signer/after-paint';
import { takeEarlyView } from '$lib/signer/early-view';
import { applySignerLanguage } from '$lib/signer/signer-language';
import { fetchPersonalStamps, fetchSigningDocument, fetchSigningView } from '$lib/signer/signing';
import type { PageLoad } from './$types';

export const load: PageLoad = async ({ params, url, depends }) => {
  depends('signer:view');
  const token = params.token;
  try {
    const view = await (takeEarlyView(token) ?? fetchSigningView(token));
    applySignerLanguage(view.recipient.language, url);
    const open = view.state === 'ready' && (!view.authenticationRequired || view.authenticated);
    const stamps = open && view.fields.some((field) => field.type === 'Company stamp');
    let document: Promise<ArrayBuffer> | undefined;
    if (open) {
      document = afterPaint().then(() => fetchSigningDocument(token));
      // A failure is the page's to show (DocumentPages); not an unhandled rejection meanwhile.
      document.catch(() => undefined);
    }
    return { token, view, document, personalStamps: stamps ? await fetchPersonalStamps(token) : [] };
  } catch (cause) {
    applySignerLanguage(undefined, url);
    failLoad(cause, url);
  }
};
