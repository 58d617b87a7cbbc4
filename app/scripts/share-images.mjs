// The raster images of shared links' cards (issue 44 item 10), rendered with
// Chromium (playwright-core, already a dev dependency) so they can be made
// again after a change:
//
//   node scripts/share-images.mjs        (from app/; CHROMIUM_PATH, default /usr/bin/chromium)
//
// * public/share-image.png: the site's default share image, 1200x630, from
//   scripts/share-image.html.
// * public/demo/<name>.png beside every public/demo/<name>.svg: the demo
//   templates' previews as PNG, 1200x630 (the SVG whole, centred). Social
//   sites do not render SVG; the server's pages give a site file's PNG as
//   the og:image of a template whose preview is the SVG
//   (crates/marketplace/src/pages/share.rs).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium } from 'playwright-core'

const app = join(import.meta.dirname, '..')
const publicDir = join(app, 'public')
const demoDir = join(publicDir, 'demo')
const size = { width: 1200, height: 630 }

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none'],
})
try {
  const page = await browser.newPage({ viewport: size, deviceScaleFactor: 1 })
  await page.goto(pathToFileURL(join(app, 'scripts/share-image.html')).href)
  await page.screenshot({ path: join(publicDir, 'share-image.png') })
  console.log('public/share-image.png')

  for (const file of readdirSync(demoDir).filter((f) => f.endsWith('.svg')).sort()) {
    const svg = readFileSync(join(demoDir, file), 'utf8')
    const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`
    await page.setContent(
      `<!doctype html><html><body style="margin:0;width:${size.width}px;height:${size.height}px;display:flex;align-items:center;justify-content:center;background:#eef2ff">` +
        `<img alt="" src="${src}" style="height:${size.height}px;width:auto;display:block"></body></html>`,
    )
    await page.locator('img').evaluate((img) => img.decode())
    const out = file.replace(/\.svg$/, '.png')
    await page.screenshot({ path: join(demoDir, out) })
    console.log(`public/demo/${out}`)
  }
} finally {
  await browser.close()
}
