// Sign-in and sign-up: every field required, the e-mail must be an e-mail.
export interface AuthValues {
  email: string
  password: string
  displayName: string
}
export type AuthErrors = Partial<Record<keyof AuthValues, string>>

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export function validateAuth(values: AuthValues, mode: 'sign-in' | 'sign-up'): AuthErrors {
  const errors: AuthErrors = {}
  if (mode === 'sign-up' && !values.displayName.trim()) errors.displayName = 'Display name is required'
  if (!values.email.trim()) errors.email = 'Email is required'
  else if (!emailPattern.test(values.email.trim())) errors.email = 'Please enter a valid email address'
  if (!values.password) errors.password = 'Password is required'
  return errors
}

/** The six-digit code of an auth e-mail (spaces dropped): the message for one that cannot be right, or null. */
export function emailCodeError(value: string): string | null {
  const code = value.replace(/\s+/g, '')
  if (!code) return 'Code is required'
  if (!/^\d{6}$/.test(code)) return 'Enter the 6-digit code from the e-mail'
  return null
}

/** The e-mail of the forgot-password form: required, and an e-mail. */
export function emailError(value: string): string | null {
  if (!value.trim()) return 'Email is required'
  if (!emailPattern.test(value.trim())) return 'Please enter a valid email address'
  return null
}
