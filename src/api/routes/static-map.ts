import {parseStaticMap} from '../../maps/index.js'
import {getSettings} from '../../project/settings.js'
import {queryKey} from '../middleware/auth.js'
import type {Api} from '../router.js'

/** `GET /maps/static`: a PNG (the key in `publishableKey`), with ETag/304 and Cache-Control. */
export function staticMapRoutes(api: Api): void {
  const {staticMaps} = api.ctx
  api.route('get', '/maps/static', {auth: 'P', limit: 'staticMaps', root: true, key: queryKey('publishableKey')}, async (req, res) => {
    const {publishableKey: _, ...query} = req.query
    // a repeat is answered from the finished image without parsing its query again
    const {png, etag, view} =
      staticMaps.cached(query) ?? (await staticMaps.render(parseStaticMap(query), query, {remoteIcons: getSettings(api.ctx.store, req.auth.live)['maps.remoteIcons']}))
    res.setHeader('ETag', etag)
    res.setHeader('Cache-Control', 'public, max-age=3600')
    // the view shown, also when fitted to markers and paths (lets a client place its own overlays)
    res.setHeader('X-Map-Center', `${round6(view.lat)},${round6(view.lon)}`)
    res.setHeader('X-Map-Zoom', String(view.zoom))
    if (req.headers['if-none-match'] === etag) {
      res.statusCode = 304
      res.end()
      return undefined
    }
    res.statusCode = 200
    res.setHeader('Content-Type', 'image/png')
    res.setHeader('Content-Length', png.length)
    res.end(png)
    return undefined
  })
}

const round6 = (v: number) => Math.round(v * 1e6) / 1e6
