import {connect} from 'node:net'
import {describe, expect, it} from 'vitest'
import {startTestServer} from '../helpers.js'

describe('graceful shutdown', () => {
  it('finishes a request in flight, then refuses new connections', async () => {
    const s = await startTestServer()
    const {port} = new URL(s.url)
    const body = JSON.stringify({chainMappings: {slow: 'yes'}})
    const socket = connect(Number(port), '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    let response = ''
    socket.on('data', (chunk) => (response += chunk))
    const ended = new Promise((resolve) => socket.once('end', resolve))
    // headers now, body later: the request is in flight when shutdown starts
    socket.write(`PATCH /v1/settings HTTP/1.1\r\nHost: x\r\nAuthorization: ${s.keys.testSk}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`)
    await new Promise((resolve) => setTimeout(resolve, 100))
    let closed = false
    const closing = s.close().then(() => (closed = true))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(closed).toBe(false)
    await expect(fetch(`${s.url}/health`)).rejects.toThrow()
    socket.write(body)
    await closing
    await ended
    expect(response).toMatch(/^HTTP\/1\.1 200/)
    expect(response).toContain('"slow":"yes"')
    await s.stop()
  })
})
