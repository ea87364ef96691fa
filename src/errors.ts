/**
 * The one catalogue of refusals, in the spirit of fastify's `lib/errors.js`: every way loc says no
 * has a stable code, documented in docs/errors.md (a test fails when one is not). Domains throw a
 * `Refusal`; the API turns it into `{meta: {code: <status>, error: <code>, param?, message}}` in one
 * place (src/api/errors.ts) and the CLI into a message and an exit code in another (src/cli/base.ts).
 * Nothing here knows HTTP beyond the status each code answers with.
 */
export const ERRORS = {
  invalid_parameter: {status: 400, summary: 'a parameter is not valid; `param` names it, the message says what is valid'},
  conflict: {status: 409, summary: 'a create would duplicate a unique identifier'},
  not_found: {status: 404, summary: 'no such resource in this environment'},
} as const

export type ErrorCode = keyof typeof ERRORS

/** A refusal: what was asked cannot be done, and why, in words a caller can act on. */
export class Refusal extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
  ) {
    super(message)
  }

  get status(): number {
    return ERRORS[this.code].status
  }
}

/** Builders: parameter messages always read `<param>: <statement of what is valid>`. */
export const refuse = {
  invalid: (param: string, statement: string) => new Refusal('invalid_parameter', `${param}: ${statement}`, param),
  conflict: (param: string, statement: string) => new Refusal('conflict', `${param}: ${statement}`, param),
  notFound: (resource: string) => new Refusal('not_found', `${resource} not found`),
}

export const isRefusal = (error: unknown): error is Refusal => error instanceof Refusal
