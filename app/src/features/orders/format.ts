import { LOCALE } from '@/config/constants'

/** An amount in the currency's smallest unit (cents), e.g. 1900 usd -> $19.00. */
export function formatAmount(amount: number, currency = 'usd'): string {
  try {
    return new Intl.NumberFormat(LOCALE, { style: 'currency', currency: currency.toUpperCase() }).format(amount / 100)
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`
  }
}

/** The secure download page of an order: where a paid checkout ends. */
export function secureDownloadPath(orderId: string, token: string): string {
  return `/download-secure/${encodeURIComponent(orderId)}?token=${encodeURIComponent(token)}`
}
