// Writes oclif.manifest.json after `tsc` (the `build` script): with it, oclif reads the command list
// from one file instead of importing every command on each start (`loc --version` 3.4 s -> see commit).
import {writeFileSync} from 'node:fs'
import {Config} from '@oclif/core'

const config = await Config.load({root: new URL('..', import.meta.url).pathname})
const root = config.getPluginsList().find((p) => p.isRoot)
writeFileSync(new URL('../oclif.manifest.json', import.meta.url), JSON.stringify(root.manifest))
console.log(`oclif.manifest.json: ${Object.keys(root.manifest.commands).length} commands`)
