import {randomUUID} from 'node:crypto'
import type {RequestHandler} from 'express'

const SAFE_ID = /^[\w.:-]{1,128}$/

/** Every response carries `X-Request-Id`: the caller's own when it is sane, else a new one. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get('x-request-id')
  const id = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID()
  res.locals.requestId = id
  res.setHeader('X-Request-Id', id)
  next()
}
