// Shared links (issue 24): a template page opened from a link carries its
// own title and card tags in the HTML the server sent, before any script ran;
// the app then keeps the title in step with the screen as the visitor moves
// on, and gives the default back on screens that do not name themselves. The
// HTML also preloads the gallery's first image, as the gallery asks for it.
// Every shared page's card has a PNG image (issue 44 item 10).
import { expect, TIMEOUT } from '../lib.mjs'

const FREE = 'e0000000-0000-4000-8000-000000000001' // Calm Weekly Planner, Maya's
const MISSING = '00000000-0000-4000-8000-00000000dead'

/** `href` answers 200 with a PNG (its type and its signature). */
async function expectPng(href) {
  const response = await fetch(href)
  const type = response.headers.get('content-type')
  const bytes = new Uint8Array(await response.arrayBuffer())
  expect(response.status === 200 && type === 'image/png', `${href}: ${response.status} ${type}`)
  expect([0x89, 0x50, 0x4e, 0x47].every((b, i) => bytes[i] === b), `${href} is a PNG`)
}

/** Waits until the document's title is `title`. */
async function titled(page, title) {
  await page.waitForFunction((t) => document.title === t, title, { timeout: TIMEOUT }).catch(async () => {
    throw new Error(`title: ${await page.title()}, expected ${title}`)
  })
}

export const walks = [
  {
    name: 'shared links: a template page is titled by the server, then by the app as the visitor moves on',
    async run(page, { url }) {
      // What a link preview sees: the HTML as sent, no JavaScript.
      const sent = await (await fetch(`${url}/template/${FREE}`)).text()
      expect(sent.includes('<title>Calm Weekly Planner — Plinth Templates</title>'), 'the server titled the page')
      expect(sent.includes('<meta property="og:title" content="Calm Weekly Planner — Plinth Templates" />'), 'og:title')
      const missing = await fetch(`${url}/template/${MISSING}`)
      expect(missing.status === 404, `an unknown template is a 404, not ${missing.status}`)
      const sitemap = await (await fetch(`${url}/sitemap.xml`)).text()
      expect(sitemap.includes(`/template/${FREE}</loc>`), `the sitemap lists the template: ${sitemap.slice(0, 300)}`)

      await page.goto(`${url}/template/${FREE}`)
      await page.getByRole('heading', { level: 1, name: 'Calm Weekly Planner' }).waitFor()
      expect((await page.title()) === 'Calm Weekly Planner — Plinth Templates', `title: ${await page.title()}`)
      // The demo's previews are the site's own SVG files (app/public/demo);
      // social sites do not render SVG, so the card's image is the PNG
      // beside it (issue 44 item 10), and it answers as a PNG.
      const image = await page.locator('meta[property="og:image"]').getAttribute('content')
      expect(/^https?:\/\/[^/]+\/demo\/planner\.png$/.test(image ?? ''), `og:image: ${image}`)
      await expectPng(new URL(new URL(image).pathname, url).href)
      // Every other shared page has one too: the site's default.
      for (const path of ['/', '/discover', '/categories', '/creators', '/category/productivity', '/profile/mayachen']) {
        const html = await (await fetch(`${url}${path}`)).text()
        const shared = html.match(/<meta property="og:image" content="([^"]+)"/)?.[1]
        expect(shared && /^https?:\/\//.test(shared) && !/\.svg\b/i.test(shared), `${path}: og:image ${shared}`)
        expect(html.includes('<meta name="twitter:card" content="summary_large_image" />'), `${path}: a large card`)
        if (path !== '/profile/mayachen' || shared.endsWith('/share-image.png')) await expectPng(new URL(new URL(shared).pathname, url).href)
      }
      // The gallery's first image came with the page (a preload in the HTML
      // as sent), and it is the very URL the gallery shows: fetched once.
      const preload = await page.locator('link[rel="preload"][as="image"]').evaluate((link) => link.href)
      await page.waitForFunction(() => document.querySelector('[data-testid="gallery-main"] img')?.complete, null, { timeout: TIMEOUT })
      const shown = await page.getByTestId('gallery-main').locator('img').evaluate((img) => img.currentSrc)
      expect(preload === shown, `preloaded ${preload}, the gallery shows ${shown}`)
      const fetched = await page.evaluate((u) => performance.getEntriesByName(u).length, shown)
      expect(fetched === 1, `the gallery's image was fetched ${fetched} times`)

      // Moving on within the app: the category's title, then the default.
      await page.getByRole('link', { name: /back to templates/i }).first().click()
      await page.waitForURL((u) => u.pathname === '/discover')
      await titled(page, 'Plinth Templates — templates for your workspace')
      // (Discover shows 24 a page, newest first: other walks' templates may
      // push the demo's oldest off the first page, so search for it.)
      await page.getByRole('searchbox', { name: 'Search templates' }).fill('Calm Weekly')
      await page.waitForURL((u) => u.searchParams.get('search') === 'Calm Weekly')
      await page.getByRole('link', { name: /calm weekly planner/i }).first().click()
      await page.waitForURL((u) => u.pathname === `/template/${FREE}`)
      await titled(page, 'Calm Weekly Planner — Plinth Templates')
      await page.goto(`${url}/category/productivity`)
      await titled(page, 'Productivity templates — Plinth Templates')
    },
  },
]
