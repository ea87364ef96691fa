/**
 * A list command's rows under their header row: columns two spaces apart, each as wide as its
 * widest cell, the `right` ones right-aligned (ids, counts), the last one unpadded.
 */
export function table(rows: string[][], right: number[] = []): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)))
  const cell = (text: string, c: number, last: boolean) => (right.includes(c) ? text.padStart(widths[c]) : last ? text : text.padEnd(widths[c]))
  return rows.map((r) => r.map((text, c) => cell(text, c, c === r.length - 1)).join('  ').trimEnd())
}
