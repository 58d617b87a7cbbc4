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
