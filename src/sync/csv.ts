import {createReadStream} from 'node:fs'
import {parse} from 'csv-parse'

/** One failed row: `row` counts the header as row 1, as a spreadsheet does; `column` is the header's name. */
export interface RowFailure {
  row: number
  column?: string
  reason: string
}

/** A file that cannot be read as CSV at all (bad quoting, not UTF-8): nothing of it is imported. */
export class CsvUnreadable extends Error {
  constructor(readonly failure: RowFailure) {
    super(`row ${failure.row}: ${failure.reason}`)
  }
}

export interface CsvRecord {
  row: number
  cells: string[]
  /** Bytes of the file read so far (for progress). */
  bytes: number
}

/**
 * The records of a CSV file, streamed (bounded memory at any size): UTF-8 with or without BOM, LF
 * or CRLF, quoted cells with embedded commas, quotes and newlines. The header is the first record.
 * A row with a different number of cells than the header is passed on for the caller to refuse.
 */
export async function* readCsv(file: string): AsyncGenerator<CsvRecord> {
  const stream = createReadStream(file)
  const parser = stream.pipe(parse({bom: true, trim: true, skip_empty_lines: true, relax_column_count: true}))
  let row = 0
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      row++
      yield {row, cells, bytes: stream.bytesRead}
    }
  } catch (error) {
    const e = error as Error & {code?: string; lines?: number}
    throw new CsvUnreadable({row: row + 1, reason: `not valid CSV: ${e.message.replace(/^Invalid [^:]*: /, '')}`})
  }
}

/** A cell of a metadata column: `true`/`false` are booleans, numbers that print back the same are numbers, the rest text. */
export function cellValue(text: string): string | number | boolean {
  if (text === 'true') return true
  if (text === 'false') return false
  if (text !== '' && /^-?\d/.test(text) && String(Number(text)) === text) return Number(text)
  return text
}
