/** Small statistics helpers: every figure is a median with min and max. */

export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
  unit: string;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest-rank: p99 of 1,000 samples is the 990th value.
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function summarize(values: readonly number[], unit: string, digits = 2): Summary {
  const round = (x: number) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : x);
  return {
    median: round(median(values)),
    min: round(Math.min(...values)),
    max: round(Math.max(...values)),
    n: values.length,
    unit
  };
}

export function fmt(s: Summary): string {
  return `${s.median} ${s.unit} (min ${s.min}, max ${s.max}, n=${s.n})`;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
