// Browser walk of two-factor authentication (issue 17): a demo user enrolls
// an authenticator app in Settings (the walk is the app: it computes the TOTP
// code from the secret shown, RFC 6238 with node:crypto), signs out, signs in
// with the password, is held at the code screen (a wrong code shows the
// server's message, a reload and a guarded page keep it there), and with the
// right code lands on the page it was going to. It then removes the factor
// again and the next sign-in asks for no code. Each viewport has its own
// demo user, one no other walk signs in as.
import { apiVisitor, enrollTotpThroughApi, expect, logout, mailboxMessages, stepNow, totp } from '../lib.mjs'

const USERS = { phone: 'sam@demo.plinth.dev', desktop: 'jo@demo.plinth.dev' }
const SETTINGS = '/dashboard/settings'

async function toast(page, text) {
  await page.getByText(text, { exact: true }).first().waitFor()
}

async function passwordSignIn(page, url, email, redirect) {
  await page.goto(`${url}/auth?mode=sign-in&redirect=${encodeURIComponent(redirect)}`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill('demo-password')
  await page.getByRole('button', { name: 'Sign In' }).click()
}

const codeScreen = (page) => page.getByRole('heading', { level: 1, name: 'Two-factor authentication' })

async function onCodeScreen(page, redirect, what) {
  await codeScreen(page).waitFor()
  const here = new URL(page.url())
  expect(here.pathname === '/auth' && here.searchParams.get('redirect') === redirect, `${what}: at ${here.pathname}${here.search}`)
  expect((await page.getByRole('heading', { level: 1, name: 'Settings', exact: true }).count()) === 0, `${what}: the settings are not shown`)
}

export const walks = [
  {
    name: 'mfa: enroll an authenticator app in settings, sign out, sign in with the code',
    async run(page, { url, viewport }) {
      const email = USERS[viewport]
      await passwordSignIn(page, url, email, SETTINGS)
      await page.waitForURL((u) => u.pathname === SETTINGS)

      // Enrol: the server's QR code (a real image) and secret, confirmed with a code.
      const section = page.getByRole('region', { name: 'Two-factor authentication' })
      await section.getByText('Two-factor authentication is off.').waitFor()
      await section.getByRole('button', { name: 'Set up authenticator app' }).click()
      const qr = section.getByRole('img', { name: 'QR code for your authenticator app' })
      await qr.waitFor()
      await page.waitForFunction((img) => img.complete && img.naturalWidth > 0, await qr.elementHandle())
      const secret = (await section.getByTestId('mfa-secret').textContent()).trim()
      expect(/^[A-Z2-7]{16,}$/.test(secret), `a base32 secret is shown, saw ${secret}`)
      const enrolledStep = stepNow()
      await section.getByLabel('6-digit code').fill(totp(secret, enrolledStep))
      await section.getByRole('button', { name: 'Verify and enable' }).click()
      await toast(page, 'Two-factor authentication enabled')
      await section.getByText('Two-factor authentication is on.').waitFor()
      await section.getByRole('list', { name: 'Authenticator apps' }).getByText('Authenticator app').waitFor()

      await logout(page, viewport)

      // Password sign-in stops at the code screen.
      await passwordSignIn(page, url, email, SETTINGS)
      await onCodeScreen(page, SETTINGS, 'after the password')

      // A wrong code: none of the codes the server could accept now.
      const near = [-1, 0, 1].map((d) => totp(secret, stepNow() + d))
      let wrong = '000000'
      while (near.includes(wrong)) wrong = String(Number(wrong) + 1).padStart(6, '0')
      await page.getByLabel('6-digit code').fill(wrong)
      await page.getByRole('button', { name: 'Verify', exact: true }).click()
      await page.getByRole('alert').filter({ hasText: 'Invalid TOTP code entered' }).first().waitFor()
      await onCodeScreen(page, SETTINGS, 'after a wrong code')

      // Neither a reload nor a guarded page gets past it.
      await page.reload()
      await onCodeScreen(page, SETTINGS, 'after a reload')
      await page.goto(url + SETTINGS)
      await onCodeScreen(page, SETTINGS, 'opening the settings')

      // The right code (a step after the one used to enrol: a code counts once).
      const step = Math.max(stepNow(), enrolledStep + 1)
      await page.getByLabel('6-digit code').fill(totp(secret, step))
      await page.getByRole('button', { name: 'Verify', exact: true }).click()
      await toast(page, 'Welcome back!')
      await page.waitForURL((u) => u.pathname === SETTINGS)
      await page.getByRole('heading', { level: 1, name: 'Settings', exact: true }).waitFor()
      if (viewport === 'desktop') await page.getByRole('button', { name: 'Account menu' }).waitFor()

      // Remove it again (an aal2 session: a confirmation is enough); the next sign-in asks no code.
      await section.getByRole('button', { name: 'Remove Authenticator app' }).click()
      const dialog = page.getByRole('dialog', { name: 'Remove Authenticator app?' })
      await dialog.getByRole('button', { name: 'Remove', exact: true }).click()
      await toast(page, 'Authenticator app removed')
      await section.getByText('Two-factor authentication is off.').waitFor()
      await logout(page, viewport)
      await passwordSignIn(page, url, email, SETTINGS)
      await page.waitForURL((u) => u.pathname === SETTINGS)
      await page.getByRole('heading', { level: 1, name: 'Settings', exact: true }).waitFor()
    },
  },
  {
    name: 'mfa: a magic-link sign-in of an account with a factor stops at the code screen too',
    async run(page, { url, viewport }) {
      const email = `e2e-mfa-link-${viewport}-${Date.now()}@example.com`
      const visitor = await apiVisitor(url, email)
      const { secret, step: enrolledStep, anonKey } = await enrollTotpThroughApi(url, visitor.token, 'API app')

      const sent = await fetch(`${url}/auth/v1/otp`, {
        method: 'POST',
        headers: { apikey: anonKey, 'content-type': 'application/json' },
        body: JSON.stringify({ email, create_user: false }),
      })
      expect(sent.ok, `the magic link is sent: ${sent.status} ${await sent.text()}`)
      let link = null
      const until = Date.now() + 15_000
      while (!link && Date.now() < until) {
        const text = JSON.stringify(await mailboxMessages(url, email))
        link = text.match(/https?:\/\/[^\s"<>\\]+\/auth\/v1\/verify\?[^\s"<>\\]+/)?.[0]?.replaceAll('&amp;', '&') ?? null
        if (!link) await new Promise((ok) => setTimeout(ok, 200))
      }
      expect(link, 'a mail with the magic link')

      // The link signs in at aal1 and returns to the site root; the app holds the session at the code screen.
      await page.goto(link)
      await onCodeScreen(page, '/', 'after the magic link')
      if (viewport === 'desktop') expect((await page.getByRole('button', { name: 'Account menu' }).count()) === 0, 'not signed in yet')
      await page.getByLabel('6-digit code').fill(totp(secret, Math.max(stepNow(), enrolledStep + 1)))
      await page.getByRole('button', { name: 'Verify', exact: true }).click()
      await toast(page, 'Welcome back!')
      await page.waitForURL((u) => u.pathname === '/' && u.search === '')
      if (viewport === 'desktop') await page.getByRole('button', { name: 'Account menu' }).waitFor()
    },
  },
]
