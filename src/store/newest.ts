/**
 * SQL for the row with the greatest `updated_at` among those a WHERE on `index` finds, or none.
 * SQLite takes a max() query's other columns from the row holding the max, so no sort is needed:
 * ORDER BY updated_at DESC LIMIT 1 built and dropped a temporary b-tree on every run (a page
 * allocated and zeroed, ~0.6-0.8 µs a lookup). `columns` in the table's order, so the row reads as
 * `SELECT *` would; `group` is the index's last column, so no row makes no group.
 */
export function newestRowSql(table: string, columns: readonly string[], index: string, where: string, group: string): string {
  const select = columns.map((c) => (c === 'updated_at' ? 'max(updated_at) AS updated_at' : c)).join(', ')
  return `SELECT ${select} FROM ${table} INDEXED BY ${index} WHERE ${where} GROUP BY ${group}`
}
