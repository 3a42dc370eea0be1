// The signing link's view, asked for as soon as the app's first script runs (hooks.client.ts) when the address
// is a signing link, rather than after the signer route's own scripts have arrived and its load has started: on
// a phone's slow network that is a round trip earlier, and the page paints the document's title after it
// (docs/performance.md, "The signer page on a phone"). The route's load takes it once (`takeEarlyView`); every
// later load of the link (a verified code, a change of state) asks again.
import { fetchSigningView, type SigningView } from './signing.ts';

let early: { token: string; view: Promise<SigningView> } | undefined;

/** Starts reading the view of the signing link at `pathname` (`/sign/<token>`); nothing for other addresses. */
export function startEarlyView(pathname: string): void {
  const token = /^\/sign\/([^/]+)$/.exec(pathname)?.[1];
  if (!token) return;
  const view = fetchSigningView(decodeURIComponent(token));
  view.catch(() => undefined); // the load that takes it handles a failure
  early = { token: decodeURIComponent(token), view };
}

/** The view started early for `token`, once; undefined when none was (then the load reads it itself). */
export function takeEarlyView(token: string): Promise<SigningView> | undefined {
  if (early?.token !== token) return undefined;
  const { view } = early;
  early = undefined;
  return view;
}
