import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'

/** Every module under src/, as a path relative to src/ with its import specifiers (relative ones resolved to src/). */
function modules(): Array<{file: string; imports: string[]}> {
  const files = readdirSync('src', {recursive: true, encoding: 'utf8'}).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  return files.map((file) => {
    const text = readFileSync(path.join('src', file), 'utf8')
    const imports = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => {
      const spec = m[1] ?? m[2]
      return spec.startsWith('.') ? path.posix.join(path.posix.dirname(file.split(path.sep).join('/')), spec) : spec
    })
    return {file: file.split(path.sep).join('/'), imports}
  })
}

const HTTP_LIBRARIES = ['node:http', 'express', 'body-parser', 'find-my-way', 'proxy-addr']
/** The modules that are HTTP plumbing: the server, the dispatcher, what handlers see, how JSON leaves, the middleware. */
const PLUMBING = /^api\/(app|server|router|request|send|body|guard)\.ts$|^api\/middleware\//
/** Express serves only what is not `/v1`. */
const EXPRESS = /^api\/(app\.ts|middleware\/errors\.ts)$/

describe('module boundaries', () => {
  const all = modules()

  it('finds the modules and their imports', () => {
    expect(all.find((m) => m.file === 'api/app.ts')?.imports).toContain('express')
    expect(all.find((m) => m.file === 'api/routes/users.ts')?.imports).toContain('users/store.js')
  })

  // system.ts is the composition root: it starts the HTTP server as it starts everything else
  it('only src/api, src/cli and the composition root import from src/api', () => {
    for (const {file, imports} of all) {
      if (/^(api|cli)\//.test(file) || file === 'system.ts') continue
      expect(imports.filter((i) => i.startsWith('api/')), file).toEqual([])
    }
  })

  it('no domain imports an HTTP library: domains never see a request', () => {
    for (const {file, imports} of all) {
      if (file.startsWith('api/')) continue
      expect(imports.filter((i) => HTTP_LIBRARIES.includes(i)), file).toEqual([])
    }
  })

  it('inside src/api, only the plumbing imports HTTP libraries, and only app.ts and middleware/errors.ts express', () => {
    for (const {file, imports} of all) {
      if (!file.startsWith('api/')) continue
      const http = imports.filter((i) => HTTP_LIBRARIES.includes(i))
      if (!PLUMBING.test(file)) expect(http, file).toEqual([])
      if (!EXPRESS.test(file)) expect(http.filter((i) => i === 'express'), file).toEqual([])
    }
  })
})
