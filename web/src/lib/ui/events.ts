// The shape of one event in the kit's EventList, in a module of its own so plain TypeScript (the pages'
// translators, checked by the root tsc) can name it without reading a .svelte file.

/** One event of an audit or security log, in words (the page turns its log's shape into these). */
export interface ListedEvent {
  id: string;
  /** When, as an ISO date-time (shown in the page's language). */
  at: string;
  /** What happened, in words (`Signed in`). */
  what: string;
  /** Who did it; null for nobody signed in (a visitor, the operator's command line: say so in `actorKind`). */
  actor: { name: string; email?: string | null | undefined } | null;
  /** Who did it when there is no person (`Visitor`, `Operator`). */
  actorKind?: string | undefined;
  /** What it was done to: a person (`text` their name, `email`), or a thing (`text`, left to right when `ltr`). */
  target?:
    | { text?: string | undefined; email?: string | null | undefined; ltr?: boolean | undefined }
    | null
    | undefined;
  /** The address the request came from. */
  address?: string | null | undefined;
  /** Its details in words, one line each (`Method: Authenticator app`), labelled or not. */
  details: readonly { label?: string | undefined; value: string }[];
  /** What tests and styles find the row by (`data-event`). */
  kind: string;
}
