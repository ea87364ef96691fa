import {z} from 'zod'

/**
 * zod's messages, restated as what is valid (`must be at most 3`): API errors print them after
 * `<param>: ` and the CLI after `<setting>: `. Imported for its effect by every module that validates.
 */
z.config({
  customError: (issue) => {
    switch (issue.code) {
      case 'invalid_type':
        if (issue.input === undefined) return 'required'
        return issue.expected === 'int' ? 'must be a whole number' : `must be ${article(issue.expected)}`
      case 'too_small':
        if (issue.origin === 'number') return issue.inclusive ? `must be at least ${issue.minimum}` : `must be greater than ${issue.minimum}`
        if (issue.origin === 'array' || issue.origin === 'set') return `must have at least ${issue.minimum} items`
        return `must be at least ${issue.minimum} characters`
      case 'too_big':
        if (issue.origin === 'number') return issue.inclusive ? `must be at most ${issue.maximum}` : `must be less than ${issue.maximum}`
        if (issue.origin === 'array' || issue.origin === 'set') return `must have at most ${issue.maximum} items`
        return `must be at most ${issue.maximum} characters`
      case 'invalid_value':
        return `must be one of ${issue.values.join(', ')}`
      case 'invalid_format':
        return `must be a valid ${issue.format}`
      case 'invalid_union':
        return 'must be one of the types the API reference lists for it'
      case 'unrecognized_keys':
        return `must not have the key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`
      default:
        return undefined
    }
  },
})

function article(word: string): string {
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`
}

