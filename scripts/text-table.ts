// The plain-text table the benchmarks and the chaos run's report print.

/**
 * A table's lines: `header` over `rows`, the first column aligned left and the others right, each as wide as
 * its widest cell, columns two spaces apart.
 */
export function textTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  return [line(header), ...rows.map(line)];
}
