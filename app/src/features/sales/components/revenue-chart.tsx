// The revenue chart: one bar per day, week or month of paid revenue, drawn as
// SVG (no chart library). The y axis has round ticks (model.ts `niceMax`),
// every bar has a tooltip (<title>) and the figures are also in a visually
// hidden table for screen readers. The SVG is drawn at its card's width (read
// with a ResizeObserver), so its text stays readable on a phone and it never
// makes the page wider.
import { useEffect, useRef, useState } from 'react'
import type { SalesBucket } from '@plinth/sdk'
import { bars, bucketLabel, formatMoney, niceMax, ticks } from '../model'

const DEFAULT_WIDTH = 640
const HEIGHT = 220
const LEFT = 52
const BOTTOM = 24
const TOP = 8
const PLOT_H = HEIGHT - TOP - BOTTOM

/** The width of the element `ref` points at, in CSS pixels (`fallback` until measured). */
function useWidth(fallback: number) {
  const ref = useRef<HTMLElement>(null)
  const [width, setWidth] = useState(fallback)
  useEffect(() => {
    const element = ref.current
    if (!element || typeof ResizeObserver === 'undefined') return
    const observer = new ResizeObserver(([entry]) => {
      const measured = Math.floor(entry.contentRect.width)
      if (measured > 0) setWidth(measured)
    })
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  return [ref, width] as const
}

export function RevenueChart({ series, bucket, currency }: { series: SalesBucket[]; bucket: string; currency: string }) {
  const [ref, width] = useWidth(DEFAULT_WIDTH)
  const plotWidth = Math.max(40, width - LEFT - 8)
  const values = series.map((b) => b.gross)
  const top = niceMax(Math.max(0, ...values))
  const shapes = bars(values, top, plotWidth, PLOT_H)
  // A label about every 80 px under the bars, always the first and the last.
  const every = Math.max(1, Math.ceil(series.length / Math.max(2, Math.floor(plotWidth / 80))))
  const labelled = (i: number) => i === series.length - 1 || (i % every === 0 && series.length - 1 - i >= every / 2)
  const axisLabel = (start: string) => bucketLabel(start, bucket).replace(/^Week of /, '')
  return (
    <figure className="m-0" ref={ref}>
      <svg
        viewBox={`0 0 ${width} ${HEIGHT}`}
        width={width}
        height={HEIGHT}
        className="block max-w-full"
        role="img"
        aria-labelledby="revenue-chart-title"
        data-testid="revenue-chart"
        data-top={top}
      >
        <title id="revenue-chart-title">Revenue per {bucket}</title>
        <g transform={`translate(${LEFT},${TOP})`}>
          {ticks(top).map((tick) => {
            const y = PLOT_H - (tick / top) * PLOT_H
            return (
              <g key={tick}>
                <line x1={0} x2={plotWidth} y1={y} y2={y} className="stroke-slate-200" strokeWidth={1} />
                <text x={-6} y={y} dy="0.32em" textAnchor="end" className="fill-slate-500 text-[11px]">
                  {formatMoney(tick, currency).replace(/\.00$/, '')}
                </text>
              </g>
            )
          })}
          {shapes.map((bar, i) => (
            <rect
              key={series[i].start}
              x={bar.x}
              y={bar.y}
              width={bar.width}
              height={bar.height}
              rx={Math.min(3, bar.width / 3)}
              className="fill-brand-600"
              data-testid="revenue-bar"
              data-value={series[i].gross}
            >
              <title>
                {`${bucketLabel(series[i].start, bucket)}: ${formatMoney(series[i].gross, currency)}, ${series[i].sales} sale${series[i].sales === 1 ? '' : 's'}`}
              </title>
            </rect>
          ))}
          {series.map((b, i) =>
            labelled(i) ? (
              <text
                key={b.start}
                x={shapes[i].x + shapes[i].width / 2}
                y={PLOT_H + 16}
                textAnchor={i === series.length - 1 ? 'end' : i === 0 ? 'start' : 'middle'}
                className="fill-slate-500 text-[11px]"
              >
                {axisLabel(b.start)}
              </text>
            ) : null,
          )}
        </g>
      </svg>
      <figcaption className="sr-only">
        <table>
          <caption>Revenue per {bucket}</caption>
          <thead>
            <tr>
              <th scope="col">{bucket === 'month' ? 'Month' : bucket === 'week' ? 'Week' : 'Day'}</th>
              <th scope="col">Revenue</th>
              <th scope="col">Sales</th>
              <th scope="col">Free downloads</th>
            </tr>
          </thead>
          <tbody>
            {series.map((b) => (
              <tr key={b.start}>
                <td>{bucketLabel(b.start, bucket)}</td>
                <td>{formatMoney(b.gross, currency)}</td>
                <td>{b.sales}</td>
                <td>{b.freeDownloads}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </figcaption>
    </figure>
  )
}
