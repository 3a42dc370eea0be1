// The part of madge's API (https://github.com/pahen/madge) that test/unit/import-cycles.test.ts uses; madge
// ships no types of its own.
declare module 'madge' {
  interface MadgeConfig {
    /** Paths in the answers are relative to this folder. */
    baseDir?: string;
    fileExtensions?: string[];
    /** A tsconfig.json, so imports resolve as `tsc` resolves them. */
    tsConfig?: string;
    /** Options per detective (`ts`, `es6`, …), e.g. `{ ts: { skipTypeImports: false } }`. */
    detectiveOptions?: Record<string, Record<string, unknown>>;
  }

  interface MadgeResult {
    /** Every module read, with the project modules it imports. */
    obj(): Record<string, string[]>;
    /** The circles found, each as the modules along it. */
    circular(): string[][];
    /** `skipped`: imports that did not resolve to a file. */
    warnings(): { skipped: string[] };
  }

  export default function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
}
