/**
 * Schema of one region's map database (`data/map/<region>-<stamp>.db`). Written once by the import,
 * then only read. Geometries are GeoJSON geometry objects (text, 1e-7° precision) except road
 * edges, whose polylines are Int32 blobs of 1e-7° lon/lat pairs so routing can map them straight
 * into typed arrays. Every spatial table has an R*Tree `<table>_rtree(id, min_lon, max_lon,
 * min_lat, max_lat)` keyed by the table's id; text search uses external-content FTS5 tables.
 */
export const MAP_SCHEMA_VERSION = 1

export const MAP_SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE addresses (
  id INTEGER PRIMARY KEY,
  osm_type TEXT NOT NULL, osm_id INTEGER NOT NULL,
  housenumber TEXT NOT NULL, street TEXT, place TEXT, unit TEXT, city TEXT, postcode TEXT, state TEXT, country TEXT,
  lon REAL NOT NULL, lat REAL NOT NULL, building TEXT
);
CREATE VIRTUAL TABLE addresses_rtree USING rtree(id, min_lon, max_lon, min_lat, max_lat);
CREATE VIRTUAL TABLE addresses_fts USING fts5(housenumber, street, place, city, postcode, content='addresses', content_rowid='id', tokenize='unicode61 remove_diacritics 2');

CREATE TABLE interpolations (
  id INTEGER PRIMARY KEY, osm_id INTEGER NOT NULL,
  interpolation TEXT NOT NULL, street TEXT, city TEXT, postcode TEXT,
  geometry TEXT NOT NULL, start_number TEXT, end_number TEXT
);
CREATE VIRTUAL TABLE interpolations_rtree USING rtree(id, min_lon, max_lon, min_lat, max_lat);

CREATE TABLE streets (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL, class TEXT NOT NULL, way_count INTEGER NOT NULL, length_m REAL NOT NULL,
  lon REAL NOT NULL, lat REAL NOT NULL,
  geometry TEXT NOT NULL
);
CREATE VIRTUAL TABLE streets_rtree USING rtree(id, min_lon, max_lon, min_lat, max_lat);
CREATE VIRTUAL TABLE streets_fts USING fts5(name, content='streets', content_rowid='id', tokenize='unicode61 remove_diacritics 2');

CREATE TABLE places (
  id INTEGER PRIMARY KEY,
  osm_type TEXT NOT NULL, osm_id INTEGER NOT NULL,
  name TEXT NOT NULL, category TEXT NOT NULL, osm_tag TEXT NOT NULL,
  chain TEXT, chain_wikidata TEXT, iata TEXT,
  housenumber TEXT, street TEXT, city TEXT, postcode TEXT,
  tags TEXT NOT NULL,
  lon REAL NOT NULL, lat REAL NOT NULL,
  footprint TEXT
);
CREATE INDEX places_category ON places(category);
CREATE INDEX places_chain ON places(chain) WHERE chain IS NOT NULL;
CREATE VIRTUAL TABLE places_rtree USING rtree(id, min_lon, max_lon, min_lat, max_lat);
CREATE VIRTUAL TABLE places_fts USING fts5(name, chain, category, content='places', content_rowid='id', tokenize='unicode61 remove_diacritics 2');

CREATE TABLE admin_areas (
  id INTEGER PRIMARY KEY, osm_id INTEGER NOT NULL,
  kind TEXT NOT NULL,
  admin_level INTEGER, name TEXT, country_code TEXT, postcode TEXT,
  parent_id INTEGER,
  label_lon REAL NOT NULL, label_lat REAL NOT NULL,
  geometry TEXT NOT NULL, iso TEXT
);
CREATE INDEX admin_areas_kind ON admin_areas(kind, admin_level);
CREATE VIRTUAL TABLE admin_areas_rtree USING rtree(id, min_lon, max_lon, min_lat, max_lat);
CREATE VIRTUAL TABLE admin_areas_fts USING fts5(name, content='admin_areas', content_rowid='id', tokenize='unicode61 remove_diacritics 2');

