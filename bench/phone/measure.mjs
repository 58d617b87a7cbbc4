// One round of bench/phone.sh for one build of the app: loads each page once
// in a fresh browser context (cold cache) of Chromium with a throttled phone
// profile, and appends one JSON line per page load to the results file.
//
//   node bench/phone/measure.mjs <plinth url> <variant> <round> <results.jsonl>
//
// The profile is Lighthouse's mobile one, applied in the browser the way
// Chrome DevTools' "Slow 4G" preset applies it (PROFILE below).
import { appendFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'

const require = createRequire(resolve(import.meta.dirname, '../../app/package.json'))
const { chromium } = require('playwright-core')

export const PROFILE = {
  // Lighthouse's emulated phone (a Moto G Power): 412 x 823 CSS pixels at 1.75.
  viewport: { width: 412, height: 823 },
  deviceScaleFactor: 1.75,
  userAgent:
    'Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36',
  // Lighthouse mobile: 150 ms RTT, 1.6 Mbps down, 750 kbps up, CPU 4x slower.
  // Applied per request as DevTools' "Slow 4G" does: latency x3.75, throughput x0.9.
  rttMs: 150,
  downKbps: 1638.4,
  upKbps: 750,
  requestLatencyMs: 150 * 3.75,
  cpuSlowdown: 4,
}

// The connection of issue 44's review (item 5: "Home is blank for 5 s"): a
// 375 px phone, 400 ms latency, 50 KB/s down; the same CPU slowdown.
export const SLOW = {
  ...PROFILE,
  viewport: { width: 375, height: 812 },
  deviceScaleFactor: 2,
  requestLatencyMs: 400,
  downBytesPerSecond: 50 * 1024,
  upBytesPerSecond: 50 * 1024,
}

export const PAGES = [
  { name: 'home', path: '/', ready: 'main a[href^="/template/"]' },
  { name: 'home on the slow connection (375 px, 400 ms, 50 KB/s)', path: '/', ready: 'main a[href^="/template/"]', profile: SLOW },
  // A demo template with its preview image (seed/demo.sql).
  { name: 'template', path: '/template/e0000000-0000-4000-8000-000000000001', ready: 'main h1' },
]

// Runs in the page before its own scripts: LCP, layout shifts, long tasks, paints.
function observe() {
  const m = (window.__phone = { lcp: 0, lcpElement: '', shifts: [], shiftSources: [], longTasks: [], fcp: 0 })
  const describe = (el) => {
    if (!el) return '(removed)'
    const src = el.currentSrc || el.src
    if (src) return `${(el.tagName || el.nodeName).toLowerCase()} ${src.replace(location.origin, '').split('?')[0]}`
    return `${(el.tagName || el.nodeName).toLowerCase()} "${(el.textContent || '').trim().slice(0, 40)}"`
  }
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      m.lcp = e.startTime
      m.lcpElement = describe(e.element)
    }
  }).observe({ type: 'largest-contentful-paint', buffered: true })
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.hadRecentInput) continue
      m.shifts.push([e.startTime, e.value])
      m.shiftSources.push((e.sources || []).map((s) => `${s.node ? describe(s.node) : '?'} ${JSON.stringify(s.previousRect)}->${JSON.stringify(s.currentRect)}`))
    }
  }).observe({ type: 'layout-shift', buffered: true })
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) m.longTasks.push([e.startTime, e.duration])
  }).observe({ type: 'longtask', buffered: true })
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') m.fcp = e.startTime
  }).observe({ type: 'paint', buffered: true })
}

/** Cumulative layout shift as Chrome reports it: the largest session window (gaps < 1 s, at most 5 s). */
function cls(shifts) {
  let best = 0
  let current = 0
  let start = -Infinity
  let last = -Infinity
  for (const [t, v] of shifts) {
    if (t - last > 1000 || t - start > 5000) {
      current = 0
      start = t
    }
    current += v
    last = t
    best = Math.max(best, current)
  }
  return best
}

