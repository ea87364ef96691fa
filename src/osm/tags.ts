import type {Tags} from './pbf.js'

/**
 * OSM tag → loc model. Every rule the import applies to tags lives here so that docs/osm-import.md
 * and the code can be checked against each other in one place.
 */

// ---------------------------------------------------------------------------------------------
// Places (POIs)

/** Keys that make a named object a place, in priority order (the first present decides the category). */
export const POI_KEYS = ['amenity', 'shop', 'tourism', 'leisure', 'office', 'craft', 'healthcare', 'historic', 'aeroway', 'railway', 'public_transport'] as const

const CATEGORY_BY_TAG: Record<string, string> = {
  // food & drink
  'amenity=restaurant': 'food', 'amenity=fast_food': 'food', 'amenity=food_court': 'food', 'amenity=ice_cream': 'food',
  'amenity=cafe': 'cafe', 'amenity=bar': 'bar', 'amenity=pub': 'bar', 'amenity=biergarten': 'bar', 'amenity=nightclub': 'nightlife',
  // money
  'amenity=bank': 'finance', 'amenity=atm': 'finance', 'amenity=bureau_de_change': 'finance',
  // health
  'amenity=hospital': 'health', 'amenity=clinic': 'health', 'amenity=doctors': 'health', 'amenity=dentist': 'health',
  'amenity=pharmacy': 'pharmacy', 'amenity=veterinary': 'health',
  // transport
  'amenity=fuel': 'fuel', 'amenity=charging_station': 'ev_charging', 'amenity=parking': 'parking', 'amenity=bicycle_parking': 'parking',
  'amenity=bus_station': 'transit', 'amenity=ferry_terminal': 'transit', 'amenity=taxi': 'transit', 'amenity=car_rental': 'car_services',
  'amenity=bicycle_rental': 'transit', 'amenity=car_wash': 'car_services', 'railway=station': 'transit', 'railway=halt': 'transit',
  'public_transport=station': 'transit', 'aeroway=aerodrome': 'airport', 'aeroway=terminal': 'airport',
  // education & culture
  'amenity=school': 'education', 'amenity=university': 'education', 'amenity=college': 'education', 'amenity=kindergarten': 'education',
  'amenity=library': 'culture', 'amenity=theatre': 'culture', 'amenity=cinema': 'culture', 'amenity=arts_centre': 'culture',
  'amenity=casino': 'nightlife', 'amenity=community_centre': 'culture',
  // public services
  'amenity=police': 'government', 'amenity=fire_station': 'government', 'amenity=townhall': 'government', 'amenity=courthouse': 'government',
  'amenity=embassy': 'government', 'amenity=post_office': 'post', 'amenity=post_box': 'post', 'amenity=toilets': 'amenities',
  'amenity=drinking_water': 'amenities', 'amenity=place_of_worship': 'worship',
  // lodging & tourism
  'tourism=hotel': 'lodging', 'tourism=hostel': 'lodging', 'tourism=motel': 'lodging', 'tourism=guest_house': 'lodging',
  'tourism=apartment': 'lodging', 'tourism=camp_site': 'lodging', 'tourism=caravan_site': 'lodging', 'tourism=chalet': 'lodging',
  'tourism=museum': 'culture', 'tourism=gallery': 'culture', 'tourism=zoo': 'attraction', 'tourism=theme_park': 'attraction',
  'tourism=attraction': 'attraction', 'tourism=viewpoint': 'attraction', 'tourism=artwork': 'attraction', 'tourism=information': 'information',
  // leisure
  'leisure=park': 'park', 'leisure=garden': 'park', 'leisure=nature_reserve': 'park', 'leisure=playground': 'park',
  'leisure=sports_centre': 'sports', 'leisure=fitness_centre': 'sports', 'leisure=stadium': 'sports', 'leisure=pitch': 'sports',
  'leisure=swimming_pool': 'sports', 'leisure=golf_course': 'sports', 'leisure=marina': 'marina',
  // shops that deserve their own category
  'shop=supermarket': 'grocery', 'shop=convenience': 'grocery', 'shop=greengrocer': 'grocery', 'shop=bakery': 'grocery', 'shop=butcher': 'grocery',
  'shop=car': 'car_services', 'shop=car_repair': 'car_services', 'shop=hairdresser': 'personal_care', 'shop=beauty': 'personal_care',
}

