// Cuts a small test extract: one boundary relation with its ways and their nodes, plus up to 40
// address nodes inside the relation's bounding box (how test/fixtures/osm/gozo-mt.osm.pbf was made).
// node bench/import/cut.js SOURCE.osm.pbf RELATION_ID OUT.osm.pbf   (after npm run build)
import {readPbf} from '../../dist/osm/pbf.js'
import {writePbf} from './synth.js'

const [source, relationId, target] = process.argv.slice(2)
const id = Number(relationId)
let relation
await readPbf(source, {node() {}, way() {}, relation: (rid, members, tags) => rid === id && (relation = {id: rid, members, tags})})
if (!relation) throw new Error(`no relation ${id} in ${source}`)
const wayIds = new Set(relation.members.filter((m) => m.type === 1).map((m) => m.ref))
const ways = []
await readPbf(source, {node() {}, relation() {}, way: (wid, refs, count, tags) => wayIds.has(wid) && ways.push({id: wid, refs: Array.from(refs.subarray(0, count)), tags})})
const nodeIds = new Set(ways.flatMap((w) => w.refs))
const nodes = [], coords = []
await readPbf(source, {way() {}, relation() {}, node: (nid, lon, lat, tags) => {
  if (nodeIds.has(nid)) nodes.push({id: nid, lon, lat, tags: {}}), coords.push([lon, lat])
  else if (tags?.['addr:housenumber'] && tags['addr:street']) nodes.push({id: nid, lon, lat, tags, address: true})
}})
const [minLon, maxLon] = [Math.min(...coords.map((c) => c[0])), Math.max(...coords.map((c) => c[0]))]
const [minLat, maxLat] = [Math.min(...coords.map((c) => c[1])), Math.max(...coords.map((c) => c[1]))]
const inside = nodes.filter((n) => n.address && n.lon >= minLon && n.lon <= maxLon && n.lat >= minLat && n.lat <= maxLat).slice(0, 40)
const kept = [...nodes.filter((n) => !n.address), ...inside].map(({address, ...n}) => n)
writePbf(target, {nodes: kept, ways, relations: [relation]})
console.log(`${target}: relation ${id}, ${ways.length} ways, ${kept.length - inside.length} boundary nodes, ${inside.length} addresses`)
