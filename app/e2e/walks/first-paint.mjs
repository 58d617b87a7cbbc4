// The first paint on a slow phone connection (issue 44 item 5): at 400 ms
// latency and 50 KB/s, Home used to stay blank for about 5 s, until some
// 240 KB of gzipped scripts had arrived. The HTML now carries a loading shell
// (the header, Home's hero, "Loading templates...", skeleton cards;
// app/index.html, the hero shown by the server on `/`) that
// paints before any script: this walk sees it painted before the start-up's
// main chunk has even arrived, then the real Home in its place, with one
// header and no shell left behind.
import { checkA11y, expect } from '../lib.mjs'

const SLOW = { offline: false, latency: 400, downloadThroughput: 50 * 1024, uploadThroughput: 50 * 1024 }

export const walks = [
  {
    name: 'first paint: on a slow connection the loading shell paints before the scripts, then Home replaces it',
    async run(page, { url, viewport }) {
      if (viewport === 'phone') await page.setViewportSize({ width: 375, height: 812 })
      // The start-up's main chunk (React's renderer), as the page names it.
      const html = await (await fetch(`${url}/`)).text()
      const main = html.match(/<link rel="modulepreload"[^>]* href="(\/assets\/main-[\w-]+\.js)"/)?.[1]
      expect(main, `the page preloads the start-up's main chunk: ${html.slice(0, 400)}`)
      expect(html.indexOf('data-loading-shell') < html.indexOf('rel="stylesheet"'), 'the stylesheet comes after the shell')

      const cdp = await page.context().newCDPSession(page)
      await cdp.send('Network.enable')
      await cdp.send('Network.emulateNetworkConditions', SLOW)
      let mainFinished = false
      page.on('requestfinished', (request) => {
        if (new URL(request.url()).pathname === main) mainFinished = true
      })

      const started = Date.now()
      await page.goto(`${url}/`, { waitUntil: 'commit' })
      const shell = page.locator('[data-loading-shell]')
      await shell.getByText('Loading templates...').waitFor({ state: 'visible', timeout: 20_000 })
      await shell.getByRole('link', { name: 'Plinth Templates' }).waitFor({ state: 'visible' })
      // On `/` the server shows Home's hero in the shell: its headline too.
      await shell.getByRole('heading', { level: 1, name: 'Find the perfect template for your workspace' }).waitFor({ state: 'visible' })
      expect(!mainFinished, `the main chunk had arrived before the shell showed (${Date.now() - started} ms)`)
      if (viewport === 'desktop') {
        for (const name of ['Home', 'Discover', 'Categories', 'Creators']) {
          expect(await shell.getByRole('link', { name, exact: true }).isVisible(), `the shell's ${name} link shows`)
        }
      }
      // Painted, not only in the DOM: the first contentful paint came before
      // the main chunk's last byte.
      await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, null, { timeout: 20_000 })
      const shellAt = Date.now() - started
      // The shell is a page of its own for a while: as accessible as the app.
      const violations = await checkA11y(page, { viewport, state: 'loading shell' })
      expect(violations.length === 0, `the loading shell: ${violations.map((v) => `${v.impact} ${v.id} ${v.targets.join(', ')}`).join('; ')}`)
      expect(!mainFinished, 'still before the main chunk arrived')

      // Then the real Home (its trending cards), and the shell gone.
      await shell.waitFor({ state: 'detached', timeout: 60_000 })
      await page.getByRole('heading', { level: 1, name: /find the perfect template/i }).waitFor()
      await page.locator('main a[href^="/template/"]').first().waitFor({ timeout: 30_000 })
      const homeAt = Date.now() - started
      const timing = await page.evaluate((path) => {
        const fcp = performance.getEntriesByName('first-contentful-paint')[0].startTime
        const chunk = performance.getEntriesByType('resource').find((e) => new URL(e.name).pathname === path)
        return { fcp, mainEnd: chunk?.responseEnd ?? null }
      }, main)
      expect(timing.mainEnd !== null, 'the main chunk was loaded')
      expect(timing.fcp < timing.mainEnd, `first contentful paint at ${Math.round(timing.fcp)} ms, the main chunk in at ${Math.round(timing.mainEnd)} ms`)
      expect((await shell.count()) === 0, 'the loading shell is gone once Home shows')
      expect((await page.getByRole('banner').count()) === 1, 'one header')
      expect((await page.locator('main').count()) === 1, 'one main')
      expect((await page.getByRole('heading', { level: 1 }).count()) === 1, 'one headline')
      await page.getByRole('link', { name: 'Plinth Templates' }).first().waitFor()
      console.log(`      [${viewport}] shell painted at ${Math.round(timing.fcp)} ms (seen ${shellAt} ms), main chunk in at ${Math.round(timing.mainEnd)} ms, Home at ${homeAt} ms`)
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
    },
  },
]
