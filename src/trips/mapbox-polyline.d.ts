/** @mapbox/polyline ships no types; these are the two calls loc uses. Points are `[lat, lng]`. */
declare module '@mapbox/polyline' {
  const polyline: {
    encode(points: Array<[number, number]>, precision?: number): string
    decode(text: string, precision?: number): Array<[number, number]>
  }
  export default polyline
}
