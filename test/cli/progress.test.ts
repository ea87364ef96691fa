import {describe, expect, it} from 'vitest'
import {startProgress} from '../../src/cli/progress.js'

/** Progress off a terminal, on a clock the test moves: the lines it writes. */
function plain() {
  const lines: string[] = []
  let now = 0
  const stream = {write: (text: string) => lines.push(...text.split('\n').filter(Boolean))}
  return {lines, stream, now: () => now, advance: (ms: number) => (now += ms)}
}

describe('progress off a terminal', () => {
  it('prints nothing for work under a second', () => {
    const t = plain()
    const progress = startProgress('{percentage}% | {rows} rows', 100, {rows: 0}, t)
    for (let done = 10; done <= 100; done += 10) {
      t.advance(50)
      progress.update(done, {rows: done * 1000})
    }
    progress.finish({rows: 100_000})
    expect(t.lines).toEqual([])
  })

  it('prints a line after a second, then at each further 10 % or every 10 s, and a last one when done; counts with separators', () => {
    const t = plain()
    const progress = startProgress('{percentage}% | {rows} rows | {label}', 1000, {rows: 0, label: 'reading'}, t)
    progress.update(10, {rows: 100}) // at 0 s: quiet
    t.advance(1500)
    progress.update(35, {rows: 3500}) // the first line
    progress.update(80, {rows: 8000}) // same 10 % step: none
    progress.update(120, {rows: 12_000, label: 'writing'}) // a further 10 %
    t.advance(10_000)
    progress.update(125, {rows: 12_500}) // 10 s since the last line
    progress.finish({rows: 20_000, label: 'done'})
    expect(t.lines).toEqual([
      '3% | 3,500 rows | reading',
      '12% | 12,000 rows | writing',
      '12% | 12,500 rows | writing',
      '100% | 20,000 rows | done',
    ])
  })

  it('a failed run stops without a last line', () => {
    const t = plain()
    const progress = startProgress('{percentage}%', 10, {}, t)
    t.advance(2000)
    progress.update(5)
    progress.stop()
    expect(t.lines).toEqual(['50%'])
  })
})
