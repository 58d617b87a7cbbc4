// The table of bench/phone.sh: for each page, the median of each figure over
// the rounds, before and after, and their ratio (after / before).
//
//   node bench/phone/report.mjs <results.jsonl>
import { readFileSync } from 'node:fs'

const rows = readFileSync(process.argv[2], 'utf8').trim().split('\n').map((l) => JSON.parse(l))

const FIGURES = [
  ['lcp_ms', 'largest contentful paint, ms', 0],
  ['fcp_ms', 'first contentful paint, ms', 0],
  ['bytes', 'bytes transferred', 0],
  ['script_bytes', '  of them scripts', 0],
  ['image_bytes', '  of them images', 0],
  ['requests', 'requests', 0],
  ['long_tasks', 'long tasks (> 50 ms)', 1],
  ['tbt_ms', 'total blocking time, ms', 0],
  ['cls', 'cumulative layout shift', 3],
]

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}
const fmt = (v, digits) => (digits ? v.toFixed(digits) : Math.round(v).toLocaleString('en-US'))
const ratio = (a, b) => (b === 0 ? (a === 0 ? '1.00' : 'n/a') : (a / b).toFixed(2))

const pages = [...new Set(rows.map((r) => r.page))]
const rounds = new Set(rows.map((r) => r.round)).size
const lines = []
for (const page of pages) {
  const of = (variant) => rows.filter((r) => r.page === page && r.variant === variant)
  const before = of('before')
  const after = of('after')
  lines.push(`### ${page} (median of ${rounds} cold loads each)`, '')
  lines.push('| figure | before | after | after / before |', '|---|---:|---:|---:|')
  for (const [key, label, digits] of FIGURES) {
    const b = median(before.map((r) => r[key]))
    const a = median(after.map((r) => r[key]))
    lines.push(`| ${label} | ${fmt(b, digits)} | ${fmt(a, digits)} | ${ratio(a, b)} |`)
  }
  const lcpElements = (set) => [...new Set(set.map((r) => r.lcp_element))].join(', ')
  lines.push('', `LCP element: before ${lcpElements(before)}; after ${lcpElements(after)}.`)
  const spread = (set, key) => `${fmt(Math.min(...set.map((r) => r[key])), 0)}–${fmt(Math.max(...set.map((r) => r[key])), 0)}`
  lines.push(`LCP range over the rounds: before ${spread(before, 'lcp_ms')} ms, after ${spread(after, 'lcp_ms')} ms.`)
  lines.push(`FCP range over the rounds: before ${spread(before, 'fcp_ms')} ms, after ${spread(after, 'fcp_ms')} ms.`, '')
}
console.log(lines.join('\n'))
