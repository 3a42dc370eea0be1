// An accessibility check of what a browser test's page shows now: axe-core (the engine behind most
// accessibility checkers) injected into the page and run against the WCAG 2.1 A and AA rules — labels, names,
// roles, contrast of text against its background, language, landmarks. Returns the violations, one line each,
// so a failing test names the rule and the elements.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

export async function accessibilityViolations(page: Page): Promise<string[]> {
  const loaded = await page.evaluate('typeof window.axe === "object"');
  // Evaluated through the debugging protocol, not added as a <script> element: the pages' Content-Security-
  // Policy refuses inline scripts (and the browser tests fail on any violation).
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    `window.axe.run(document, {
       runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
       resultTypes: ['violations'],
     }).then((result) => result.violations.map((v) => ({
       id: v.id, impact: v.impact, help: v.help,
       nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
     })))`,
  )) as AxeViolation[];
  return violations.map(
    (violation) =>
      `${violation.id} (${violation.impact ?? 'unknown'}): ${violation.help} — ` +
      violation.nodes
        .slice(0, 5)
        .map((node) => `${JSON.stringify(node.target)} ${node.failureSummary?.split('\n')[1]?.trim() ?? ''}`)
        .join('; '),
  );
}
