#!/usr/bin/env node
// `npm run bench -- NAME [args]` runs bench/NAME.js (after `npm run build`); without NAME it lists them.
import {readdirSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const dir = path.dirname(fileURLToPath(import.meta.url))
const names = readdirSync(dir).filter((f) => f.endsWith('.js') && !['run.js', 'harness.js', 'track-world.js'].includes(f)).map((f) => f.slice(0, -3))
const [name] = process.argv.slice(2)
if (!name || !names.includes(name)) {
  console.error(`usage: npm run bench -- NAME\navailable: ${names.join(', ')}`)
  process.exit(name ? 2 : 0)
}
process.argv.splice(2, 1)
await import(pathToFileURL(path.join(dir, `${name}.js`)).href)
