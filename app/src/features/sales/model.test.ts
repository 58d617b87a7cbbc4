import { describe, expect, it } from 'vitest'
import { bars, bucketLabel, conversionPercent, formatConversion, formatMoney, niceMax, parsePage, parseRange, parseStatus, ticks } from './model'

describe('the revenue chart scale', () => {
  it('rounds the axis up to 1, 2, 2.5 or 5 times a power of ten', () => {
    expect(niceMax(0)).toBe(1)
    expect(niceMax(-5)).toBe(1)
    expect(niceMax(Number.NaN)).toBe(1)
    expect(niceMax(1)).toBe(1)
    expect(niceMax(7)).toBe(10)
    expect(niceMax(1200)).toBe(2000)
    expect(niceMax(2100)).toBe(2500)
    expect(niceMax(2500)).toBe(2500)
    expect(niceMax(2501)).toBe(5000)
    expect(niceMax(9900)).toBe(10000)
    expect(niceMax(10001)).toBe(20000)
  })

  it('puts evenly spaced ticks from 0 to the top', () => {
    expect(ticks(2000)).toEqual([0, 500, 1000, 1500, 2000])
    expect(ticks(10, 2)).toEqual([0, 5, 10])
  })

  it('scales bars to the plot: the top value fills it, zero is flat, a tiny sale still shows', () => {
    const shapes = bars([2000, 1000, 0, 1], 2000, 400, 200)
    expect(shapes).toHaveLength(4)
    // Four slots of 100 units, bars of 75 centred in them.
    expect(shapes.map((b) => b.x)).toEqual([12.5, 112.5, 212.5, 312.5])
    expect(shapes.every((b) => b.width === 75)).toBe(true)
    expect(shapes[0]).toMatchObject({ y: 0, height: 200 })
    expect(shapes[1]).toMatchObject({ y: 100, height: 100 })
    expect(shapes[2]).toMatchObject({ y: 200, height: 0 })
    expect(shapes[3].height).toBe(1)
    // Nothing is drawn past the plot, even for a value above the top.
    expect(bars([5000], 2000, 100, 50)[0]).toMatchObject({ y: 0, height: 50 })
    expect(bars([], 1, 100, 50)).toEqual([])
  })
})

describe('figures', () => {
  it('formats cents in their currency', () => {
    expect(formatMoney(123456, 'usd')).toBe('$1,234.56')
    expect(formatMoney(0, 'usd')).toBe('$0.00')
    expect(formatMoney(250, 'eur')).toBe('€2.50')
  })

  it('converts views to downloads as a percentage with one decimal', () => {
    expect(conversionPercent(0, 3)).toBeNull()
    expect(conversionPercent(200, 3)).toBe(1.5)
    expect(conversionPercent(3, 1)).toBe(33.3)
    expect(formatConversion(8, 2)).toBe('25.0%')
    expect(formatConversion(0, 0)).toBe('—')
  })

  it('labels buckets by day, week and month', () => {
    expect(bucketLabel('2026-11-03', 'day')).toBe('Nov 3')
    expect(bucketLabel('2026-11-02', 'week')).toBe('Week of Nov 2')
    expect(bucketLabel('2026-11-01', 'month')).toBe('Nov 2026')
  })

  it('reads the URL leniently', () => {
    expect(parseRange('90d')).toBe('90d')
    expect(parseRange('1y')).toBe('30d')
    expect(parseRange(null)).toBe('30d')
    expect(parseStatus('paid')).toBe('paid')
    expect(parseStatus('refunded')).toBe('all')
    expect(parsePage('3')).toBe(3)
    expect(parsePage('0')).toBe(1)
    expect(parsePage('2.5')).toBe(1)
    expect(parsePage('abc')).toBe(1)
  })
})
