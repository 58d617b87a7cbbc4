// An authenticator app's code: six digits (spaces, as some apps group them, are dropped).
export const CODE_LENGTH = 6

export function normalizeCode(value: string): string {
  return value.replace(/\s+/g, '')
}

/** The message for a code that cannot be right, or null. */
export function codeError(value: string): string | null {
  const code = normalizeCode(value)
  if (!code) return 'Code is required'
  if (!new RegExp(`^\\d{${CODE_LENGTH}}$`).test(code)) return `Enter the ${CODE_LENGTH}-digit code from your authenticator app`
  return null
}

/** What an authenticator app is called on screen: its friendly name, else "Authenticator app". */
export function factorLabel(friendlyName: string | null | undefined): string {
  return friendlyName?.trim() || 'Authenticator app'
}
