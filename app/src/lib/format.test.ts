import { describe, expect, it } from 'vitest'
import { count, formatPrice, formatRating, isFree, isUuid, templateCount } from './format'
import { safeRedirect } from './nav-memory'

describe('prices', () => {
  it('shows 0 as Free and other prices in US dollars', () => {
    expect(formatPrice(0)).toBe('Free')
    expect(formatPrice('0.00')).toBe('Free')
    expect(formatPrice(null)).toBe('Free')
    expect(formatPrice(12)).toBe('$12.00')
    expect(formatPrice('9.5')).toBe('$9.50')
    expect(formatPrice(1234.5)).toBe('$1,234.50')
    expect(isFree(0)).toBe(true)
    expect(isFree(4)).toBe(false)
  })
})

describe('wording', () => {
  it('counts with the noun in the singular for exactly one, else in the plural', () => {
    expect(count(1, 'view')).toBe('1 view')
    expect(count(0, 'view')).toBe('0 views')
    expect(count(2, 'view')).toBe('2 views')
    expect(count(1234, 'download')).toBe('1,234 downloads')
    expect(count(null, 'rating')).toBe('0 ratings')
    expect(count(undefined, 'rating')).toBe('0 ratings')
  })

  it('takes an explicit plural for irregular words', () => {
    expect(count(1, 'category', 'categories')).toBe('1 category')
    expect(count(3, 'category', 'categories')).toBe('3 categories')
    expect(count(2, 'person', 'people')).toBe('2 people')
  })

  it("says 'N template(s)' in the singular and plural", () => {
    expect(templateCount(1)).toBe('1 template')
    expect(templateCount(0)).toBe('0 templates')
    expect(templateCount(7)).toBe('7 templates')
  })
  it('shows ratings with one decimal', () => {
    expect(formatRating(4)).toBe('4.0')
    expect(formatRating('4.25')).toBe('4.3')
  })
  it('recognises user ids', () => {
    expect(isUuid('d0000000-0000-4000-8000-000000000001')).toBe(true)
    expect(isUuid('mayachen')).toBe(false)
  })
  it('follows only same-site redirects', () => {
    expect(safeRedirect('/upload')).toBe('/upload')
    expect(safeRedirect(null)).toBe('/')
    expect(safeRedirect('https://evil.example')).toBe('/')
    expect(safeRedirect('//evil.example')).toBe('/')
  })
})
