import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createCanvas, loadImage} from '@napi-rs/canvas'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {addMarkerImage} from '../../src/maps/markers.js'
import {setSetting} from '../../src/project/settings.js'
import {worldX, worldY} from '../../src/maps/projection.js'
import {importOsm} from '../../src/osm/index.js'
import {startTestServer, type TestServer} from '../helpers.js'
import {MONACO, tempDataDir} from '../osm/helpers.js'

const dataDir = tempDataDir()
let server: TestServer
const GOLDEN = 'test/fixtures/maps'

beforeAll(async () => {
  await importOsm(MONACO, {dataDir})
  server = await startTestServer({dataDir})
})
afterAll(async () => {
  await server?.stop()
  rmSync(dataDir, {recursive: true, force: true})
})

async function get(query: string, headers: Record<string, string> = {}) {
  const key = query.includes('publishableKey=') ? '' : `&publishableKey=${server.keys.testPk}`
  const res = await fetch(`${server.url}/maps/static?${query}${key}`, {headers})
  const bytes = Buffer.from(await res.arrayBuffer())
  return {status: res.status, headers: res.headers, bytes, json: () => JSON.parse(bytes.toString())}
}

/** RGBA pixels of a PNG. */
async function pixels(png: Buffer) {
  const img = await loadImage(png)
  const c = createCanvas(img.width, img.height)
  const g = c.getContext('2d')
  g.drawImage(img, 0, 0)
  const data = g.getImageData(0, 0, img.width, img.height).data
  return {width: img.width, height: img.height, at: (x: number, y: number) => Array.from(data.subarray((Math.round(y) * img.width + Math.round(x)) * 4, (Math.round(y) * img.width + Math.round(x)) * 4 + 3))}
}

/** The share of pixels of two PNGs of one size differing by more than `tol` in a channel. */
async function offShare(one: Buffer, other: Buffer, tol = 40): Promise<number> {
  const a = await pixels(one), b = await pixels(other)
  let off = 0
  for (let y = 0; y < a.height; y++) for (let x = 0; x < a.width; x++) if (!near(a.at(x, y), b.at(x, y), tol)) off++
  return off / (a.width * a.height)
}

const hex = (h: string) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16))
const near = (a: number[], b: number[], tol = 24) => a.every((v, i) => Math.abs(v - b[i]) <= tol)

/** Image pixel of lon/lat in a view given by the response's X-Map-Center / X-Map-Zoom. */
function projector(headers: Headers, width: number, height: number) {
  const [lat, lon] = headers.get('x-map-center')!.split(',').map(Number)
  const z = Number(headers.get('x-map-zoom'))
  return (lo: number, la: number) => [worldX(lo, z) - worldX(lon, z) + width / 2, worldY(la, z) - worldY(lat, z) + height / 2]
}

