// What can be wrong with a stamp image chosen in the browser, besides its sides: each has its message,
// `stamps.problem.<name>` (stamps.ts reads the file; test/unit/web-i18n.test.ts checks the messages).
export const STAMP_FILE_PROBLEMS = ['empty', 'tooLarge', 'notImage', 'unreadable'] as const;
