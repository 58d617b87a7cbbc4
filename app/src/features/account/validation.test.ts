import { describe, expect, it } from 'vitest'
import { displayNameError, normalizeUsername, socialLinkError, usernameError } from './validation'
import { relativeTime } from './relative-time'

describe('account rules', () => {
  it('checks usernames: characters first, then 3 to 30 characters', () => {
    expect(normalizeUsername('Maya_Chen-1')).toBe('maya_chen-1')
    expect(usernameError('maya_chen-1')).toBeNull()
    expect(usernameError('abc')).toBeNull()
    expect(usernameError('a'.repeat(30))).toBeNull()
    expect(usernameError('ab')).toBe('Username must be between 3 and 30 characters')
    expect(usernameError('a'.repeat(31))).toBe('Username must be between 3 and 30 characters')
    expect(usernameError('Maya')).toBe('Username can only contain lowercase letters, numbers, underscores, and hyphens')
    expect(usernameError('a b')).toBe('Username can only contain lowercase letters, numbers, underscores, and hyphens')
    expect(usernameError('maya.chen')).toBe('Username can only contain lowercase letters, numbers, underscores, and hyphens')
  })

  it('requires a display name and http(s) social links', () => {
    expect(displayNameError('  ')).toBe('Display name cannot be empty')
    expect(displayNameError(' Maya ')).toBeNull()
    expect(socialLinkError('')).toBeNull()
    expect(socialLinkError('https://x.com/maya')).toBeNull()
    expect(socialLinkError('javascript:alert(1)')).toBe('Enter a full URL starting with http:// or https://')
    expect(socialLinkError('x.com/maya')).toBe('Enter a full URL starting with http:// or https://')
  })

  it('words relative times', () => {
    const now = Date.parse('2024-06-10T12:00:00Z')
    expect(relativeTime('2024-06-10T11:59:30Z', now)).toBe('just now')
    expect(relativeTime('2024-06-10T11:55:00Z', now)).toBe('5 minutes ago')
    expect(relativeTime('2024-06-09T12:00:00Z', now)).toBe('yesterday')
    expect(relativeTime('2024-06-07T12:00:00Z', now)).toBe('3 days ago')
    expect(relativeTime('2024-04-10T12:00:00Z', now)).toBe('2 months ago')
    expect(relativeTime(null, now)).toBe('')
  })
})
