// The browser's hooks of the web app. A signing link's view is asked for here, as the app starts, so it travels
// while the signer route's scripts load (lib/signer/early-view.ts).
import { startEarlyView } from '$lib/signer/early-view';

startEarlyView(window.location.pathname);
