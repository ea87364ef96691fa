import {afterAll, describe, expect, it} from 'vitest'
import {viaWayChain} from '../../src/osm/roads.js'
import {AVOID_BITS} from '../../src/routing/profile.js'
import {grid, type GridRouter} from './grid.js'

// Expected routes as tables, in the spirit of OSRM's cucumber features: from, to, mode, route
// (node letters passed) or null for "no route".
type Row = [string, string, 'car' | 'truck' | 'bike' | 'foot', string | null]

const check = (g: GridRouter, rows: Row[]) => {
  for (const [from, to, mode, want] of rows) expect(g.route(mode, from, to), `${mode} ${from}→${to}`).toBe(want)
}

const open: GridRouter[] = []
afterAll(() => open.forEach((g) => g.close()))
const make = async (spec: Parameters<typeof grid>[0]) => {
  const g = await grid(spec)
  open.push(g)
  return g
}

describe('routing on hand-made grids', () => {
  it('oneway streets: cars follow them, bikes may use oneway:bicycle=no, walkers ignore them', async () => {
    const g = await make({
      map: `
a b c
d e f`,
      ways: {
        abc: {nodes: 'abc', tags: {highway: 'residential', oneway: 'yes', 'oneway:bicycle': 'no'}},
        def: {nodes: 'def', tags: {highway: 'residential'}},
        ad: {nodes: 'ad', tags: {highway: 'residential'}},
        cf: {nodes: 'cf', tags: {highway: 'residential'}},
      },
    })
    check(g, [
      ['a', 'c', 'car', 'abc'],
      ['c', 'a', 'car', 'cfeda'],
      ['c', 'a', 'bike', 'cba'],
      ['c', 'a', 'foot', 'cba'],
      ['b', 'a', 'car', 'bcfeda'],
    ])
  })

  it('turn restrictions: no_left_turn and only_straight_on at a via node, bikes excepted', async () => {
    const h = await make({
      map: `
  a
b c d
  e`,
      ways: {
        ac: {nodes: 'ac', tags: {highway: 'secondary'}},
        ce: {nodes: 'ce', tags: {highway: 'secondary'}},
        bc: {nodes: 'bc', tags: {highway: 'secondary'}},
        cd: {nodes: 'cd', tags: {highway: 'secondary'}},
      },
      restrictions: [
        {type: 'no_left_turn', from: 'ac', via: 'c', to: 'cd', except: 'bicycle'},
        {type: 'only_straight_on', from: 'ce', via: 'c', to: 'ac'},
      ],
    })
    check(h, [
      ['a', 'b', 'car', 'acb'],
      ['a', 'd', 'car', 'acbcd'], // the left turn is forbidden: a U-turn at the dead end b instead
      ['a', 'd', 'bike', 'acd'],
      ['a', 'd', 'foot', 'acd'],
      ['e', 'a', 'car', 'eca'],
      ['e', 'b', 'car', 'ecacb'], // only straight on from e: to a, turn there, come back
      ['e', 'd', 'truck', 'ecacbcd'], // both restrictions at once: back from a, no left turn either
      ['e', 'b', 'foot', 'ecb'],
      ['b', 'd', 'car', 'bcd'],
    ])
  })

  it('except=* on turn restrictions: which of car, truck and bike each exemption lets through (OSM wiki)', async () => {
    // the no_left_turn of the test above; restricted, a vehicle turns at the dead end b instead
    const spec = (except: string) => ({
      map: `
  a
b c d`,
      ways: {
        ac: {nodes: 'ac', tags: {highway: 'secondary'}},
        bc: {nodes: 'bc', tags: {highway: 'secondary'}},
        cd: {nodes: 'cd', tags: {highway: 'secondary'}},
      },
      restrictions: [{type: 'no_left_turn', from: 'ac', via: 'c', to: 'cd', except}],
    })
    const table: [string, string][] = [
      // except, the modes it exempts (c car, t truck, b bike)
      ['psv', ''],
      ['bus;emergency;moped', ''],
      ['goods', ''], // light vans: not the default 16.5 m lorry
      ['hgv', 't'],
      ['motorcar', 'c'],
      ['motor_vehicle', 'ct'],
      ['vehicle', 'ctb'],
      ['bicycle;hgv', 'tb'],
      ['psv, bicycle', 'b'],
    ]
    for (const [except, exempt] of table) {
      const g = await make(spec(except))
      const got = (['car', 'truck', 'bike', 'foot'] as const).map((m) => g.route(m, 'a', 'd'))
      const want = [...'ctb'].map((c) => (exempt.includes(c) ? 'acd' : 'acbcd')).concat('acd')
      expect(got, `except=${except}`).toEqual(want)
    }
  })

  it('U-turns: cars and trucks turn round only at dead ends (or at a location), bikes and walkers anywhere', async () => {
    // No right turn from ab into bd. Turning round at x (a junction: b, c and the dead end y) would
    // get round it in 400 m; at the dead end y it takes 800 m; round the block by c and e, 600 m.
    const g = await make({
      map: `
a b x c
  d   e
    y`,
      ways: {
        abx: {nodes: 'abx', tags: {highway: 'residential'}},
        xc: {nodes: 'xc', tags: {highway: 'residential'}},
        xy: {nodes: 'xy', tags: {highway: 'residential'}},
        bd: {nodes: 'bd', tags: {highway: 'residential'}},
        ce: {nodes: 'ce', tags: {highway: 'residential'}},
        de: {nodes: 'de', tags: {highway: 'residential'}},
      },
      restrictions: [{type: 'no_right_turn', from: 'abx', via: 'b', to: 'bd'}],
    })
    check(g, [
      ['a', 'd', 'car', 'abxced'],
      ['a', 'd', 'truck', 'abxced'],
      ['a', 'd', 'bike', 'abxbd'], // a bike turns round where it likes
      ['a', 'd', 'foot', 'abd'], // walkers obey no turn restrictions
      ['x', 'a', 'car', 'xba'],
    ])
    // with the block open no more (ce gone), c is a dead end: turning round there is the way
    const h = await make({
      map: `
a b x c
  d   e
    y`,
      ways: {
        abx: {nodes: 'abx', tags: {highway: 'residential'}},
        xc: {nodes: 'xc', tags: {highway: 'residential'}},
        xy: {nodes: 'xy', tags: {highway: 'residential'}},
        bd: {nodes: 'bd', tags: {highway: 'residential'}},
        de: {nodes: 'de', tags: {highway: 'residential'}},
      },
      restrictions: [{type: 'no_right_turn', from: 'abx', via: 'b', to: 'bd'}],
    })
    check(h, [['a', 'd', 'car', 'abxcxbd'], ['a', 'e', 'truck', 'abxcxbde']])
  })

  it('via-way restrictions: no U-turn across a dual carriageway\'s median, only_ along a chain of two via ways', async () => {
    // abcd runs east, hgfe west; cg crosses the median. The U-turn b→c→g→f is forbidden for cars
    // (not for bikes): they drive on to d and come back by h. Entering the median from the other
    // carriageway, or joining it at g, is no U-turn and stays allowed.
    const g = await make({
      map: `
a b c d
e f g h`,
      ways: {
        abcd: {nodes: 'abcd', tags: {highway: 'primary', oneway: 'yes'}},
        hgfe: {nodes: 'hgfe', tags: {highway: 'primary', oneway: 'yes'}},
        cg: {nodes: 'cg', tags: {highway: 'primary'}},
        dh: {nodes: 'dh', tags: {highway: 'residential'}},
        ae: {nodes: 'ae', tags: {highway: 'residential'}},
      },
      restrictions: [{type: 'no_u_turn', from: 'abcd', via: 'cg', to: 'hgfe', except: 'bicycle'}],
    })
    check(g, [
      ['b', 'f', 'car', 'bcdhgf'],
      ['b', 'f', 'truck', 'bcdhgf'],
      ['b', 'f', 'bike', 'bcgf'],
      ['h', 'c', 'car', 'hgc'], // the U-turn the other way is not restricted
      ['b', 'g', 'car', 'bcg'], // into the median is fine: the restriction is the whole sequence
    ])
    // A stop halfway across the median does not lift the restriction: the next leg goes on in the
    // state the last arrived in, so it may not carry on to f but turns round at the stop (a
    // location), back to c, and on by d and h (not into the median again: no U-turn at c).
    const car = g.router('car')
    const [cx, cy] = g.at('c'), [gx, gy] = g.at('g')
    const median = car.snap((cx + gx) / 2, (cy + gy) / 2, 10)!, at = (l: string) => car.snap(...g.at(l), 10)!
    const arrived = car.route(at('b'), median)!
    expect(Math.round(car.route(median, at('f'))!.meters)).toBe(150) // a fresh start in the median goes straight on
    expect(Math.round(car.route(median, at('f'), arrived.end)!.meters)).toBe(450)
    // the same at a stop on the junction c itself, coming from b
    const atC = car.route(at('b'), at('c'))!
    expect(Math.round(car.route(at('c'), at('f'))!.meters)).toBe(200)
    expect(Math.round(car.route(at('c'), at('f'), atC.end)!.meters)).toBe(400) // c d h g f
    // A chain of two via ways (cx, xy): from abc along it onto yz is forbidden; from yz along it
    // (the other way) the only way on is right, onto cd.
    const h = await make({
      map: `
a b c d
    x
    y z`,
      ways: {
        abc: {nodes: 'abc', tags: {highway: 'secondary'}},
        cd: {nodes: 'cd', tags: {highway: 'secondary'}},
        cx: {nodes: 'cx', tags: {highway: 'secondary'}},
        xy: {nodes: 'xy', tags: {highway: 'secondary'}},
        yz: {nodes: 'yz', tags: {highway: 'secondary'}},
        dz: {nodes: 'dz', tags: {highway: 'tertiary'}},
      },
      restrictions: [
        {type: 'no_straight_on', from: 'abc', via: 'cx,xy', to: 'yz'},
        {type: 'only_right_turn', from: 'yz', via: 'xy,cx', to: 'cd'},
      ],
    })
    check(h, [
      ['b', 'z', 'car', 'bcdz'], // b→c→x→y→z would be faster
      ['b', 'z', 'truck', 'bcdz'],
      ['b', 'y', 'car', 'bcxy'], // the via ways themselves stay open
      ['x', 'z', 'car', 'xyz'], // joining the chain after its start is not restricted
      ['z', 'a', 'car', 'zdcba'], // z→y→x→c→b→a would be faster, but from yz only right at c
      ['y', 'a', 'car', 'yxcba'],
      ['b', 'z', 'foot', 'bcxyz'],
    ])
  })

  it('via ways resolve to a chain of edges: in any member order, joined midway, branching or cut refused', () => {
    const e = (id: number, source: number, target: number, car = 3) => ({id, source, target, car})
    // via 1-2-3-4 as edges 10 (2→1), 11 (2→3), 12 (4→3); from arrives at 1, to leaves 4
    const via = [e(11, 2, 3), e(12, 4, 3), e(10, 2, 1)]
    expect(viaWayChain([e(1, 9, 1)], via, [e(2, 4, 8)])).toEqual({from: 1, via: [-10, 11, -12], to: 2})
    expect(viaWayChain([e(2, 4, 8)], via, [e(1, 9, 1)])).toEqual({from: 2, via: [12, -11, 10], to: 1})
    // the from way joins at 2 (and runs on past it: the edge a car may drive into 2 is meant)
    expect(viaWayChain([e(3, 2, 7, 1), e(4, 6, 2, 1)], via, [e(2, 4, 8)])).toEqual({from: 4, via: [11, -12], to: 2})
    expect(viaWayChain([e(1, 9, 1)], [...via, e(13, 3, 5)], [e(2, 4, 8)])).toBeNull() // a branch at 3
    expect(viaWayChain([e(1, 9, 1)], [e(11, 2, 3)], [e(2, 4, 8)])).toBeNull() // the to way does not touch it
    expect(viaWayChain([e(1, 9, 1)], [], [e(2, 4, 8)])).toBeNull() // the extract cut the via way
  })

  it('access per mode: motorways, motorroad=yes, footways, steps, hgv=no, a low bridge for trucks', async () => {
    const g = await make({
      map: `
a b c
d e f`,
      ways: {
        ab: {nodes: 'ab', tags: {highway: 'trunk', motorroad: 'yes'}},
        bc: {nodes: 'bc', tags: {highway: 'motorway'}},
        de: {nodes: 'de', tags: {highway: 'footway'}},
        ef: {nodes: 'ef', tags: {highway: 'steps'}},
        ad: {nodes: 'ad', tags: {highway: 'residential', hgv: 'no'}},
        be: {nodes: 'be', tags: {highway: 'residential', maxheight: '3.2'}},
        cf: {nodes: 'cf', tags: {highway: 'residential'}},
      },
    })
    check(g, [
      ['a', 'c', 'car', 'abc'],
      ['a', 'c', 'truck', 'abc'],
      ['a', 'c', 'bike', null], // a motorroad and a motorway: no bikes
      ['a', 'c', 'foot', 'adefc'],
      ['d', 'f', 'bike', null], // footways and steps are closed to bikes unless tagged bicycle=yes
      ['d', 'f', 'foot', 'def'],
      ['d', 'b', 'truck', null], // hgv=no, then a 3.2 m clearance
      ['d', 'b', 'car', 'dab'],
    ])
  })

  it('avoid: tolls, highways and ferries take the longer free road', async () => {
    const g = await make({
      map: `
a b c
d e f`,
      ways: {
        abc: {nodes: 'abc', tags: {highway: 'motorway', oneway: 'no', toll: 'yes'}},
        def: {nodes: 'def', tags: {highway: 'residential'}},
        ad: {nodes: 'ad', tags: {highway: 'residential'}},
        cf: {nodes: 'cf', tags: {highway: 'residential'}},
      },
    })
    expect(g.route('car', 'a', 'c')).toBe('abc')
    expect(g.route('car', 'a', 'c', AVOID_BITS.tolls)).toBe('adefc')
    expect(g.route('car', 'a', 'c', AVOID_BITS.highways)).toBe('adefc')
    expect(g.route('car', 'a', 'c', AVOID_BITS.ferries)).toBe('abc')
  })

  it('access=destination: cars reach addresses on such roads but do not cut through; durations stay real', async () => {
    const g = await make({
      map: `
a b c
d e f`,
      ways: {
        abc: {nodes: 'abc', tags: {highway: 'residential', access: 'destination'}},
        ad: {nodes: 'ad', tags: {highway: 'residential'}},
        def: {nodes: 'def', tags: {highway: 'residential'}},
        cf: {nodes: 'cf', tags: {highway: 'residential'}},
      },
    })
    check(g, [
      ['a', 'c', 'car', 'adefc'], // around, though through is half as long
      ['a', 'c', 'truck', 'adefc'],
      ['a', 'c', 'foot', 'abc'],
      ['d', 'b', 'car', 'dab'], // an address on the road itself
    ])
    const car = g.router('car')
    const path = car.route(car.snap(...g.at('d'), 10)!, car.snap(...g.at('b'), 10)!)!
    expect(path.w).toBeCloseTo(288, 1) // 200 m at 25 km/h in deciseconds: no penalty in the duration
  })

  it('avoid borderCrossings: the 49th parallel between Manitoba (a b c) and North Dakota (d e f)', async () => {
    const g = await make({
      origin: [-100, 49.0005],
      map: `
a b c
d e f`,
      ways: {
        abc: {nodes: 'abc', tags: {highway: 'residential'}},
        ad: {nodes: 'ad', tags: {highway: 'primary'}},
        def: {nodes: 'def', tags: {highway: 'primary'}},
        cf: {nodes: 'cf', tags: {highway: 'primary'}},
      },
    })
    expect(g.route('car', 'a', 'c')).toBe('adefc') // faster through the United States
    expect(g.route('car', 'a', 'c', AVOID_BITS.borderCrossings)).toBe('abc')
    expect(g.route('car', 'a', 'd', AVOID_BITS.borderCrossings)).toBe(null)
    expect(g.route('car', 'd', 'f', AVOID_BITS.borderCrossings)).toBe('def')
  })

  it('heading: a start leaves along the side of its road the heading points to', async () => {
    const g = await make({
      map: `
a b c
d e f`,
      ways: {
        abc: {nodes: 'abc', tags: {highway: 'residential'}},
        def: {nodes: 'def', tags: {highway: 'residential'}},
        ad: {nodes: 'ad', tags: {highway: 'residential'}},
        cf: {nodes: 'cf', tags: {highway: 'residential'}},
      },
    })
    const car = g.router('car')
    const [ax, ay] = g.at('a'), [bx] = g.at('b')
    const start = car.snap((ax + bx) / 2, ay, 10)!, to = car.snap(...g.at('d'), 10)!
    const leave = (heading?: number) => {
      const p = car.route({...start, heading}, to)!
      return {first: p.arcs[0] & 1 ? 'west' : 'east', metres: Math.round(p.meters)}
    }
    expect(leave()).toEqual({first: 'west', metres: 150}) // west to a, down to d
    expect(leave(270)).toEqual({first: 'west', metres: 150})
    // east to b, where the road goes on: no turning round there (it would be 250 m), round the block
    expect(leave(80)).toEqual({first: 'east', metres: 450})
    expect(leave(0)).toEqual({first: 'west', metres: 150}) // along neither side (90° off both): either may be taken
  })
})
