import {rmSync} from 'node:fs'
import {afterAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers.js'
import {type Node, play, scenarios, startNode} from './scenarios.js'

process.env.TZ = 'UTC'
const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, {recursive: true, force: true})))

/** Golden scenarios: each fixture's trace must give exactly its expected events, step by step. */
describe('tracking scenarios', () => {
  for (const scenario of scenarios()) {
    const expected = scenario.steps.map((s) => s.expect)

    it(`${scenario.name}`, async () => {
      const dir = tempDir()
      dirs.push(dir)
      const node = await startNode(dir)
      try {
        expect(await play(scenario, node, async () => node)).toEqual(expected)
      } finally {
        await node.stop()
      }
    })

    it(`${scenario.name}: restarted mid-scenario, and on two servers sharing the store alternately`, async () => {
      const dir = tempDir()
      dirs.push(dir)
      const nodes: Node[] = [await startNode(dir), await startNode(dir)]
      const middle = Math.floor(scenario.steps.length / 2)
      try {
        const got = await play(scenario, nodes[0], async (step) => {
          if (step === middle) {
            // a restart: both servers go away, a fresh one (empty memory) continues on the same store
            await Promise.all(nodes.map((n) => n.stop()))
            nodes.splice(0, 2, await startNode(dir), await startNode(dir))
          }
          return nodes[step % 2]
        })
        expect(got).toEqual(expected)
      } finally {
        await Promise.all(nodes.map((n) => n.stop()))
      }
    })
  }
})
