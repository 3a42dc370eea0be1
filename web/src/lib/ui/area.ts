// What the kit's parts need to know of the area they are drawn in (the business app, the backoffice): the
// suffix of a page's document title, the area's home page, and a permission in words. The area's layout sets
// it once (`setArea`); PageHead, Forbidden and the error page read it.
import { getContext, setContext } from 'svelte';

export interface Area {
  /** After a page's title in the document's title: `Users · Sigil`. */
  titleSuffix: string;
  /** The area's first page (the forbidden page's way back). */
  home: string;
  /** A permission in words (`Users · Manage`), or '' for one the area does not know. */
  permissionLabel?: (permission: string) => string;
}

const KEY = Symbol('sigil.ui.area');
const DEFAULT: Area = { titleSuffix: 'Sigil', home: '/' };

/** Sets the area of the layout's pages (call it in the layout's script). `area` is read when used, so it may
 * be a getter object whose values follow the language. */
export function setArea(area: Area): void {
  setContext(KEY, area);
}

export function getArea(): Area {
  return getContext<Area | undefined>(KEY) ?? DEFAULT;
}
