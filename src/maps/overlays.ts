import type {Ctx} from './base.js'
import type {MarkerGroup, PathInput} from './input.js'

/** Height of the default pin in pixels (its tip is the location); `small` draws it at 0.7. */
export const PIN_HEIGHT = 36
export const PIN_WIDTH = 24
const SMALL = 0.7

export function drawPaths(g: Ctx, paths: PathInput[], x: (lon: number) => number, y: (lat: number) => number): void {
  g.lineJoin = 'round'
  g.lineCap = 'round'
  for (const p of paths) {
    const trace = () => {
      g.beginPath()
      g.moveTo(x(p.points[0]), y(p.points[1]))
      for (let i = 2; i < p.points.length; i += 2) g.lineTo(x(p.points[i]), y(p.points[i + 1]))
      if (p.points.length === 2) g.lineTo(x(p.points[0]) + 0.01, y(p.points[1]))
    }
    if (p.borderWidth > 0) {
      trace()
      g.strokeStyle = p.border
      g.lineWidth = p.width + 2 * p.borderWidth
      g.stroke()
    }
    if (p.width > 0) {
      trace()
      g.strokeStyle = p.stroke
      g.lineWidth = p.width
      g.stroke()
    }
  }
}

/** The default marker: a pin in the marker's colour with a white dot, its tip on the location. */
export function drawMarkers(g: Ctx, groups: MarkerGroup[], x: (lon: number) => number, y: (lat: number) => number): void {
  // southern markers last, so nearer pins overlap farther ones as on a map seen from the south
  const pins: {px: number; py: number; color: string; k: number}[] = []
  for (const m of groups) for (let i = 0; i < m.points.length; i += 2) pins.push({px: x(m.points[i]), py: y(m.points[i + 1]), color: m.color, k: m.size === 'small' ? SMALL : 1})
  pins.sort((a, b) => a.py - b.py)
  for (const {px, py, color, k} of pins) {
    g.save()
    g.translate(px, py)
    g.scale(k, k)
    g.fillStyle = 'rgba(0,0,0,0.25)'
    g.beginPath()
    g.ellipse(0, 0, 6, 2.5, 0, 0, Math.PI * 2)
    g.fill()
    const r = PIN_WIDTH / 2, cy = -(PIN_HEIGHT - r)
    g.beginPath()
    g.moveTo(0, 0)
    g.bezierCurveTo(-2, -6, -r, -14, -r, cy)
    g.arc(0, cy, r, Math.PI, 0)
    g.bezierCurveTo(r, -14, 2, -6, 0, 0)
    g.closePath()
    g.fillStyle = color
    g.fill()
    g.strokeStyle = 'rgba(0,0,0,0.35)'
    g.lineWidth = 1
    g.stroke()
    g.beginPath()
    g.arc(0, cy, r * 0.38, 0, Math.PI * 2)
    g.fillStyle = '#ffffff'
    g.fill()
    g.restore()
  }
}
