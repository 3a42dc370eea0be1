// `npm run docs:transitions`: writes the envelope transition table from workflows/transitions.ts into
// docs/envelope-lifecycle.md, between its `transitions:begin` and `transitions:end` markers.
// test/unit/transitions.test.ts fails when the page and the code disagree.
import { readFile, writeFile } from 'node:fs/promises';
import { transitionTableMarkdown } from '../workflows/transitions.ts';

const page = new URL('../docs/envelope-lifecycle.md', import.meta.url);
const text = await readFile(page, 'utf8');
const markers = /<!-- transitions:begin -->\n(?:[\s\S]*?\n)?<!-- transitions:end -->/;
if (!markers.test(text)) {
  process.stderr.write('docs/envelope-lifecycle.md has no <!-- transitions:begin/end --> markers\n');
  process.exit(1);
}
const updated = text.replace(
  markers,
  `<!-- transitions:begin -->\n${transitionTableMarkdown()}\n<!-- transitions:end -->`,
);
await writeFile(page, updated);
process.stdout.write(
  updated === text ? 'docs/envelope-lifecycle.md is up to date\n' : 'docs/envelope-lifecycle.md updated\n',
);
