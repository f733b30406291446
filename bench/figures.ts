/** One measured figure. `key` is the flat JSON key (DESIGN.md § Benchmarks names the fixed ones). */
export interface BenchFigure {
  key: string;
  /** null when the figure needs a tool that is absent (pdftotext, pandoc); `note` then says which. */
  value: number | null;
  unit: string;
  /** Human target, e.g. "< 2", "≥ 0.9". */
  target?: string;
  /** A figure measured in the same run to compare against, e.g. "pdftotext 1.17 s". */
  anchor?: string;
  note?: string;
}

export interface BenchSuite {
  name: string;
  run(): Promise<BenchFigure[]>;
}
