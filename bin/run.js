#!/usr/bin/env node
import {Config, flush, handle, run} from '@oclif/core'

const config = await Config.load(import.meta.url)
try {
  await run(process.argv.slice(2), config)
  await flush()
} catch (error) {
  // what fails before a command runs (an unknown command) is reported as a command's failure is
  const {report} = await import('../dist/cli/failure.js')
  await handle(report(error, config))
}