describe('GET /maps/static', () => {
  it('renders a PNG with ETag and Cache-Control, answers 304 to If-None-Match and serves repeats from the cache', async () => {
    const q = 'width=300&height=200&center=43.7384,7.4246&zoom=15'
    const first = await get(q)
    expect(first.status).toBe(200)
    expect(first.headers.get('content-type')).toBe('image/png')
    expect(first.bytes.subarray(1, 4).toString()).toBe('PNG')
    expect(first.headers.get('cache-control')).toMatch(/max-age=\d+/)
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^".+"$/)
    const again = await get(q)
    expect(again.bytes.equals(first.bytes)).toBe(true)
    const notModified = await get(q, {'if-none-match': etag})
    expect(notModified.status).toBe(304)
    expect(notModified.bytes.length).toBe(0)
    const px = await pixels(first.bytes)
    expect([px.width, px.height]).toEqual([300, 200])
    const double = await get(`${q}&scale=2`)
    const px2 = await pixels(double.bytes)
    expect([px2.width, px2.height]).toEqual([600, 400])
  })

  it('matches the golden images of Monaco in the three styles (small pixel tolerance)', async () => {
    for (const [style, zoom] of [['service-default-v1', 15], ['service-light-v1', 12], ['service-dark-v1', 18]] as const) {
      const {status, bytes} = await get(`width=400&height=300&center=43.7384,7.4246&zoom=${zoom}&style=${style}`)
      expect(status).toBe(200)
      const file = `${GOLDEN}/monaco-${style}-z${zoom}.png`
      if (!existsSync(file) || process.env.UPDATE_GOLDEN) writeFileSync(file, bytes)
      expect(await offShare(bytes, readFileSync(file)), `${style} z${zoom}: share of pixels off`).toBeLessThan(0.01)
    }
  })

  it('fills the sea off Monaco with the water colour, and keeps the land land-coloured', async () => {
    const {bytes, headers} = await get('width=400&height=400&center=43.735,7.43&zoom=14')
    const px = await pixels(bytes)
    const at = projector(headers, 400, 400)
    const water = hex('#a9d3f0')
    for (const [lon, lat] of [[7.44, 43.728], [7.43, 43.725], [7.425, 43.73]]) expect(px.at(...(at(lon, lat) as [number, number])), `${lat},${lon}`).toEqual(water)
    // the casino gardens / Monte-Carlo are on land
    expect(near(px.at(...(at(7.4160, 43.7400) as [number, number])), water, 10)).toBe(false)
  })

  it('draws the sea only near the data: kilometres beyond the extract stay background, not a guessed coast', async () => {
    const {bytes, headers} = await get('width=600&height=400&center=43.735,7.42&zoom=12')
    const px = await pixels(bytes)
    const at = projector(headers, 600, 400)
    expect(px.at(...(at(7.43, 43.725) as [number, number]))).toEqual(hex('#a9d3f0'))
    // the prolonged coastline once filled these with sea, over French land and open water alike
    for (const [lon, lat] of [[7.37, 43.70], [7.45, 43.69]]) expect(px.at(...(at(lon, lat) as [number, number])), `${lat},${lon}`).toEqual(hex('#f3f0ea'))
  })

  it('draws a marker in its colour at its projected pixel and a path through its points', async () => {
    const {bytes, headers} = await get('width=400&height=300&center=43.7384,7.4246&zoom=16&markers=color:0xff0000|43.7384,7.4246&markers=color:blue|size:small|43.7370,7.4230&path=stroke:0x00ff00|width:6|borderWidth:0|43.7390,7.4225|43.7400,7.4280|43.7375,7.4270')
    const px = await pixels(bytes)
    const at = projector(headers, 400, 300)
    const [mx, my] = at(7.4246, 43.7384)
    expect([mx, my]).toEqual([200, 150])
    expect(near(px.at(mx, my - 12), [255, 0, 0])).toBe(true)
    const [sx, sy] = at(7.4230, 43.7370)
    expect(near(px.at(sx, sy - 8), [0, 0, 255])).toBe(true)
    const pts = [[7.4225, 43.739], [7.428, 43.74], [7.427, 43.7375]]
    for (let i = 0; i < pts.length; i++) {
      const [x, y] = at(pts[i][0], pts[i][1])
      expect(near(px.at(x, y), [0, 255, 0]), `path point ${i}`).toBe(true)
      if (i) {
        const [x0, y0] = at(pts[i - 1][0], pts[i - 1][1])
        expect(near(px.at((x + x0) / 2, (y + y0) / 2), [0, 255, 0]), `path segment ${i}`).toBe(true)
      }
    }
  })

  it('fits the view to every marker and path when center and zoom are absent, and to bbox', async () => {
    const markers = [[43.7290, 7.4150], [43.7480, 7.4370], [43.7310, 7.4390], [43.7450, 7.4120]]
    const q = `width=500&height=300&markers=color:0xff00ff|${markers.map((m) => m.join(',')).join('|')}&path=enc:${'_p~iF~ps|U_ulLnnqC_mqNvxq`@'}`
    const {status, bytes, headers} = await get(q.replace(/&path=.*/, ''))
    expect(status).toBe(200)
    const px = await pixels(bytes)
    const at = projector(headers, 500, 300)
    for (const [lat, lon] of markers) {
      const [x, y] = at(lon, lat)
      expect(x > 12 && x < 488 && y > 36 && y < 300, `${lat},${lon} at ${x},${y}`).toBe(true)
      expect(near(px.at(x, y - 12), [255, 0, 255]), `${lat},${lon} drawn`).toBe(true)
    }
    expect(Number(headers.get('x-map-zoom'))).toBe(13) // 14 would not fit the pins
    const boxed = await get('width=400&height=400&bbox=43.72,7.40,43.76,7.45')
    expect(boxed.status).toBe(200)
    expect(Number(boxed.headers.get('x-map-zoom'))).toBe(13)
    const encoded = await get(q)
    expect(encoded.status).toBe(200)
  })

  it('keeps labels off the paths: a path through a place label leaves no text beside it', async () => {
    // MONTE-CARLO is labelled at its place point, the image centre; the path runs through it
    const q = 'width=400&height=300&center=43.7402961,7.426559&zoom=15'
    const dark = (p: number[]) => p[0] < 100 && p[1] < 100 && p[2] < 110
    const darkBeside = async (query: string) => {
      const px = await pixels((await get(query)).bytes)
      let n = 0
      for (let y = 141; y <= 159; y++) for (let x = 0; x < 400; x++) if (dark(px.at(x, y))) n++
      return n
    }
    const path = 'path=stroke:0x00ff00|width:4|borderWidth:0|43.7402961,7.41|43.7402961,7.445'
    expect(await darkBeside(q)).toBeGreaterThan(30) // the label is there without the path
    expect(await darkBeside(`${q}&${path}`)).toBe(0)
  })

  it('draws from cached tiles what it draws cold (the next image nearby reuses tiles)', async () => {
    const {createStaticMaps, parseStaticMap} = await import('../../src/maps/index.js')
    const options = {stylesDir: 'config/styles', markersDir: dataDir}
    const view = (lon: number) => parseStaticMap({width: '300', height: '200', center: `43.7384,${lon}`, zoom: '16', scale: '2'})
    const cold = await createStaticMaps(server.system.map, options).render(view(7.4246))
    const warm = createStaticMaps(server.system.map, options)
    // a new area is drawn in one piece; wanted again, its tiles are drawn right after that image
    await warm.render(view(7.4236))
    await warm.render(view(7.4241))
    await new Promise((resolve) => setImmediate(resolve))
    const reused = await warm.render(view(7.4246))
    expect(reused.cached).toBe(false)
    expect(await offShare(cold.png, reused.png)).toBeLessThan(0.002)
  })

  it('labels in the requested language from name:<lang>, falling back to the local name', async () => {
    const q = 'width=400&height=300&center=43.7318,7.4215&zoom=16'
    const local = await get(`${q}&language=local`)
    const ru = await get(`${q}&language=ru`)
    const none = await get(`${q}&language=zz`)
    expect(local.status).toBe(200)
    expect(await offShare(ru.bytes, local.bytes)).toBeGreaterThan(0.002) // Монако and friends
    // no name:zz anywhere: local names (the first image of an area is drawn in one piece, the third
    // from tiles: a few anti-aliased edge pixels may differ, a label changes hundreds)
    expect(await offShare(none.bytes, local.bytes)).toBeLessThan(0.002)
  })

  it('draws an uploaded marker image (scaled to fit 64×64, bottom centre on the location)', async () => {
    const c = createCanvas(128, 64)
    const g = c.getContext('2d')
    g.fillStyle = '#00c853'
    g.fillRect(0, 0, 128, 64)
    const file = `${dataDir}/store.png`
    writeFileSync(file, c.toBuffer('image/png'))
    expect(await addMarkerImage(dataDir, 'store', file)).toEqual({id: 'store', width: 64, height: 32})
    await expect(addMarkerImage(dataDir, '../x', file)).rejects.toThrow(/^id: /)
    await expect(addMarkerImage(dataDir, 'x', `${dataDir}/nope.png`)).rejects.toThrow(/^file: /)
    const {status, bytes} = await get('width=200&height=200&center=43.7384,7.4246&zoom=15&markers=icon:store|43.7384,7.4246')
    expect(status).toBe(200)
    const px = await pixels(bytes)
    expect(near(px.at(100, 100 - 16), [0, 200, 83])).toBe(true)
    expect(near(px.at(100 + 30, 100 - 2), [0, 200, 83])).toBe(true)
    expect(near(px.at(100 + 40, 100 - 16), [0, 200, 83])).toBe(false)
  })

  it('draws http(s) marker icons only with maps.remoteIcons on, never from a private address, within size limits', async () => {
    const c = createCanvas(40, 40)
    c.getContext('2d').fillStyle = '#ff6d00'
    c.getContext('2d').fillRect(0, 0, 40, 40)
    const png = c.toBuffer('image/png')
    const receiver = createServer((req, res) => {
      if (req.url === '/pin.png') res.end(png)
      else if (req.url === '/huge.png') res.end(Buffer.alloc(300 * 1024))
      else res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
    try {
      const q = (icon: string) => `width=200&height=200&center=43.7384,7.4246&zoom=15&markers=icon:${icon}|43.7384,7.4246`
      const off = await get(q(`${base}/pin.png`))
      expect(off.status).toBe(400)
      expect(off.json().meta).toMatchObject({param: 'markers', message: expect.stringMatching(/maps\.remoteIcons/)})
      await setSetting(server.system.store, false, 'maps.remoteIcons', true)
      const local = await get(q(`${base}/pin.png`))
      expect(local.status).toBe(400)
      expect(local.json().meta.message).toMatch(/private address/)
      // a deployment may allow its own network: the same icon is fetched, drawn bottom centre on the location
      const {createStaticMaps, parseStaticMap} = await import('../../src/maps/index.js')
      const maps = createStaticMaps(server.system.map, {stylesDir: 'config/styles', markersDir: dataDir, iconsFromAnyAddress: true})
      const input = (icon: string) => parseStaticMap(Object.fromEntries(new URLSearchParams(q(icon))))
      const drawn = await pixels((await maps.render(input(`${base}/pin.png`), undefined, {remoteIcons: true})).png)
      expect(near(drawn.at(100, 80), [255, 109, 0])).toBe(true)
      for (const [file, why] of [['missing.png', /answered 404/], ['huge.png', /larger than 256 KB/]] as const) {
        await expect(maps.render(input(`${base}/${file}`), undefined, {remoteIcons: true})).rejects.toThrow(why)
      }
      const redirect = createServer((_req, res) => res.writeHead(302, {location: `${base}/pin.png`}).end())
      await new Promise<void>((resolve) => redirect.listen(0, '127.0.0.1', resolve))
      await expect(maps.render(input(`http://127.0.0.1:${(redirect.address() as AddressInfo).port}/x.png`), undefined, {remoteIcons: true})).rejects.toThrow(/answered 302/)
      redirect.close()
    } finally {
      await setSetting(server.system.store, false, 'maps.remoteIcons', false)
      receiver.close()
    }
  })

  it('asks for the publishable key in the query: 401 without or with a bad one', async () => {
    const none = await fetch(`${server.url}/maps/static?width=200&height=200&center=43.7,7.4&zoom=12`)
    expect(none.status).toBe(401)
    const message = 'Unauthorized: the publishableKey query parameter must hold a valid, unrevoked API key.'
    expect((await none.json()).meta).toEqual({code: 401, error: 'unauthorized', message})
    const bad = await get('width=200&height=200&center=43.7,7.4&zoom=12&publishableKey=prj_test_pk_nope')
    expect(bad.status).toBe(401)
    expect(bad.json().meta.message).toBe(message)
    const rateLimited = await get('width=200&height=200&center=43.7,7.4&zoom=12')
    expect(rateLimited.headers.get('x-ratelimit-limit')).toBe('100000')
  })

  it('refuses every bad parameter with a 400 naming it', async () => {
    const base = {width: '200', height: '200', center: '43.73,7.42', zoom: '14'}
    const cases: [Record<string, string | undefined>, string][] = [
      [{width: undefined}, 'width'], [{width: '99'}, 'width'], [{width: '2049'}, 'width'], [{width: 'wide'}, 'width'], [{height: '0'}, 'height'],
      [{height: '1.5'}, 'height'], [{zoom: '0'}, 'zoom'], [{zoom: '24'}, 'zoom'], [{zoom: 'x'}, 'zoom'], [{center: '91,0'}, 'center'],
      [{center: '43.7'}, 'center'], [{center: undefined, zoom: undefined}, 'center'], [{scale: '4'}, 'scale'], [{scale: '0'}, 'scale'],
      [{style: 'nope'}, 'style'], [{style: '../secret'}, 'style'], [{language: 'english'}, 'language'], [{bbox: '1,2,3'}, 'bbox'],
      [{bbox: '44,7,43,8'}, 'bbox'], [{markers: 'color:0xZZ0000|43.7,7.4'}, 'markers'], [{markers: 'color:red'}, 'markers'],
      [{markers: 'size:huge|43.7,7.4'}, 'markers'], [{markers: 'shape:x|43.7,7.4'}, 'markers'], [{markers: 'icon:nope|43.7,7.4'}, 'markers'],
      [{markers: '43.7,700'}, 'markers'], [{path: 'stroke:0x00ff00'}, 'path'], [{path: 'width:-1|43.7,7.4|43.8,7.5'}, 'path'],
      [{path: 'borderwidth:abc|43.7,7.4|43.8,7.5'}, 'path'], [{path: 'enc:'}, 'path'], [{path: '43.7,7.4|nowhere'}, 'path'],
    ]
    for (const [change, param] of cases) {
      const q = new URLSearchParams()
      for (const [k, v] of Object.entries({...base, ...change})) if (v !== undefined) q.set(k, v)
      const res = await get(q.toString())
      expect(res.status, `${q}`).toBe(400)
      const body = res.json()
      expect(body.meta.param, `${q}`).toBe(param)
      expect(body.meta.message).toMatch(new RegExp(`^${param}: `))
    }
  })

  it('names the option of a bad path or marker style value in its message', async () => {
    const cases: [string, string, string][] = [
      ['path', 'width:99|43.7,7.4|43.8,7.5', 'path: width: pixels from 0 to 50'],
      ['path', 'borderwidth:21|43.7,7.4|43.8,7.5', 'path: borderwidth: pixels from 0 to 20'],
      ['path', 'borderWidth:-1|43.7,7.4|43.8,7.5', 'path: borderWidth: pixels from 0 to 20'],
      ['path', 'stroke:0xZZ0000|43.7,7.4|43.8,7.5', 'path: stroke: a colour as 0xRRGGBB'],
      ['path', 'color:nope|43.7,7.4|43.8,7.5', 'path: color: a colour as 0xRRGGBB'],
      ['path', 'border:#12345|43.7,7.4|43.8,7.5', 'path: border: a colour as 0xRRGGBB'],
      ['markers', 'color:0xZZ0000|43.7,7.4', 'markers: color: a colour as 0xRRGGBB'],
      ['markers', 'size:huge|43.7,7.4', 'markers: size: small or normal'],
    ]
    for (const [param, value, message] of cases) {
      const res = await get(`width=200&height=200&${param}=${encodeURIComponent(value)}`)
      expect(res.status, value).toBe(400)
      expect(res.json().meta.param, value).toBe(param)
      expect(res.json().meta.message.startsWith(message), `${value}: ${res.json().meta.message}`).toBe(true)
    }
  })

  it('refuses a malformed encoded polyline alike at either precision', async () => {
    // characters outside ? to ~, a value cut off, a latitude without its longitude, a point off the world
    for (const encoded of ['!!!', 'abc', '~~~', '_p~iF', '_p~iF ~ps|U', '_oov}D?']) {
      const messages = []
      for (const enc of ['enc', 'enc6']) {
        const res = await get(`width=200&height=200&path=${encodeURIComponent(`${enc}:${encoded}`)}`)
        expect(res.status, `${enc}:${encoded}`).toBe(400)
        expect(res.json().meta.param).toBe('path')
        messages.push(res.json().meta.message)
      }
      expect(messages).toEqual(['path: enc: an encoded polyline (precision 5) of valid locations', 'path: enc6: an encoded polyline (precision 6) of valid locations'])
    }
    for (const path of ['enc:_p~iF~ps|U_ulLnnqC', 'enc6:_izlhA~rlgdF_{geC~ywl@']) expect((await get(`width=200&height=200&path=${encodeURIComponent(path)}`)).status, path).toBe(200)
  })

  it('never fails with a 500 on seeded random bad values (fuzz)', async () => {
    let seed = 7
    const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647
    const junk = ['', '-', '0x', 'NaN', 'Infinity', '1e309', '||', 'enc6:', 'enc:@@@@', ',', '99999', '-5', 'color:', 'a'.repeat(300), '%00', '43.7,7.4|', '[]']
    const params = ['width', 'height', 'center', 'zoom', 'scale', 'style', 'language', 'bbox', 'markers', 'path']
    for (let i = 0; i < 60; i++) {
      const q = new URLSearchParams({width: '120', height: '120', center: '43.73,7.42', zoom: '13'})
      const p = params[Math.floor(rnd() * params.length)]
      q.set(p, junk[Math.floor(rnd() * junk.length)] + (rnd() < 0.3 ? junk[Math.floor(rnd() * junk.length)] : ''))
      const res = await get(q.toString())
      expect([200, 400], `${q}`).toContain(res.status)
      if (res.status === 400) expect(res.json().meta.param).toBe(p)
    }
  })

  // last: the import changes the map data every other test draws from
  it('draws a place once when two imported regions hold it (Monaco imported again under another name)', async () => {
    const q = 'width=300&height=200&center=43.7384,7.4246&zoom=15&style=service-dark-v1'
    const once = await get(q)
    await importOsm(MONACO, {dataDir, add: true, region: 'monaco-again'})
    // the server notices a new manifest within a second
    while (server.system.map.regions().length < 2) await new Promise((resolve) => setTimeout(resolve, 100))
    const twice = await get(q)
    // tunnels and boundaries are translucent: drawn twice they would come out darker
    expect(twice.bytes.equals(once.bytes)).toBe(true)
  })
})
