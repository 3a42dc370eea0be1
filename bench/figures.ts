// What several benchmarks compute the same way: a percentile of measured values and a pool that runs tasks a
// few at a time.

/** The p-th percentile (nearest rank) of `values`, in any order; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] as number;
}

/** Runs `task` for 0..count-1 with at most `concurrency` at a time. */
export async function pool(count: number, concurrency: number, task: (index: number) => Promise<void>) {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}
