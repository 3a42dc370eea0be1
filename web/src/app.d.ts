// See https://svelte.dev/docs/kit/types#app.d.ts for what can be declared here.
import type { DeletedDocument } from '$lib/app/documents';

declare global {
  namespace App {
    /** A failed load, as lib/shared/load.ts makes it from the server's error body (drawn by PageState). */
    interface Error {
      /** The server's message; empty when the page says it in words of its own (forbidden, unreachable). */
      message: string;
      /** The error body's code (`forbidden`, `not_found`, …), or `unreachable` when no server answered. */
      code?: string;
      /** The permission a 403 `forbidden` names. */
      permission?: string;
      /** The error body's request id, to quote when reporting the problem. */
      requestId?: string;
    }
    interface PageState {
      /** The envelope the page before deleted: the documents list says so once (docs/documents.md). */
      deletedDocument?: DeletedDocument;
    }
  }
}