async function load(browser, base, page) {
  const profile = page.profile ?? PROFILE
  const context = await browser.newContext({
    viewport: profile.viewport,
    deviceScaleFactor: profile.deviceScaleFactor,
    isMobile: true,
    hasTouch: true,
    userAgent: profile.userAgent,
    locale: 'en-US',
  })
  try {
    const tab = await context.newPage()
    await tab.addInitScript(observe)
    const cdp = await context.newCDPSession(tab)
    await cdp.send('Network.enable')
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: profile.requestLatencyMs,
      downloadThroughput: profile.downBytesPerSecond ?? (profile.downKbps * 1024 * 0.9) / 8,
      uploadThroughput: profile.upBytesPerSecond ?? (profile.upKbps * 1024 * 0.9) / 8,
    })
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpuSlowdown })

    const types = new Map()
    const bytes = { total: 0, script: 0, image: 0, other: 0 }
    let requests = 0
    const inflight = new Set()
    let lastActivity = Date.now()
    const urls = new Map()
    cdp.on('Network.requestWillBeSent', (e) => {
      inflight.add(e.requestId)
      urls.set(e.requestId, { url: e.request.url, sent: e.timestamp })
      lastActivity = Date.now()
    })
    cdp.on('Network.responseReceived', (e) => types.set(e.requestId, e.type))
    cdp.on('Network.loadingFinished', (e) => {
      inflight.delete(e.requestId)
      lastActivity = Date.now()
      requests++
      bytes.total += e.encodedDataLength
      const type = types.get(e.requestId)
      const key = type === 'Script' ? 'script' : type === 'Image' ? 'image' : 'other'
      bytes[key] += e.encodedDataLength
      const request = urls.get(e.requestId)
      if (process.env.PHONE_DEBUG && request) {
        const since = (t) => Math.round((t - first) * 1000)
        console.error(`  ${String(since(request.sent)).padStart(6)} ${String(since(e.timestamp)).padStart(6)} ms ${String(e.encodedDataLength).padStart(8)} B ${request.url.replace(base, '')}`)
      }
    })
    cdp.on('Network.loadingFailed', (e) => {
      inflight.delete(e.requestId)
      lastActivity = Date.now()
    })

    let first = Infinity
    cdp.on('Network.requestWillBeSent', (e) => (first = Math.min(first, e.timestamp)))
    if (process.env.PHONE_DEBUG) console.error(`${page.name}: sent, done, bytes, url`)
    await tab.goto(base + page.path, { waitUntil: 'load', timeout: 120_000 })
    await tab.waitForSelector(page.ready, { timeout: 120_000 })
    // Done: nothing on the network for 2 s (a minute at most), then a little for the last paints.
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline && (inflight.size > 0 || Date.now() - lastActivity < 2000)) {
      await new Promise((r) => setTimeout(r, 100))
    }
    await tab.waitForTimeout(500)
    const m = await tab.evaluate(() => window.__phone)
    if (process.env.PHONE_DEBUG) console.error(JSON.stringify({ fcp: m.fcp, lcp: m.lcp, shifts: m.shifts, shiftSources: m.shiftSources, longTasks: m.longTasks }))
    const long = m.longTasks.map(([, d]) => d)
    return {
      fcp_ms: m.fcp,
      lcp_ms: m.lcp,
      lcp_element: m.lcpElement,
      bytes: bytes.total,
      script_bytes: bytes.script,
      image_bytes: bytes.image,
      requests,
      long_tasks: long.length,
      tbt_ms: long.reduce((s, d) => s + Math.max(0, d - 50), 0),
      cls: cls(m.shifts),
    }
  } finally {
    await context.close()
  }
}

const [base, variant, round, out] = process.argv.slice(2)
if (!out) {
  console.error('usage: measure.mjs <plinth url> <variant> <round> <results.jsonl>')
  process.exit(2)
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
})
try {
  for (const page of PAGES) {
    const figures = await load(browser, base, page)
    appendFileSync(out, JSON.stringify({ page: page.name, variant, round: Number(round), ...figures }) + '\n')
  }
} finally {
  await browser.close()
}
