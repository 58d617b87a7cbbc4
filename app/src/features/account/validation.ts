// The account rules of spec section 5: usernames, display names and social
// links. Messages are the spec's where it gives them.
import { USERNAME_MAX_LENGTH, USERNAME_MIN_LENGTH } from './constants'

export const USERNAME_CHARACTERS_MESSAGE = 'Username can only contain lowercase letters, numbers, underscores, and hyphens'
export const USERNAME_LENGTH_MESSAGE = 'Username must be between 3 and 30 characters'
export const USERNAME_TAKEN_MESSAGE = 'This username is already taken. Please choose another.'
// The spec requires a non-empty display name without wording the refusal.
export const DISPLAY_NAME_EMPTY_MESSAGE = 'Display name cannot be empty'
// The spec makes social links URL fields; this is what a wrong one shows.
export const SOCIAL_LINK_INVALID_MESSAGE = 'Enter a full URL starting with http:// or https://'

/** The username field lowercases what is typed. */
export function normalizeUsername(input: string): string {
  return input.toLowerCase()
}

/** The first rule a username breaks (characters, then length), or null. */
export function usernameError(username: string): string | null {
  if (!/^[a-z0-9_-]*$/.test(username)) return USERNAME_CHARACTERS_MESSAGE
  if (username.length < USERNAME_MIN_LENGTH || username.length > USERNAME_MAX_LENGTH) return USERNAME_LENGTH_MESSAGE
  return null
}

export function displayNameError(name: string): string | null {
  return name.trim() ? null : DISPLAY_NAME_EMPTY_MESSAGE
}

/** An empty link is allowed (it removes the link); otherwise an http(s) URL. */
export function socialLinkError(value: string): string | null {
  const text = value.trim()
  if (!text) return null
  try {
    const url = new URL(text)
    return url.protocol === 'http:' || url.protocol === 'https:' ? null : SOCIAL_LINK_INVALID_MESSAGE
  } catch {
    return SOCIAL_LINK_INVALID_MESSAGE
  }
}