/** Fallback per key when the exact key=value has no entry above. */
const CATEGORY_BY_KEY: Record<string, string> = {
  amenity: 'amenities', shop: 'shopping', tourism: 'attraction', leisure: 'leisure', office: 'office', craft: 'craft',
  healthcare: 'health', historic: 'historic',
}

/** Every category the import assigns, sorted (what `places.placeFilters` may name). */
export const PLACE_CATEGORIES: readonly string[] = [...new Set([...Object.values(CATEGORY_BY_TAG), ...Object.values(CATEGORY_BY_KEY)])].sort()

export interface PlaceClass {category: string; osmTag: string}

/** The category of a named (or branded) object, or null when it is not a place. `aeroway` counts only for aerodromes/terminals. */
export function placeClass(tags: Tags): PlaceClass | null {
  // an unnamed branded POI (a chain's fuel station, "brand=Shell") is a place named by its brand
  if (!tags.name && !tags.brand) return null
  for (const key of POI_KEYS) {
    const value = tags[key]
    if (!value || value === 'no') continue
    const osmTag = `${key}=${value}`
    const category = CATEGORY_BY_TAG[osmTag] ?? CATEGORY_BY_KEY[key]
    if (category) return {category, osmTag}
  }
  return null
}

// ---------------------------------------------------------------------------------------------
// Admin levels

export type AdminKind = 'country' | 'state' | 'county' | 'city' | 'borough' | 'neighborhood'

const DEFAULT_LEVELS: Record<number, AdminKind> = {2: 'country', 4: 'state', 6: 'county', 8: 'city', 9: 'borough', 10: 'neighborhood'}

/** Per-country exceptions (ISO 3166-1 alpha-2), after https://wiki.openstreetmap.org/wiki/Tag:boundary=administrative. */
const COUNTRY_LEVELS: Record<string, Record<number, AdminKind>> = {
  MC: {2: 'country', 8: 'city', 10: 'neighborhood'},
  FR: {2: 'country', 4: 'state', 6: 'county', 8: 'city', 9: 'borough', 10: 'neighborhood'},
  LI: {2: 'country', 6: 'county', 8: 'city'}, // level 6: the two Wahlkreise (Oberland, Unterland)
  AD: {2: 'country', 7: 'state', 8: 'city'}, // level 7: the seven parishes
  MT: {2: 'country', 4: 'state', 8: 'city'},
  US: {2: 'country', 4: 'state', 5: 'city', 6: 'county', 8: 'city', 9: 'borough', 10: 'neighborhood'}, // 5: New York City
  CA: {2: 'country', 4: 'state', 6: 'county', 8: 'city', 10: 'neighborhood'},
  DE: {2: 'country', 4: 'state', 6: 'county', 8: 'city', 9: 'borough', 10: 'neighborhood'},
  AT: {2: 'country', 4: 'state', 6: 'county', 8: 'city', 9: 'borough', 10: 'neighborhood'},
  CH: {2: 'country', 4: 'state', 6: 'county', 8: 'city', 10: 'neighborhood'},
  IT: {2: 'country', 4: 'state', 6: 'county', 8: 'city', 10: 'neighborhood'},
  PT: {2: 'country', 4: 'state', 6: 'county', 7: 'city', 8: 'borough', 10: 'neighborhood'},
  GB: {2: 'country', 4: 'state', 6: 'county', 8: 'city', 10: 'neighborhood'},
}

/** Kind for an admin level in a country; null for levels that have no place in the model (e.g. DE level 5). */
export function adminKind(level: number, country: string | null): AdminKind | null {
  const table = (country && COUNTRY_LEVELS[country]) || DEFAULT_LEVELS
  return table[level] ?? null
}

/** Country code an admin relation declares about itself, if any. */
export function ownCountryCode(tags: Tags): string | null {
  const code = tags['ISO3166-1:alpha2'] ?? tags['ISO3166-1'] ?? tags['country_code'] ?? tags['ISO3166-2']?.slice(0, 2) ?? tags['is_in:country_code']
  return code && /^[A-Za-z]{2}$/.test(code) ? code.toUpperCase() : null
}

// ---------------------------------------------------------------------------------------------
// Roads

