import {describe, expect, it} from 'vitest'
import {circleShape, polygonShape, ringProblem} from '../../src/geofences/geometry.js'
import {geofenceInputSchema} from '../../src/geofences/input.js'
import {isIpRule} from '../../src/geofences/ip.js'
import {normaliseHours, normaliseTime} from '../../src/geofences/operating-hours.js'

const square: Array<[number, number]> = [[7.41, 43.73], [7.42, 43.73], [7.42, 43.74], [7.41, 43.74], [7.41, 43.73]]

describe('geometry', () => {
  it('approximates a circle by a closed 64-sided polygon whose vertices lie at the radius', () => {
    const shape = circleShape([7.42, 43.73], 100)
    const ring = shape.geometry.coordinates[0]
    expect(ring).toHaveLength(65)
    expect(ring[0]).toEqual(ring[64])
    expect(shape.center).toEqual([7.42, 43.73])
    expect(shape.radius).toBe(100)
    // 100 m is ~0.0009° of latitude and ~0.00124° of longitude at 43.73°N
    expect(shape.bbox.maxLat - 43.73).toBeCloseTo(0.0009, 4)
    expect(shape.bbox.maxLng - 7.42).toBeCloseTo(0.00124, 4)
  })

  it('gives a polygon its area centroid and the distance to its farthest vertex', () => {
    const shape = polygonShape(square)
    expect(shape.center[0]).toBeCloseTo(7.415, 6)
    expect(shape.center[1]).toBeCloseTo(43.735, 6)
    // half the diagonal of a ~804 m × 1,112 m box
    expect(shape.radius).toBeGreaterThan(680)
    expect(shape.radius).toBeLessThan(690)
    expect(shape.bbox).toEqual({minLng: 7.41, minLat: 43.73, maxLng: 7.42, maxLat: 43.74})
  })

  it('accepts closed rings of 4 to 2,000 positions only', () => {
    expect(ringProblem(square)).toBeNull()
    expect(ringProblem(square.slice(1))).toMatch(/closed ring/)
    expect(ringProblem([square[0], square[1], square[0]])).toMatch(/4 to 2,000/)
    const big = Array.from({length: 1999}, (_, i) => [7 + i / 1e4, 43 + (i % 2) / 1e3] as [number, number])
    expect(ringProblem([...big, big[0]])).toBeNull()
    expect(ringProblem([...big, big[1], big[0]])).toMatch(/4 to 2,000/)
    expect(ringProblem([[7, 91], [7, 43], [8, 43], [7, 91]])).toMatch(/latitude -90 to 90/)
  })
})

describe('operating hours', () => {
  it('reads HH:mm and h:mm aa', () => {
    expect(normaliseTime('09:00')).toBe('09:00')
    expect(normaliseTime('9:05')).toBe('09:05')
    expect(normaliseTime('9:05 am')).toBe('09:05')
    expect(normaliseTime('12:00 AM')).toBe('00:00')
    expect(normaliseTime('12:30 pm')).toBe('12:30')
    expect(normaliseTime('5:30PM')).toBe('17:30')
    expect(normaliseTime('24:00')).toBe('24:00')
    for (const bad of ['25:00', '9:60', '13:00 pm', '0:30 am', '9', 'noon', '09:00:00']) expect(normaliseTime(bad), bad).toBeNull()
  })

  it('takes full or three-letter day names in any case and stores three-letter days in week order', () => {
    const result = normaliseHours({SUNDAY: [['10:00', '2:00 pm']], mon: [['9:00 am', '17:00'], ['18:00', '22:00']], Wednesday: []})
    expect(result).toEqual({hours: {Mon: [['09:00', '17:00'], ['18:00', '22:00']], Wed: [], Sun: [['10:00', '14:00']]}})
    expect(Object.keys((result as {hours: object}).hours)).toEqual(['Mon', 'Wed', 'Sun'])
  })

  it('names the offending day or pair', () => {
    expect(normaliseHours({funday: []})).toMatchObject({problem: {path: ['funday']}})
    expect(normaliseHours({mon: [], Monday: []})).toMatchObject({problem: {path: ['Monday'], statement: 'must name each day once'}})
    expect(normaliseHours({tue: [['9:00', '25:00']]})).toMatchObject({problem: {path: ['tue', 0]}})
    expect(normaliseHours({tue: [['9:00']]})).toMatchObject({problem: {path: ['tue', 0]}})
    expect(normaliseHours({tue: '9-5'})).toMatchObject({problem: {path: ['tue']}})
    expect(normaliseHours([])).toMatchObject({problem: {path: []}})
  })
})

describe('ip rules', () => {
  it('accepts single addresses, last-octet wildcards and CIDR', () => {
    for (const ok of ['10.0.0.1', '10.0.0.*', '10.0.0.0/8', '0.0.0.0/0', '2001:db8::1', '2001:db8::/32']) expect(isIpRule(ok), ok).toBe(true)
    for (const bad of ['10.0.0', '10.0.*.1', '10.0.*.*', '300.0.0.1', '10.0.0.0/33', '2001:db8::/129', '10.0.0.1/', 'host', '']) expect(isIpRule(bad), bad).toBe(false)
  })
})

describe('upsert input', () => {
  it('computes the geometry and normalises lists', () => {
    const input = geofenceInputSchema.parse({
      description: 'Store', type: 'circle', coordinates: '[7.42, 43.73]', radius: '50', enabled: 'false',
      userIds: 'a, b,,c', ip: ['10.0.0.1', '10.1.0.0/16'], metadata: '{"x": 1}', address: 'ignored when coordinates are given',
    })
    expect(input).toMatchObject({type: 'circle', enabled: false, userIds: 'a,b,c', ip: '10.0.0.1,10.1.0.0/16', metadata: {x: 1}})
    expect(input.shape.radius).toBe(50)
  })

  it('takes a polygon ring as GeoJSON polygon coordinates too, ignoring radius', () => {
    const input = geofenceInputSchema.parse({description: 'P', type: 'polygon', coordinates: [square], radius: 5})
    expect(input.shape.geometry.coordinates[0]).toEqual(square)
  })
})
