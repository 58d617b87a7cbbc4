// A new password, as the auth server checks it: at least
// GOTRUE_PASSWORD_MIN_LENGTH characters (6 unless the operator set more; the
// server's own weak-password message is shown when it asks for more), and
// the confirmation must match. Used by the reset screen and Settings.
export const MIN_PASSWORD_LENGTH = 6

export interface NewPasswordValues {
  password: string
  confirm: string
}
export type NewPasswordErrors = Partial<Record<keyof NewPasswordValues, string>>

export function validateNewPassword(values: NewPasswordValues): NewPasswordErrors {
  const errors: NewPasswordErrors = {}
  if (!values.password) errors.password = 'Password is required'
  else if (values.password.length < MIN_PASSWORD_LENGTH)
    errors.password = `Password should be at least ${MIN_PASSWORD_LENGTH} characters.`
  if (!values.confirm) errors.confirm = 'Please confirm the new password'
  else if (values.password && values.confirm !== values.password) errors.confirm = 'The passwords do not match'
  return errors
}

/** The auth server's error code (auth-js puts the body's `error_code` in `code`), or ''. */
export function authErrorCode(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error) {
    const code = (error as { code: unknown }).code
    if (typeof code === 'string') return code
  }
  return ''
}

/** Whether the server refused a change because the session must first pass its second factor. */
export function needsSecondFactor(error: unknown): boolean {
  return authErrorCode(error) === 'insufficient_aal'
}
