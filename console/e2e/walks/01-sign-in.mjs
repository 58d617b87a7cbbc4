// Sign-in: a visitor is sent to sign in (remembering the page), a wrong
// password is refused with a message, the right one opens the console, and
// signing out ends the session.
import { BASE, expect, expectNoSidewaysPan, screenshot } from '../lib.mjs'

export const walks = [
  {
    name: 'sign-in',
    expectedFailures: [{ status: 401, path: `${BASE}/api/session` }],
    async run(page, ctx) {
      await page.goto(`${ctx.url}${BASE}/settings`)
      await page.waitForURL((u) => u.pathname === `${BASE}/sign-in`)
      expect(new URL(page.url()).searchParams.get('redirect') === '/settings', `redirect kept: ${page.url()}`)
      await page.getByRole('heading', { level: 1, name: 'Sign in to the Plinth console' }).waitFor()

      await page.getByLabel('Email').fill(ctx.operator.email)
      await page.getByLabel('Password').fill('not-the-password')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('alert').filter({ hasText: 'Wrong e-mail or password.' }).waitFor()
      await expectNoSidewaysPan(page, 'the sign-in page')
      await screenshot(page, 'sign-in')

      await page.getByLabel('Password').fill(ctx.operator.password)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL((u) => u.pathname === `${BASE}/settings`)
      await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
      expect(await page.getByText(ctx.operator.email).first().isVisible() || ctx.viewport === 'phone', 'the operator is named')

      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.waitForURL((u) => u.pathname === `${BASE}/sign-in`)
      // The session is over: the console sends us back to sign in.
      await page.goto(`${ctx.url}${BASE}/users`)
      await page.waitForURL((u) => u.pathname === `${BASE}/sign-in`)
      const session = await page.request.get(`${ctx.url}${BASE}/api/session`)
      expect(session.status() === 401, `GET /session after sign-out answered ${session.status()}`)
    },
  },
]
