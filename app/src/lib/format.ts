import { LOCALE } from '@/config/constants'

const currency = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: 'USD' })
const integer = new Intl.NumberFormat(LOCALE)
const compact = new Intl.NumberFormat(LOCALE, { notation: 'compact', maximumFractionDigits: 1 })
const date = new Intl.DateTimeFormat(LOCALE, { year: 'numeric', month: 'short', day: 'numeric' })

/** Prices are dollars; 0 (or nothing) is Free. */
export function formatPrice(price: number | string | null | undefined): string {
  const value = Number(price ?? 0)
  if (!Number.isFinite(value) || value <= 0) return 'Free'
  return currency.format(value)
}

export function isFree(price: number | string | null | undefined): boolean {
  return formatPrice(price) === 'Free'
}

export function formatCount(n: number | null | undefined): string {
  return integer.format(n ?? 0)
}

export function formatCompact(n: number | null | undefined): string {
  return compact.format(n ?? 0)
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return ''
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? '' : date.format(d)
}

/** One decimal, as ratings are shown. */
export function formatRating(n: number | string | null | undefined): string {
  return Number(n ?? 0).toFixed(1)
}

/**
 * A count with its noun, in the singular for exactly one: count(1, 'view') is
 * '1 view', count(1234, 'view') '1,234 views'. The plural is the noun + 's'
 * unless given (count(2, 'category', 'categories')). Every count the app
 * prints with a noun goes through here.
 */
export function count(n: number | null | undefined, singular: string, plural: string = `${singular}s`): string {
  const value = n ?? 0
  return `${formatCount(value)} ${value === 1 ? singular : plural}`
}

/** 'N template(s)' as the spec words it. */
export function templateCount(n: number): string {
  return count(n, 'template')
}

export function cn(...parts: Array<string | false | null | undefined>): string {
  return parts.filter(Boolean).join(' ')
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export function isUuid(value: string): boolean {
  return uuidPattern.test(value)
}
