import { describe, expect, it } from 'vitest'
import { isSignInReturn, restoreTarget } from './nav-memory'

// Issue 15, item 1: a URL the person opened wins over the remembered path.
describe('restoreTarget', () => {
  it('never moves a plain load, whatever it opened', () => {
    expect(restoreTarget('/templates/t-1', '/dashboard', false)).toBeNull()
    expect(restoreTarget('/', '/dashboard', false)).toBeNull()
  })

  it('never moves a sign-in return that landed on a deep link', () => {
    expect(restoreTarget('/templates/t-1', '/dashboard', true)).toBeNull()
  })

  it('restores the remembered path when a sign-in return lands on the site root', () => {
    expect(restoreTarget('/', '/dashboard/templates?tab=draft', true)).toBe('/dashboard/templates?tab=draft')
  })

  it('has nothing to restore without a memory, or when it is /auth or the root itself', () => {
    expect(restoreTarget('/', null, true)).toBeNull()
    expect(restoreTarget('/', '/auth?mode=sign-in', true)).toBeNull()
    expect(restoreTarget('/', '/', true)).toBeNull()
  })
})

describe('isSignInReturn', () => {
  it('recognises the tokens or code a sign-in return carries', () => {
    expect(isSignInReturn({ hash: '#access_token=abc&refresh_token=d', search: '' })).toBe(true)
    expect(isSignInReturn({ hash: '', search: '?code=xyz' })).toBe(true)
    expect(isSignInReturn({ hash: '', search: '' })).toBe(false)
    expect(isSignInReturn({ hash: '#main', search: '?category=code' })).toBe(false)
  })
})
