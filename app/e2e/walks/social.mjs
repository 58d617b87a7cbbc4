// Social sign-in (issue 15, item 3). The walks' plinth has GitHub enabled,
// against a local stand-in that answers as GitHub does when the person
// clicks Cancel (e2e/fake-github.mjs), and Google not enabled. The auth page
// offers only GitHub; a failed sign-in comes back into the app with the
// server's message in the spec's toast ('Error' / message), never a raw JSON
// page, and the error leaves the URL so a reload does not repeat it.
import { expect, waitUntil } from '../lib.mjs'
import { GITHUB_DENIED } from '../fake-github.mjs'

/** Collects console errors and asserts none at the end. */
function watchConsole(page) {
  const errors = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  return () => expect(errors.length === 0, `console errors: ${errors.join(' | ')}`)
}

/** The toast with `text`, visible; the page is the app, not a JSON body. */
async function expectToast(page, text) {
  const toast = page.locator('[data-sonner-toast]').filter({ hasText: text })
  await toast.waitFor()
  expect(await toast.getByText('Error', { exact: true }).isVisible(), 'the toast is titled Error')
  await page.getByRole('banner').waitFor()
  const body = (await page.locator('body').innerText()).trim()
  expect(!body.startsWith('{'), `a raw JSON page: ${body.slice(0, 120)}`)
}

async function expectNoErrorInUrl(page) {
  await waitUntil(() => !/error/.test(new URL(page.url()).search + new URL(page.url()).hash), `the URL without the error (${page.url()})`)
}

export const walks = [
  {
    name: 'social: only enabled providers; a cancelled GitHub sign-in comes back with a toast',
    async run(page, { url }) {
      const clean = watchConsole(page)
      await page.goto(`${url}/auth`)
      const github = page.getByRole('button', { name: 'GitHub' })
      await github.waitFor()
      expect((await page.getByRole('button', { name: 'Google' }).count()) === 0, 'Google is not enabled but offered')
      expect(await page.getByText('or continue with').isVisible(), 'the divider above the providers')

      // Through plinth's /authorize to the stand-in, which cancels, and back
      // through /callback into the app (the spec's target: the site root).
      const visited = []
      page.on('request', (request) => {
        if (request.isNavigationRequest()) visited.push(request.url())
      })
      await github.click()
      await expectToast(page, GITHUB_DENIED)
      expect(new URL(page.url()).origin === url, `left the app: ${page.url()}`)
      expect(visited.some((v) => v.includes('/login/oauth/authorize')), `never reached the provider: ${visited.join(' ')}`)
      expect(visited.some((v) => v.includes('/auth/v1/callback')), `never came back through the callback: ${visited.join(' ')}`)
      await expectNoErrorInUrl(page)
      // Still a visitor: no session was stored.
      const session = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.endsWith('-auth-token')))
      expect(session.length === 0, `a session after a cancelled sign-in: ${session}`)

      // A reload does not repeat it.
      await page.reload()
      await page.getByRole('banner').waitFor()
      await new Promise((ok) => setTimeout(ok, 500))
      expect((await page.locator('[data-sonner-toast]').filter({ hasText: GITHUB_DENIED }).count()) === 0, 'the toast came back on reload')
      clean()
    },
  },
  {
    name: 'social: a provider that is not enabled comes back to the app with a toast',
    async run(page, { url }) {
      const clean = watchConsole(page)
      await page.goto(`${url}/auth/v1/authorize?provider=google&redirect_to=${encodeURIComponent(`${url}/auth`)}`)
      await expectToast(page, 'Unsupported provider: provider is not enabled')
      expect(new URL(page.url()).pathname === '/auth', `not on the auth page: ${page.url()}`)
      await page.getByRole('button', { name: 'GitHub' }).waitFor()
      await expectNoErrorInUrl(page)

      // Elsewhere than the allow-list: the server answers its JSON error and
      // sends nobody there.
      const response = await page.request.get(
        `${url}/auth/v1/authorize?provider=google&redirect_to=${encodeURIComponent('https://evil.example/auth')}`,
        { maxRedirects: 0 },
      )
      expect(response.status() === 400, `expected 400, got ${response.status()}`)
      expect(!response.headers().location, `redirected to ${response.headers().location}`)
      clean()
    },
  },
]
