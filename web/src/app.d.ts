// See https://svelte.dev/docs/kit/types#app.d.ts for what can be declared here.
import type { DeletedDocument } from '$lib/app/documents';

declare global {
  namespace App {
    interface PageState {
      /** The envelope the page before deleted: the documents list says so once (docs/documents.md). */
      deletedDocument?: DeletedDocument;
    }
  }
}
