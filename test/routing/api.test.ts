import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import polyline from '@mapbox/polyline'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {haversine} from '../../src/osm/geom.js'
import {LANGS} from '../../src/routing/steps.js'
import {startTestServer, type TestServer} from '../helpers.js'
import {importServed, MONACO} from '../osm/helpers.js'

let server: TestServer
let pk: string
beforeAll(async () => {
  server = await startTestServer()
  await importServed(server, MONACO)
  pk = server.keys.testPk
}, 60_000)
afterAll(() => server?.stop())

const get = (path: string) => server.call('GET', path, {key: pk})
// Port Hercule → Casino, Monaco
const A = '43.7311,7.4197', B = '43.7397,7.4286', C = '43.7272,7.4125'

describe('/v1/route', () => {
  it('distance: geodesic plus each mode, in metric and imperial units', async () => {
    const metric = await get(`/v1/route/distance?origin=${A}&destination=${B}&modes=car,foot&units=metric`)
    expect(metric.status).toBe(200)
    const {geodesic, car, foot} = metric.body.routes
    expect(geodesic.distance.value).toBeGreaterThan(1100)
    expect(geodesic.distance.value).toBeLessThan(1300)
    expect(car.distance.value).toBeGreaterThan(geodesic.distance.value)
    expect(car.duration.value).toBeGreaterThan(1)
    expect(foot.duration.value).toBeGreaterThan(car.duration.value)
    const imperial = await get(`/v1/route/distance?origin=${A}&destination=${B}&modes=car`)
    expect(imperial.body.routes.car.distance.value).toBeCloseTo(car.distance.value * 3.28084, 0)
    expect(imperial.body.routes.car.distance.text).toMatch(/ mi$/)
  })

  it('matrix: every origin × destination, cells equal /distance', async () => {
    const m = await get(`/v1/route/matrix?origins=${A}|${C}&destinations=${B}|${C}&mode=car&units=metric`)
    expect(m.status).toBe(200)
    expect(m.body.origins).toEqual([{latitude: 43.7311, longitude: 7.4197}, {latitude: 43.7272, longitude: 7.4125}])
    expect(m.body.matrix.map((r: any[]) => r.map((c) => [c.originIndex, c.destinationIndex]))).toEqual([[[0, 0], [0, 1]], [[1, 0], [1, 1]]])
    const d = await get(`/v1/route/distance?origin=${A}&destination=${B}&modes=car&units=metric`)
    expect(m.body.matrix[0][0].distance).toEqual(d.body.routes.car.distance)
    expect(m.body.matrix[0][0].duration).toEqual(d.body.routes.car.duration)
    expect(m.body.matrix[1][1].distance.value).toBe(0)
  })

  it('directions: legs, steps with the spec\'s manuever values, polyline6 by default, alternatives', async () => {
    const r = await get(`/v1/route/directions?locations=${A}|${B}|${C}&units=metric`)
    expect(r.status).toBe(200)
    const route = r.body.routes[0]
    expect(route.legs).toHaveLength(2)
    const steps = route.legs[0].steps
    expect(steps[0].manuever).toBe('start')
    expect(steps[steps.length - 1].manuever).toMatch(/^destination/)
    for (const s of steps) {
      expect(s).toHaveProperty('instructions')
      expect(s.voice_instructions[0].announcement).toBeTypeOf('string')
      expect(s.banner_instructions[0].primary.text).toBeTypeOf('string')
    }
    const line = polyline.decode(route.geometry.polyline, 6)
    expect(line[0][0]).toBeCloseTo(43.7311, 2)
    expect(line[line.length - 1][1]).toBeCloseTo(7.4125, 2)
    const legSum = route.legs.reduce((s: number, l: any) => s + l.distance.value, 0)
    expect(route.distance.value).toBeCloseTo(legSum, 0)
    const alt = await get(`/v1/route/directions?locations=${A}|${B}&alternatives=true`)
    expect(alt.body.routes.length).toBeGreaterThanOrEqual(1)
    expect(alt.body.routes.length).toBeLessThanOrEqual(2)
  })

  it('directions in every language (golden fixtures)', async () => {
    for (const lang of LANGS) {
      const r = await get(`/v1/route/directions?locations=${A}|${B}&lang=${lang}&units=metric&geometry=none`)
      expect(r.status).toBe(200)
      const got = r.body.routes[0].legs[0].steps.map((s: any) => [s.manuever, s.instructions])
      const file = `test/fixtures/routing/directions-${lang}.json`
      if (!existsSync(file)) writeFileSync(file, `${JSON.stringify(got, null, 1)}\n`)
      expect(got, lang).toEqual(JSON.parse(readFileSync(file, 'utf8')))
    }
  })

  it('optimize: first and last fixed, every location once, legs with indexes', async () => {
    const D = '43.7365,7.4215'
    const r = await get(`/v1/route/optimize?locations=${A}|${B}|${C}|${D}|${A}&units=metric`)
    expect(r.status).toBe(200)
    const legs = r.body.route.legs
    expect(legs[0].startIndex).toBe(0)
    expect(legs[legs.length - 1].endIndex).toBe(4)
    expect(legs.map((l: any) => l.endIndex).slice(0, -1).sort()).toEqual([1, 2, 3])
  })

  it('match: a noisy trace along a known route matches back to that route', async () => {
    const truth = await get(`/v1/route/directions?locations=${A}|${B}&units=metric&geometry=linestring`)
    const line: [number, number][] = truth.body.routes[0].geometry.linestring.coordinates
    // points every ~25 m along the route, 2 s apart, each moved by up to 8 m (seeded)
    let seed = 5
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) - 0.5
    const path: {coordinates: string; createdAt: string; accuracy: number}[] = []
    let carry = 0
    const t0 = Date.parse('2026-01-01T00:00:00Z')
    for (let i = 1; i < line.length; i++) {
      const [x0, y0] = line[i - 1], [x1, y1] = line[i]
      const len = haversine(x0, y0, x1, y1)
      for (let d = carry; d < len; d += 25) {
        const f = d / len
        const lng = x0 + f * (x1 - x0) + rnd() * 16 / 80_000, lat = y0 + f * (y1 - y0) + rnd() * 16 / 111_000
        path.push({coordinates: `${lat},${lng}`, createdAt: new Date(t0 + path.length * 2000).toISOString(), accuracy: 8})
      }
      carry = (carry - len) % 25
      if (carry < 0) carry += 25
    }
    const r = await server.call('POST', '/v1/route/match', {key: pk, body: {path, units: 'metric', roadAttributes: 'roadClass,names,speedLimit', geometry: 'linestring'}})
    expect(r.status).toBe(200)
    expect(r.body.matchedPath.length).toBe(path.length)
    expect(r.body.matchedPath.map((p: any) => p.originalIndex)).toEqual(path.map((_p, i) => i))
    // matched points lie on the true route (within 2 m of its line); a few may sit on the crossing
    // street at a junction the noise moved them past
    const nearLine = (lng: number, lat: number) => Math.min(...line.slice(1).map((b, i) => segmentDistance([lng, lat], line[i], b)))
    const off = r.body.matchedPath.map((p: any) => nearLine(p.longitude, p.latitude))
    expect(off.filter((d: number) => d < 2).length / off.length, JSON.stringify(off.map((d: number) => Math.round(d)))).toBeGreaterThan(0.95)
    expect(Math.max(...off)).toBeLessThan(15)
    const want = truth.body.routes[0].distance.value
    expect(r.body.distance.value).toBeGreaterThan(want * 0.9)
    expect(r.body.distance.value).toBeLessThan(want * 1.02)
    expect(r.body.roadAttributes.length).toBeGreaterThan(2)
    expect(r.body.roadAttributes.map((a: any) => a.names).flat()).toContain('Boulevard Albert 1er')
    for (const a of r.body.roadAttributes) expect(['motorway', 'trunk', 'primary', 'secondary', 'tertiary', 'residential', 'unclassified', 'service_other']).toContain(a.roadClass)
    const bad = await server.call('POST', '/v1/route/match', {key: pk, body: {path: [{coordinates: '10,10'}]}})
    expect(bad.status).toBe(400)
    expect(bad.body.meta.param).toBe('path')
  })

  it('isochrone geofences are drawn by the routing engine', async () => {
    const r = await server.call('POST', '/v1/geofences', {key: server.keys.testSk, body: {description: 'iso', type: 'isochrone', coordinates: [7.4197, 43.7311], radius: 5, mode: 'car', tag: 't', externalId: 'iso1'}})
    expect(r.status).toBe(200)
    const ring = r.body.geofence.geometry.coordinates[0]
    expect(ring.length).toBeGreaterThan(10)
    expect(ring[0]).toEqual(ring[ring.length - 1])
  })

  it('refuses bad input with a 400 naming the parameter (seeded fuzz), and points off the map', async () => {
    const cases: [string, string][] = [
      [`/v1/route/distance?origin=${A}&destination=10,10&modes=car`, 'destination'],
      [`/v1/route/distance?origin=1,1&destination=${B}&modes=car`, 'origin'],
      [`/v1/route/directions?locations=${A}|${B}|${C}&alternatives=true`, 'alternatives'],
      [`/v1/route/matrix?origins=${Array(26).fill(A).join('|')}&destinations=${Array(25).fill(B).join('|')}&mode=car`, 'destinations'],
      [`/v1/route/optimize?locations=${Array(11).fill(A).join('|')}`, 'locations'],
    ]
    const bad = ['', 'x', '91,0', '1', 'NaN,NaN', '43.7,7.4,1', '%00', 'car|', '-1', '1e999', '[]', 'true']
    let seed = 42
    const pick = () => bad[(seed = (seed * 16807) % 2147483647) % bad.length]
    const base: Record<string, Record<string, string>> = {
      distance: {origin: A, destination: B, modes: 'car', units: 'metric', avoid: 'tolls', geometry: 'none', departureTime: '2026-01-01T00:00:00Z'},
      matrix: {origins: A, destinations: B, mode: 'car', units: 'metric'},
      directions: {locations: `${A}|${B}`, mode: 'car', lang: 'en', geometry: 'polyline6', heading: '90'},
      optimize: {locations: `${A}|${B}`, mode: 'car', geometry: 'none'},
    }
    for (const [endpoint, params] of Object.entries(base)) {
      for (const param of Object.keys(params)) {
        for (let i = 0; i < 3; i++) {
          const value = pick()
          if (param === 'geometry' && value === '') continue
          const q = new URLSearchParams({...params, [param]: value})
          if (value === '') q.delete(param)
          cases.push([`/v1/route/${endpoint}?${q}`, param])
        }
      }
    }
    for (const [path, param] of cases) {
      const r = await get(path)
      if (r.status === 200) continue // e.g. an omitted optional parameter
      expect(r.status, path).toBe(400)
      expect(r.body.meta.param, path).toBe(param)
      expect(r.body.meta.message.startsWith(`${param}: `), path).toBe(true)
    }
  })
})

/** metres from p to segment ab (local equirectangular) */
function segmentDistance(p: [number, number], a: [number, number], b: [number, number]): number {
  const kx = Math.cos((p[1] * Math.PI) / 180) * 111_320, ky = 111_320
  const ax = (a[0] - p[0]) * kx, ay = (a[1] - p[1]) * ky, bx = (b[0] - p[0]) * kx, by = (b[1] - p[1]) * ky
  const vx = bx - ax, vy = by - ay, l2 = vx * vx + vy * vy
  const u = l2 ? Math.max(0, Math.min(1, -(ax * vx + ay * vy) / l2)) : 0
  return Math.hypot(ax + u * vx, ay + u * vy)
}