CREATE TABLE graph_nodes (id INTEGER PRIMARY KEY, osm_id INTEGER NOT NULL, lon REAL NOT NULL, lat REAL NOT NULL);

-- car/truck/bike/foot: bit 1 = may travel source→target, bit 2 = target→source.
CREATE TABLE edges (
  id INTEGER PRIMARY KEY,
  source INTEGER NOT NULL, target INTEGER NOT NULL,
  way_id INTEGER NOT NULL,
  length_m REAL NOT NULL, class TEXT NOT NULL, name TEXT, ref TEXT, maxspeed INTEGER, oneway INTEGER NOT NULL,
  car INTEGER NOT NULL, truck INTEGER NOT NULL, bike INTEGER NOT NULL, foot INTEGER NOT NULL,
  toll INTEGER NOT NULL, ferry INTEGER NOT NULL, bridge INTEGER NOT NULL, tunnel INTEGER NOT NULL,
  geometry BLOB NOT NULL
);
CREATE INDEX edges_way ON edges(way_id);
CREATE VIRTUAL TABLE edges_rtree USING rtree(id, min_lon, max_lon, min_lat, max_lat);
CREATE INDEX graph_nodes_osm ON graph_nodes(osm_id);

-- Routing attributes per edge (src/osm/road-extra.ts): raw highway value, directional speed limits
-- (km/h), truck limits (metres, tonnes), hazmat=no, access=destination, motorroad=yes.
CREATE TABLE edge_attrs (
  id INTEGER PRIMARY KEY, highway TEXT, maxspeed_forward INTEGER, maxspeed_backward INTEGER,
  maxheight REAL, maxweight REAL, maxwidth REAL, maxlength REAL, no_hazmat INTEGER NOT NULL, destination INTEGER NOT NULL, motorroad INTEGER NOT NULL
);

-- from_edge/to_edge are the edges of from_way/to_way that touch the via node (null when unresolved).
-- With via ways (via_way: the first), via_edges lists the via edges in travel order from from_edge
-- to to_edge ("12,-13": edge 12 source→target, then 13 target→source; src/osm/roads.ts).
CREATE TABLE turn_restrictions (
  id INTEGER PRIMARY KEY, osm_id INTEGER NOT NULL,
  restriction TEXT NOT NULL, modes TEXT, except_modes TEXT,
  from_way INTEGER NOT NULL, via_node INTEGER, via_way INTEGER, to_way INTEGER NOT NULL,
  from_edge INTEGER, to_edge INTEGER, via_edges TEXT
);

-- One row per feature per zoom band; geometry simplified for the band's highest zoom. The R*Tree
-- is keyed by feature (one box for all its bands): R*Tree inserts are the import's largest cost.
CREATE TABLE layer_features (
  id INTEGER PRIMARY KEY,
  feature INTEGER NOT NULL,
  layer TEXT NOT NULL, class TEXT NOT NULL, name TEXT,
  minzoom INTEGER NOT NULL, maxzoom INTEGER NOT NULL,
  geometry TEXT NOT NULL
);
CREATE INDEX layer_features_feature ON layer_features(feature, minzoom);

-- Other names, JSON {"en": ..., "alt_name": ...}: name:<lang> of roads (kind 'way', ref = OSM way id; map labels); name:<lang> and
-- alt_name, old_name, official_name, short_name, loc_name of place labels ('label', ref = feature), admin areas ('area', ref =
-- admin_areas.id) and streets ('street', ref = streets.id: per key the value most of its ways give).
CREATE TABLE names (kind TEXT NOT NULL, ref INTEGER NOT NULL, names TEXT NOT NULL, PRIMARY KEY (kind, ref)) WITHOUT ROWID;
CREATE VIRTUAL TABLE layer_features_rtree USING rtree(id, min_lon, max_lon, min_lat, max_lat);
`

export const FTS_TABLES = ['addresses_fts', 'streets_fts', 'places_fts', 'admin_areas_fts']
