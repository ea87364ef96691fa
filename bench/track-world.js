// bench/track's world, shared with bench/track-ab: geofences as circles (50-500 m) and 5-10-vertex
// polygons spread over a 50 x 50 km box around Monaco, and 10,000 moving devices in it.
export const DEVICES = 10_000
export const CENTER = [7.42, 43.735]
// 50 x 50 km: ±25 km
export const HALF_LAT = 25_000 / 111_195
export const HALF_LNG = HALF_LAT / Math.cos((CENTER[1] * Math.PI) / 180)
export const random = (min, max) => min + Math.random() * (max - min)
export const point = () => [CENTER[0] + random(-HALF_LNG, HALF_LNG), CENTER[1] + random(-HALF_LAT, HALF_LAT)]
export const fix = () => {
  const [lng, lat] = point()
  return {latitude: lat, longitude: lng, accuracy: Math.round(random(10, 100))}
}
// Moving devices: each fix is at most STEP_M metres from the device's last one (a car at ~10 m/s
// reporting every 3 s), as real devices report; BENCH_STEP_M=teleport puts every fix anywhere in
// the box, so each track leaves ~13 geofences and enters ~13 at 100k (the worst case).
export const STEP_M = process.env.BENCH_STEP_M ?? '30'
export const TELEPORT = STEP_M === 'teleport'
// BENCH_LOGGED_IN=1: every device tracks as a logged-in user (`userId` user-N), as apps that set
// one do; by default they are logged out (`deviceId` alone)
export const LOGGED_IN = process.env.BENCH_LOGGED_IN === '1'
export const positions = new Float64Array(DEVICES * 2).fill(NaN)
export function moveDevice(device) {
  let lng = positions[2 * device], lat = positions[2 * device + 1]
  if (TELEPORT || Number.isNaN(lng)) [lng, lat] = point()
  else {
    const step = random(0, Number(STEP_M)) / 111_195, angle = random(0, 2 * Math.PI)
    lat = Math.min(CENTER[1] + HALF_LAT, Math.max(CENTER[1] - HALF_LAT, lat + step * Math.sin(angle)))
    lng = Math.min(CENTER[0] + HALF_LNG, Math.max(CENTER[0] - HALF_LNG, lng + (step * Math.cos(angle)) / Math.cos((lat * Math.PI) / 180)))
  }
  positions[2 * device] = lng
  positions[2 * device + 1] = lat
  return {deviceId: `device-${device}`, ...(LOGGED_IN ? {userId: `user-${device}`} : {}), latitude: lat, longitude: lng, accuracy: Math.round(random(10, 100)), foreground: true}
}

export function geofence(i) {
  const [lng, lat] = point()
  if (i % 2) return {description: `Circle ${i}`, type: 'circle', coordinates: [lng, lat], radius: Math.round(random(50, 500))}
  const n = 5 + (i % 6)
  const r = random(50, 500) / 111_195
  const ring = Array.from({length: n}, (_, k) => {
    const a = (2 * Math.PI * k) / n + random(-0.2, 0.2)
    const rr = r * random(0.6, 1)
    return [Math.round((lng + (rr * Math.cos(a)) / Math.cos((lat * Math.PI) / 180)) * 1e6) / 1e6, Math.round((lat + rr * Math.sin(a)) * 1e6) / 1e6]
  })
  ring.push(ring[0])
  return {description: `Polygon ${i}`, type: 'polygon', coordinates: ring}
}

