import { afterEach, describe, expect, it, vi } from 'vitest'
import { act, render, screen, within } from '@testing-library/react'
import { RevenueChart } from './revenue-chart'

const series = Array.from({ length: 30 }, (_, i) => ({
  start: `2026-11-${String(i + 1).padStart(2, '0')}`,
  gross: i === 29 ? 1200 : i === 10 ? 300 : 0,
  sales: i === 29 ? 1 : i === 10 ? 1 : 0,
  freeDownloads: 0,
}))

/** A ResizeObserver that reports `width` for whatever it observes. */
function observeWidth(width: number) {
  const observers: Array<() => void> = []
  vi.stubGlobal(
    'ResizeObserver',
    class {
      constructor(private callback: ResizeObserverCallback) {}
      observe() {
        observers.push(() => this.callback([{ contentRect: { width } } as ResizeObserverEntry], this as unknown as ResizeObserver))
      }
      disconnect() {}
      unobserve() {}
    },
  )
  return () => observers.forEach((report) => report())
}

afterEach(() => vi.unstubAllGlobals())

describe('the revenue chart', () => {
  it('draws a bar per bucket against a round axis, at the width of its card', () => {
    const report = observeWidth(340)
    render(<RevenueChart series={series} bucket="day" currency="usd" />)
    act(() => report())
    const chart = screen.getByTestId('revenue-chart')
    expect(chart).toHaveAttribute('width', '340')
    expect(chart).toHaveAttribute('viewBox', '0 0 340 220')
    // $12.00 at most: the axis tops out at $20 ($0, $5, ... $20).
    expect(chart).toHaveAttribute('data-top', '2000')
    expect(within(chart).getByText('$20')).toBeInTheDocument()
    const bars = within(chart).getAllByTestId('revenue-bar')
    expect(bars).toHaveLength(30)
    // Every bar stays inside the plot (the card's width less the axis labels).
    for (const bar of bars) {
      expect(Number(bar.getAttribute('x')) + Number(bar.getAttribute('width'))).toBeLessThanOrEqual(340 - 52 - 8)
    }
    const heights = bars.map((b) => Number(b.getAttribute('height')))
    expect(heights[29]).toBeCloseTo(heights[10] * 4)
    expect(heights.filter((h) => h > 0)).toHaveLength(2)
    // Fewer date labels on a narrow card, the last day always among them.
    const labels = within(chart).getAllByText(/^Nov \d+$/)
    expect(labels.length).toBeLessThanOrEqual(4)
    expect(labels.at(-1)).toHaveTextContent('Nov 30')
  })

  it('has the figures as a table for screen readers', () => {
    render(<RevenueChart series={series.slice(28)} bucket="day" currency="usd" />)
    const table = screen.getByRole('table', { name: 'Revenue per day' })
    expect(within(table).getAllByRole('row')).toHaveLength(3)
    expect(within(table).getByText('$12.00')).toBeInTheDocument()
  })
})
