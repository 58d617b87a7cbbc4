// Light format checks of the simulated card form (the spec shows none; these
// texts are ours). The simulated provider ignores card data altogether: the
// checks only catch typing slips, as a real card form would.

/** Digits only, in groups of four, at most 19 digits. */
export function formatCardNumber(value: string): string {
  const digits = value.replace(/\D/g, '').slice(0, 19)
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ')
}

/** MM/YY as it is typed: the slash comes after the month. */
export function formatExpiry(value: string): string {
  const digits = value.replace(/\D/g, '').slice(0, 4)
  return digits.length > 2 ? `${digits.slice(0, 2)}/${digits.slice(2)}` : digits
}

export function cardNumberError(value: string): string | null {
  const digits = value.replace(/[\s-]/g, '')
  return /^\d{12,19}$/.test(digits) ? null : 'Enter a valid card number.'
}

export function expiryError(value: string, now: Date = new Date()): string | null {
  const match = /^(\d{2})\s*\/\s*(\d{2})$/.exec(value.trim())
  const month = match ? Number(match[1]) : 0
  if (!match || month < 1 || month > 12) return 'Enter the expiry date as MM/YY.'
  const year = 2000 + Number(match[2])
  const current = now.getFullYear() * 12 + now.getMonth()
  if (year * 12 + (month - 1) < current) return 'This card has expired.'
  return null
}

export function cvcError(value: string): string | null {
  return /^\d{3,4}$/.test(value.trim()) ? null : 'Enter a valid CVC.'
}
