// Where operators see a workflow in the Temporal Web UI: TEMPORAL_UI_URL, or in development the dev server's
// own UI (http://localhost:TEMPORAL_UI_PORT) that `npm start` runs; an external cluster without TEMPORAL_UI_URL
// has none Sigil knows of. Used by the operator CLI and the business app's envelope page.
import type { Config } from '../config/config.ts';

export type WebUiConfig = Partial<Pick<Config['temporal'], 'uiUrl' | 'uiPort' | 'devServer'>>;

/** The Web UI's address, or undefined when none is known. */
export function temporalWebUiBase(temporal: WebUiConfig | undefined): string | undefined {
  if (temporal?.uiUrl) return temporal.uiUrl.replace(/\/+$/, '');
  return temporal?.devServer && temporal.uiPort ? `http://localhost:${temporal.uiPort}` : undefined;
}

/** The page of one workflow in the Web UI, or null when no Web UI is known. */
export function workflowWebUiUrl(
  temporal: WebUiConfig | undefined,
  namespace: string,
  workflowId: string,
): string | null {
  const base = temporalWebUiBase(temporal);
  return base
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`
    : null;
}
