// The sales screen's arithmetic: money, conversion, the chart's scale and the
// ranges a creator can pick. Pure functions, tested in model.test.ts.
import { LOCALE } from '@/config/constants'

/** The ranges of the revenue chart (the server's `range`), in the order shown. */
export const RANGES = [
  { value: '30d', label: '30 days' },
  { value: '90d', label: '90 days' },
  { value: '12m', label: '12 months' },
] as const
export type SalesRange = (typeof RANGES)[number]['value']

/** The range in the URL, `30d` when it is missing or unknown. */
export function parseRange(value: string | null): SalesRange {
  return RANGES.some((r) => r.value === value) ? (value as SalesRange) : '30d'
}

/** The order statuses a creator can filter on (the server's `status`). */
export const STATUSES = ['all', 'paid', 'free', 'pending', 'failed'] as const
export type OrderStatusFilter = (typeof STATUSES)[number]

export function parseStatus(value: string | null): OrderStatusFilter {
  return STATUSES.some((s) => s === value) ? (value as OrderStatusFilter) : 'all'
}

/** A page number from the URL: a whole number from 1, else 1. */
export function parsePage(value: string | null): number {
  const n = Number(value)
  return Number.isInteger(n) && n >= 1 && n <= 10_000 ? n : 1
}

const moneyFormats = new Map<string, Intl.NumberFormat>()

/** An amount in the currency's smallest unit (cents), e.g. `$12.50`. */
export function formatMoney(minor: number, currency: string): string {
  const code = (currency || 'usd').toUpperCase()
  let format = moneyFormats.get(code)
  if (!format) {
    try {
      format = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: code })
    } catch {
      format = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 2, maximumFractionDigits: 2 })
    }
    moneyFormats.set(code, format)
  }
  return format.format(minor / 100)
}

/** Downloads per view as a percentage with one decimal, `null` without views. */
export function conversionPercent(views: number, downloads: number): number | null {
  if (!Number.isFinite(views) || views <= 0) return null
  return Math.round((Math.max(0, downloads) / views) * 1000) / 10
}

/** `12.5%`, or an em dash when there were no views. */
export function formatConversion(views: number, downloads: number): string {
  const percent = conversionPercent(views, downloads)
  return percent === null ? '—' : `${percent.toFixed(1)}%`
}

/**
 * The top of the chart's axis for values up to `max`: 1, 2, 2.5 or 5 times
 * a power of ten, at least `max` (1 when everything is 0), so the axis has
 * round ticks and the tallest bar nearly fills the chart.
 */
export function niceMax(max: number): number {
  if (!Number.isFinite(max) || max <= 0) return 1
  const power = 10 ** Math.floor(Math.log10(max))
  for (const step of [1, 2, 2.5, 5, 10]) {
    if (step * power >= max) return step * power
  }
  return 10 * power
}

/** `count + 1` evenly spaced ticks from 0 to `top`. */
export function ticks(top: number, count = 4): number[] {
  return Array.from({ length: count + 1 }, (_, i) => (top * i) / count)
}

export interface Bar {
  x: number
  y: number
  width: number
  height: number
}

/**
 * The bars of `values` in a plot `width` x `height` (SVG units, y down),
 * scaled against `top`; a gap of a quarter of a slot between bars. A value
 * above 0 is at least 1 unit tall, so a small sale still shows.
 */
export function bars(values: number[], top: number, width: number, height: number): Bar[] {
  if (values.length === 0) return []
  const slot = width / values.length
  const barWidth = Math.max(1, slot * 0.75)
  return values.map((value, i) => {
    const scaled = top > 0 ? (Math.max(0, value) / top) * height : 0
    const h = value > 0 ? Math.max(1, Math.min(height, scaled)) : 0
    return { x: i * slot + (slot - barWidth) / 2, y: height - h, width: barWidth, height: h }
  })
}

const shortDay = new Intl.DateTimeFormat(LOCALE, { month: 'short', day: 'numeric', timeZone: 'UTC' })
const monthYear = new Intl.DateTimeFormat(LOCALE, { month: 'short', year: 'numeric', timeZone: 'UTC' })

/** A bucket's label: `Nov 3` for a day or a week (its Monday), `Nov 2026` for a month. */
export function bucketLabel(start: string, bucket: string): string {
  const date = new Date(`${start}T00:00:00Z`)
  if (Number.isNaN(date.getTime())) return start
  if (bucket === 'month') return monthYear.format(date)
  return bucket === 'week' ? `Week of ${shortDay.format(date)}` : shortDay.format(date)
}

/** The browser's time zone (the server counts days in it), UTC when unknown. */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
  } catch {
    return 'UTC'
  }
}
