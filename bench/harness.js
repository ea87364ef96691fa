// The small harness every benchmark shares: load generation, memory sampling, and printing figures beside targets.
import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {Session} from 'node:inspector/promises'
import os from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'

/** wrk (C, Debian package) when installed: it outruns any server here, so it measures the server, not itself; else autocannon. */
export const generator = spawnSync('wrk', ['--version']).error ? 'autocannon' : 'wrk'

/**
 * Runs autocannon against one request for `seconds`; returns req/s and latency percentiles (ms).
 * `latencies`: an array each response's time (ms) is pushed to, for percentiles over several runs.
 */
export async function load({url, method = 'GET', headers = {}, body, connections = 32, seconds = 5, requests, paths, latencies}) {
  if (generator === 'wrk' && method === 'GET' && !requests && !latencies) return wrk({url, headers, connections, seconds, paths})
  if (paths) requests = paths.map((p) => ({method, path: p}))
  const run = autocannon({url, method, headers, body, connections, duration: seconds, pipelining: 1, requests})
  if (latencies) run.on('response', (client, status, bytes, ms) => latencies.push(ms))
  const result = await run
  if (result.errors || result.non2xx) {
    throw new Error(`${method} ${url}: ${result.errors} errors, ${result.non2xx} non-2xx responses`)
  }
  return {rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, total: result.requests.total, bytes: result.throughput.total}
}

/**
 * CPU time (µs) process `pid` and its child processes (the workers of `serve --workers`) have used
 * so far: their main threads (JS, and SQLite, which runs on them) and all their other threads
 * together (worker threads such as the checkpointer, V8's GC helpers, libuv's pool). Linux /proc,
 * in clock ticks of 10 ms; {main: 0, others: 0} elsewhere.
 */
export function threadCpu(pid, cpu = {main: 0, others: 0}) {
  let tids = []
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return cpu
  }
  for (const tid of tids) {
    let stat
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    } catch {
      continue // the thread ended between the listing and the read
    }
    // fields after the parenthesised name: state is the 3rd field, utime the 14th, stime the 15th
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const us = (Number(fields[11]) + Number(fields[12])) * 10_000
    cpu[tid === String(pid) ? 'main' : 'others'] += us
    for (const child of childrenOf(pid, tid)) threadCpu(child, cpu)
  }
  return cpu
}

/** The processes thread `tid` of `pid` started (a cluster primary's workers); none once it ended. */
function childrenOf(pid, tid) {
  try {
    return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean)
  } catch {
    return []
  }
}

/** Samples RSS every 50 ms; `stop()` returns the peak in MB. */
export function peakRss() {
  let peak = process.memoryUsage.rss()
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, 50)
  return {
    stop() {
      clearInterval(timer)
      return Math.round(Math.max(peak, process.memoryUsage.rss()) / 1024 / 1024)
    },
  }
}

export function percentile(sortedMs, p) {
  if (sortedMs.length === 0) return NaN
  return sortedMs[Math.min(sortedMs.length - 1, Math.floor((p / 100) * sortedMs.length))]
}

/** Prints a table of rows `{name, value, unit, target?, ok?}`. */
export function report(title, rows) {
  console.log(`\n${title}`)
  for (const row of rows) {
    const value = typeof row.value === 'number' ? row.value.toLocaleString('en-US', {maximumFractionDigits: 2}) : row.value
    const verdict = row.ok === undefined ? '' : row.ok ? '  ✓' : '  ✗ below target'
    console.log(`  ${row.name.padEnd(34)} ${String(value).padStart(12)} ${(row.unit ?? '').padEnd(6)} ${row.target ? `target ${row.target}` : ''}${verdict}`)
  }
}

/** `paths`: GET these in turn (a Lua script), so a benchmark measures many queries, not one repeated. */
function wrk({url, headers, connections, seconds, paths}) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency']
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`)
  let script
  if (paths) {
    script = path.join(mkdtempSync(path.join(os.tmpdir(), 'loc-wrk-')), 'paths.lua')
    writeFileSync(script, `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format(nil, paths[i])\nend\n`)
    args.push('-s', script)
  }
  const out = execFileSync('wrk', [...args, url], {encoding: 'utf8'})
  if (script) rmSync(path.dirname(script), {recursive: true, force: true})
  const ms = (label) => {
    const m = new RegExp(`${label}%\\s+([\\d.]+)(us|ms|s)`).exec(out)
    if (!m) return NaN
    // rounded to the microsecond: 59us * 0.001 would print as 0.059000000000000004
    return Math.round(Number(m[1]) * (m[2] === 'us' ? 1 : m[2] === 's' ? 1e6 : 1000)) / 1000
  }
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out)
  if (non2xx) throw new Error(`GET ${url}: ${non2xx[1]} non-2xx responses`)
  return {rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]), p50: ms('50'), p99: ms('99'), total: Number(/(\d+) requests in/.exec(out)[1])}
}

/**
 * Before/after in one run. With `BENCH_BASELINE=<git revision>`, a benchmark also runs its server role
 * from that revision: checked out once into a temporary worktree (node_modules linked, built with
 * tsc) and measured in the same run, with the same load, beside the current build. Returns the
 * server scripts to measure: always the current one, then the baseline's when asked for.
 */
export function serverScripts(benchFile) {
  const scripts = [{label: 'now', script: benchFile}]
  const rev = process.env.BENCH_BASELINE
  if (!rev) return scripts
  const root = path.resolve(path.dirname(benchFile), '..')
  const sha = execFileSync('git', ['rev-parse', '--short', rev], {cwd: root, encoding: 'utf8'}).trim()
  const dir = path.join(os.tmpdir(), `loc-bench-baseline-${sha}`)
  if (!existsSync(path.join(dir, 'dist'))) {
    rmSync(dir, {recursive: true, force: true})
    execFileSync('git', ['worktree', 'add', '--force', '--detach', dir, sha], {cwd: root, stdio: 'ignore'})
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'))
    execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], {cwd: dir, stdio: 'inherit'})
  }
  scripts.push({label: `baseline ${sha}`, script: path.join(dir, 'bench', path.basename(benchFile))})
  return scripts
}

/**
 * A benchmark's server child: when the parent asks, send it `farewell()` (the child's last figures),
 * then stop serving, close the system, remove the data dir and exit.
 */
export function stopWhenAsked({serving, system, dataDir, farewell = () => ({})}) {
  process.on('message', async (message) => {
    if (message !== 'stop' && message !== 'done') return
    process.send(await farewell())
    await serving.stop()
    await system.close()
    if (dataDir) rmSync(dataDir, {recursive: true, force: true})
    process.exit(0)
  })
}

/**
 * BENCH_PROFILE=dir: starts a CPU profile of this process and returns the function that stops it
 * and writes dir/NAME.cpuprofile, so a profile holds the measured work alone (seeding and warm-up
 * left out, which --cpu-prof cannot do). Without BENCH_PROFILE both do nothing.
 */
export async function profile(name) {
  const dir = process.env.BENCH_PROFILE
  if (!dir) return async () => {}
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
  return async () => {
    const {profile} = await session.post('Profiler.stop')
    session.disconnect()
    mkdirSync(dir, {recursive: true})
    writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile))
  }
}
