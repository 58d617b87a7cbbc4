// Browser walks of the links the server hands the app (security review,
// item 2): a download link that is not a web link (`javascript:`, `data:`)
// must never be followed or shown as a link, whatever the server answers.
// The server refuses to store or send such links (the database's checks and
// the functions' own); here its answers are replaced on the way, as a
// compromised or older server could send them, and the app must stand alone.
// Item 11: a creator sees no live heart or stars on their own template.
import { expect, signIn } from '../lib.mjs'

const FREE = 'e0000000-0000-4000-8000-000000000001' // Calm Weekly Planner, by Maya
const MAYA = 'maya@demo.plinth.dev'
const DEMO_PASSWORD = 'demo-password'

const SCRIPT_LINKS = [
  'javascript:window.__pwned=1;void 0',
  'JaVaScRiPt:window.__pwned=1;void 0',
  'data:text/html,<script>parent.__pwned=1</script>',
]

const REFUSED = 'This download link cannot be opened.'

/**
 * Waits until the app refused the link (its error shows) or the link's
 * script ran, then asserts the first and not the second.
 */
async function expectRefused(page, link) {
  const shown = page.getByText(REFUSED).first()
  const until = Date.now() + 15_000
  while (Date.now() < until) {
    const pwned = await page.evaluate(() => window.__pwned).catch(() => 'navigated away')
    expect(pwned === undefined, `the link's script ran or the page left: ${pwned} (${link})`)
    if (await shown.isVisible()) return
    await new Promise((ok) => setTimeout(ok, 100))
  }
  throw new Error(`no error shown for ${link}`)
}

/** Answers `function` with `body` instead of the server. */
async function answer(page, fn, body) {
  await page.unroute(`**/functions/v1/${fn}`)
  await page.route(`**/functions/v1/${fn}`, (route) => route.fulfill({ json: body }))
}

export const walks = [
  {
    name: 'security-links: Download Free never follows a script link',
    async run(page, { url, viewport }) {
      const email = `e2e-links-${viewport}-${Date.now()}@example.com`
      await page.goto(`${url}/template/${FREE}`)
      await page.getByRole('heading', { level: 1, name: 'Calm Weekly Planner' }).waitFor()
      const here = page.url()
      for (const link of SCRIPT_LINKS) {
        await answer(page, 'create-free-order', { downloadUrl: link, orderId: '00000000-0000-4000-8000-0000000000e2', emailSent: true })
        await page.getByTestId('price-card').getByRole('button', { name: 'Download Free' }).click()
        const dialog = page.getByRole('dialog', { name: 'Get Your Free Template' })
        await dialog.getByRole('textbox').fill(email)
        await dialog.getByRole('button', { name: 'Send Download Link' }).click()
        // Our own wording (the spec has none for a refused link).
        await expectRefused(page, link)
        expect(page.url() === here, `stayed on the template page, not ${page.url()} (${link})`)
        await page.keyboard.press('Escape')
        await dialog.waitFor({ state: 'hidden' }).catch(() => {})
      }
      // A web link is still followed, in a new tab (issue 15, item 16).
      await answer(page, 'create-free-order', { downloadUrl: `${url}/demo/files/planner.md`, orderId: '00000000-0000-4000-8000-0000000000e3', emailSent: true })
      await page.getByTestId('price-card').getByRole('button', { name: 'Download Free' }).click()
      const dialog = page.getByRole('dialog', { name: 'Get Your Free Template' })
      await dialog.getByRole('textbox').fill(email)
      const opened = page.context().waitForEvent('page')
      await dialog.getByRole('button', { name: 'Send Download Link' }).click()
      const tab = await opened
      await tab.waitForURL((u) => u.pathname === '/demo/files/planner.md')
      expect(page.url() === here, `the template page stayed, not ${page.url()}`)
    },
  },
  {
    name: 'security-links: a download page shows no script link',
    async run(page, { url }) {
      const order = '00000000-0000-4000-8000-0000000000e4'
      for (const link of SCRIPT_LINKS) {
        await answer(page, 'validate-download', { downloadUrl: link, isPaid: true, price_in_cents: 0, buyer_email: 'x@example.com', orderId: order })
        await page.goto(`${url}/download-secure/${order}?token=e2e-token`)
        await expectRefused(page, link)
        const hrefs = await page.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')))
        expect(!hrefs.some((h) => /^\s*(javascript|data):/i.test(h ?? '')), `a script link on the page: ${hrefs.join(', ')}`)
        expect((await page.getByRole('link', { name: 'Download File' }).count()) === 0, `a Download File link for ${link}`)
        expect((await page.evaluate(() => window.__pwned)) === undefined, `the link's script ran (${link})`)
      }
    },
  },
  {
    name: 'security-links: a creator sees no heart or stars to vote for their own template',
    async run(page, { url }) {
      await signIn(page, url, MAYA, DEMO_PASSWORD, `/template/${FREE}`)
      await page.waitForURL((u) => u.pathname === `/template/${FREE}`)
      await page.getByRole('heading', { level: 1, name: 'Calm Weekly Planner' }).waitFor()
      // Our own wording (the spec does not say how an owner's page differs).
      await page.getByText('You cannot upvote or rate your own template.').first().waitFor()
      const heart = page.getByRole('button', { name: /^Upvote/ })
      expect((await heart.count()) === 0 || (await heart.isDisabled()), 'the heart is not offered to its creator')
      expect((await page.getByRole('radiogroup', { name: 'Your rating' }).count()) === 0, 'no stars to rate with')
      expect((await page.getByRole('button', { name: 'Submit Rating' }).count()) === 0, 'no rating form')
    },
  },
]
