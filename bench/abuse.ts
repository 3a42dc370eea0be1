// `npm run bench:abuse`: the abuse run (scripts/abuse/abuse.ts) on a stack of its own, as a benchmark: GET
// /api/plans and a bystander organization's ordinary upload alone, then while ABUSE_CLIENTS (default 6)
// clients send PDF compression bombs and 40-megapixel signature images, with the ratios; then one
// 40-megapixel image alone (time and the API's memory) and a large allowed signature (its stored size).
// Prints the figures; asserts nothing. ABUSE_SECONDS (default 8) per phase.
import { abuseOptions, main } from '../scripts/abuse/abuse.ts';

const { target: _ignored, ...options } = abuseOptions([]);
await main(options);
