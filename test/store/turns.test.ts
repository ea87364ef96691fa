import {describe, expect, it} from 'vitest'
import {nextTurn} from '../../src/store/turns.js'

describe('nextTurn', () => {
  it('resumes one waiter per event-loop turn, so slices of concurrent work never share a turn', async () => {
    let turn = 0
    let ticking = true
    const tick = () => {
      turn++
      if (ticking) setImmediate(tick)
    }
    setImmediate(tick)
    const resumed: Array<[string, number]> = []
    const work = async (name: string) => {
      for (let i = 0; i < 3; i++) {
        await nextTurn()
        resumed.push([name, turn])
      }
    }
    await Promise.all([work('a'), work('b'), work('c')])
    ticking = false
    expect(resumed.map(([name]) => name).join('')).toBe('abcabcabc')
    const turns = resumed.map(([, t]) => t)
    expect(new Set(turns).size).toBe(turns.length)
  })
})
