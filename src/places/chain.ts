import type {MapData} from '../map/index.js'

/** A place's chain as the API shows it (before the project's `externalId` and `metadata`). */
export interface Chain {
  name: string
  slug: string
}

/** What of a `places` row names its chain: the `brand` tag and its `brand:wikidata`. */
export interface ChainColumns {
  chain: string | null
  chain_wikidata: string | null
}

/** A row's chain; null without a brand, or with one whose name has no ASCII letter or digit to slug. */
export type ChainOf = (row: ChainColumns) => Chain | null

/** A chain's slug: its name in kebab case, ASCII ("McDonald's" → "mcdonalds", "Crédit Agricole" → "credit-agricole"). */
export const chainSlug = (name: string) =>
  name.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/['’`]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')

/** Brand names per `brand:wikidata` with how many places carry each (one region), for one chain per brand. */
class ChainNames {
  readonly byWikidata = new Map<string, Map<string, number>>()
  constructor(rows: [string, string, number][]) {
    for (const [q, name, n] of rows) {
      const names = this.byWikidata.get(q) ?? new Map<string, number>()
      names.set(name, n)
      this.byWikidata.set(q, names)
    }
  }
  close(): void {}
}

const chainNames = (map: MapData, region: string) =>
  map.engine(region, 'chain-names', ({db}) =>
    new ChainNames(db.prepare('SELECT chain_wikidata, chain, count(*) FROM places WHERE chain_wikidata IS NOT NULL AND chain IS NOT NULL GROUP BY 1, 2').raw().all() as [string, string, number][]))

/**
 * One chain per brand (`brand:wikidata`): its name is the brand string most of its places carry in
 * every region ("Citibank" over "Citi" and "CitiBank"), ties to the first in string order; a
 * brand without a wikidata id is its own name. Answers are kept for the resolver's life.
 */
function newResolver(map: MapData): ChainOf {
  let regions: ChainNames[] | undefined
  const byWikidata = new Map<string, Chain>()
  const byName = new Map<string, Chain>()
  return (row) => {
    if (!row.chain) return null
    if (!row.chain_wikidata) {
      let chain = byName.get(row.chain)
      if (!chain) byName.set(row.chain, (chain = {name: row.chain, slug: chainSlug(row.chain)}))
      return chain.slug ? chain : null
    }
    let chain = byWikidata.get(row.chain_wikidata)
    if (!chain) {
      // every region's brand names, read once per resolver and only once a branded place needs them
      regions ??= map.regions().map((r) => chainNames(map, r.name)).filter((c) => !!c)
      const counts = new Map<string, number>()
      for (const r of regions) for (const [name, n] of r.byWikidata.get(row.chain_wikidata) ?? []) counts.set(name, (counts.get(name) ?? 0) + n)
      let best = row.chain, most = 0
      for (const [name, n] of counts) if (n > most || (n === most && name < best)) [best, most] = [name, n]
      byWikidata.set(row.chain_wikidata, (chain = {name: best, slug: chainSlug(best)}))
    }
    return chain.slug ? chain : null
  }
}

const resolvers = new WeakMap<MapData, {generation: number; chainOf: ChainOf}>()

/**
 * The chain rule of every Place loc shows (search, place events, `user.place`, `verifiedPlace`,
 * `topChains`, `placeFilters`): one resolver per map, kept until the map picks up a new manifest
 * (an import added, replaced or removed a region: `map.generation`), so a track never reads the
 * regions' brand names again.
 */
export function chainResolver(map: MapData): ChainOf {
  const generation = map.generation
  let kept = resolvers.get(map)
  if (kept?.generation !== generation) resolvers.set(map, (kept = {generation, chainOf: newResolver(map)}))
  return kept.chainOf
}
