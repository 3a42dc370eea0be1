// The Integrations diagnostics page's shapes (domain/integrations.ts, types only) and its number formats.
import type { z } from 'zod';
import type * as integrations from '../../../../domain/integrations.ts';

export type IntegrationsDiagnostics = z.output<typeof integrations.IntegrationsDiagnostics>;
export type DiagnosticsWindow = (typeof integrations.DIAGNOSTICS_WINDOWS)[number];

/** A rate (0 to 1) as a percentage in the page's language; null (nothing to divide) as `none`. */
export function formatRate(rate: number | null, language: string | null | undefined, none: string): string {
  if (rate === null) return none;
  return new Intl.NumberFormat(language ?? 'en', { style: 'percent', maximumFractionDigits: 1 }).format(rate);
}

/** A count in the page's language. */
export function formatCount(count: number, language: string | null | undefined): string {
  return new Intl.NumberFormat(language ?? 'en').format(count);
}