/** Routable highway values and their class (the classes static maps and routing share). */
export const ROAD_CLASS: Record<string, string> = {
  motorway: 'motorway', motorway_link: 'motorway', trunk: 'trunk', trunk_link: 'trunk', primary: 'primary', primary_link: 'primary',
  secondary: 'secondary', secondary_link: 'secondary', tertiary: 'tertiary', tertiary_link: 'tertiary',
  unclassified: 'minor', residential: 'minor', living_street: 'minor', road: 'minor', service: 'service', track: 'track',
  pedestrian: 'path', footway: 'path', path: 'path', cycleway: 'path', bridleway: 'path', steps: 'path', corridor: 'path',
}

export const enum Dir {None = 0, Forward = 1, Backward = 2, Both = 3}

const CAR_CLASSES = new Set(['motorway', 'trunk', 'primary', 'secondary', 'tertiary', 'minor', 'service'])
const DENY = new Set(['no', 'private', 'agricultural', 'forestry', 'emergency', 'military', 'discouraged', 'use_sidepath'])

/**
 * The most specific of `keys` that is tagged decides; `def` if none is. The generic `access` (keys[0])
 * can only take access away: `access=yes` on steps does not let cars drive them.
 */
function allowed(tags: Tags, keys: string[], def: boolean): boolean {
  for (let i = keys.length - 1; i >= 0; i--) {
    const v = tags[keys[i]]
    if (v !== undefined) return i === 0 ? def && !DENY.has(v) : !DENY.has(v)
  }
  return def
}

export interface RoadAttrs {
  cls: string
  car: Dir; truck: Dir; bike: Dir; foot: Dir
  oneway: -1 | 0 | 1
  maxspeed: number | null
  toll: boolean; ferry: boolean; bridge: boolean; tunnel: boolean
}

/** Routing attributes of a way, or null when no mode may use it. `route=ferry` ways are edges too. */
export function roadAttrs(tags: Tags): RoadAttrs | null {
  const ferry = tags.route === 'ferry'
  const highway = tags.highway
  const cls = ferry ? 'ferry' : highway ? ROAD_CLASS[highway] : undefined
  if (!cls || tags.area === 'yes') return null
  const motorway = highway === 'motorway' || highway === 'motorway_link'
  const motorroad = tags.motorroad === 'yes'
  const carDefault = ferry ? tags.motorcar === 'yes' || tags.motor_vehicle === 'yes' : CAR_CLASSES.has(cls) || (highway === 'living_street')
  const car = allowed(tags, ['access', 'vehicle', 'motor_vehicle', 'motorcar'], carDefault)
  const truck = allowed(tags, ['access', 'vehicle', 'motor_vehicle', 'hgv'], carDefault && highway !== 'living_street')
  const bikeDefault = ferry || (!motorway && !motorroad && highway !== 'steps' && highway !== 'footway' && highway !== 'pedestrian' && highway !== 'corridor')
  const bike = allowed(tags, ['access', 'vehicle', 'bicycle'], bikeDefault)
  const foot = allowed(tags, ['access', 'foot'], ferry || (!motorway && !motorroad))

  const ow = tags.oneway
  let oneway: -1 | 0 | 1 = 0
  if (ow === '-1' || ow === 'reverse') oneway = -1
  else if (ow === 'yes' || ow === 'true' || ow === '1') oneway = 1
  else if (ow !== 'no' && (motorway || tags.junction === 'roundabout' || tags.junction === 'circular')) oneway = 1
  const vehicleDir = oneway === 1 ? Dir.Forward : oneway === -1 ? Dir.Backward : Dir.Both
  const bikeOneway = tags['oneway:bicycle'] === 'no' || tags.cycleway?.startsWith('opposite') ? Dir.Both : vehicleDir

  return {
    cls,
    car: car ? vehicleDir : Dir.None,
    truck: truck ? vehicleDir : Dir.None,
    bike: bike ? bikeOneway : Dir.None,
    foot: foot ? Dir.Both : Dir.None,
    oneway,
    maxspeed: parseMaxspeed(tags.maxspeed),
    toll: tags.toll === 'yes',
    ferry,
    bridge: tags.bridge !== undefined && tags.bridge !== 'no',
    tunnel: tags.tunnel !== undefined && tags.tunnel !== 'no',
  }
}

const IMPLICIT_SPEED: Record<string, number> = {urban: 50, rural: 90, motorway: 130, trunk: 100, living_street: 7, walk: 5, zone30: 30, zone20: 20}

