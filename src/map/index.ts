export {openMapData, type Engine, type MapData, type MapRegion, type RegionFiles} from './mapdata.js'
export {MANIFEST_VERSION, mapDir, manifestPath, mayHold, readManifest, regionFile, type Manifest, type RegionEntry} from './manifest.js'
export {BLOB_FORMAT, BLOB_MAGIC, readBlob, writeBlob, type MapBlob, type Sections} from './blob.js'
