// Moving the focus to what a step brought (`{@attach takeFocus}`): a message that replaces the form it answers
// (a link sent, a password set) takes the focus as it appears, so a keyboard or screen-reader user hears it and
// goes on from there instead of from the top of the page.
import type { Attachment } from 'svelte/attachments';

export const takeFocus: Attachment<HTMLElement> = (node) => {
  node.focus();
};