/** km/h, or null when unknown or unlimited. Handles "50", "30 mph", "DE:urban", "walk". */
export function parseMaxspeed(v: string | undefined): number | null {
  if (!v) return null
  const m = /^(\d+(?:\.\d+)?)\s*(mph|km\/h|kmh)?$/.exec(v.trim())
  if (m) return Math.round(Number(m[1]) * (m[2] === 'mph' ? 1.609344 : 1))
  const implicit = IMPLICIT_SPEED[v.includes(':') ? v.split(':')[1] : v]
  return implicit ?? null
}

// ---------------------------------------------------------------------------------------------
// Map layers

export interface LayerClass {layer: 'water' | 'landuse' | 'park' | 'building' | 'road' | 'rail'; cls: string; area: boolean; minzoom: number}

const ROAD_MINZOOM: Record<string, number> = {motorway: 5, trunk: 6, primary: 8, secondary: 9, tertiary: 10, minor: 12, service: 14, track: 13, path: 14, ferry: 8}
const PARK = new Set(['park', 'garden', 'nature_reserve', 'golf_course', 'playground', 'recreation_ground', 'village_green', 'dog_park'])
const WATER_AREA = new Set(['water', 'bay', 'wetland'])
const LANDUSE_NATURAL = new Set(['wood', 'scrub', 'grassland', 'heath', 'beach', 'sand', 'bare_rock', 'scree', 'glacier'])

/** Static-map layer of a way or multipolygon; `closed` says whether the geometry is a ring. */
export function layerClass(tags: Tags, closed: boolean): LayerClass | null {
  const {natural, waterway, landuse, leisure, building, highway, railway} = tags
  if (natural === 'water' || waterway === 'riverbank' || landuse === 'reservoir' || landuse === 'basin' || (natural && WATER_AREA.has(natural) && closed)) {
    return closed ? {layer: 'water', cls: tags.water ?? natural ?? landuse ?? 'water', area: true, minzoom: 8} : null
  }
  if (waterway === 'river' || waterway === 'canal') return {layer: 'water', cls: waterway, area: false, minzoom: 8}
  if (waterway === 'stream' || waterway === 'ditch' || waterway === 'drain') return {layer: 'water', cls: waterway, area: false, minzoom: 13}
  if (natural === 'coastline') return {layer: 'water', cls: 'coastline', area: false, minzoom: 0}
  if (closed && (PARK.has(leisure ?? '') || PARK.has(landuse ?? '') || tags.boundary === 'national_park')) {
    return {layer: 'park', cls: leisure ?? landuse ?? 'national_park', area: true, minzoom: 10}
  }
  if (closed && building && building !== 'no') return {layer: 'building', cls: building, area: true, minzoom: 14}
  if (closed && (landuse || (natural && LANDUSE_NATURAL.has(natural)))) return {layer: 'landuse', cls: landuse ?? natural!, area: true, minzoom: 10}
  if (highway && tags.area !== 'yes') {
    const cls = ROAD_CLASS[highway]
    if (cls) return {layer: 'road', cls, area: false, minzoom: ROAD_MINZOOM[cls]}
  }
  if (tags.route === 'ferry') return {layer: 'road', cls: 'ferry', area: false, minzoom: ROAD_MINZOOM.ferry}
  if (railway === 'rail' || railway === 'light_rail' || railway === 'subway' || railway === 'tram' || railway === 'narrow_gauge') {
    return {layer: 'rail', cls: railway, area: false, minzoom: railway === 'rail' ? 8 : 12}
  }
  return null
}

/** Lowest zoom at which a place label shows. */
export const PLACE_LABEL_MINZOOM: Record<string, number> = {
  country: 0, state: 4, city: 6, town: 9, village: 11, suburb: 12, quarter: 13, neighbourhood: 14, hamlet: 13, locality: 15, island: 10, islet: 14,
}

/** Tags worth keeping on a place row (no metadata, no user names: those are never read from the file). */
export const PLACE_TAG_KEYS = ['website', 'phone', 'opening_hours', 'cuisine', 'wheelchair', 'operator', 'wikidata', 'stars', 'iata', 'icao', 'level',
  // names in the API's languages (geocoding `lang`) and the other names a place goes by
  'alt_name', 'old_name', 'official_name', 'short_name', 'loc_name', 'name:ar', 'name:de', 'name:en', 'name:es', 'name:fr', 'name:ja', 'name:ko', 'name:pt', 'name:ru', 'name:zh'] as const
