// Browser walks of password recovery and change (issue 44, item 1), each
// viewport with fresh accounts of its own:
// - "Forgot password?" on /auth sends the reset mail (read from the dev
//   mailbox); its link lands on the new-password screen; the new password
//   signs in afterwards and the old one no longer does;
// - Settings → Change password, then a sign-in with the new password;
// - an account with an authenticator app: Settings is reached with the code
//   (the server wants aal2 for a new password), and the reset link asks for
//   the code before the new-password screen;
// - a sign-up that must confirm its address (a server of its own with
//   autoconfirm off): the confirmation link lands on "Email confirmed", and
//   the tab's live review notifications work at once (no refused join of
//   the creator's channel); a second sign-up confirms with the mail's code.
import { apiAccount, apiVisitor, checkA11y, enrollTotpThroughApi, expect, expectNoSidewaysPan, logout, mailboxMessages, stepNow, submitForReview, totp } from '../lib.mjs'
import { startPlinth } from '../plinth.mjs'

const OLD = 'a-long-password-1'
const NEW = 'a-newer-password-2'

/** The newest mail to `email` whose subject is `subject`, waited for. */
async function mailTo(url, email, subject) {
  const until = Date.now() + 15_000
  while (Date.now() < until) {
    const found = (await mailboxMessages(url, email)).find((m) => m.subject === subject)
    if (found) return found
    await new Promise((ok) => setTimeout(ok, 200))
  }
  throw new Error(`no mail "${subject}" to ${email}`)
}

function verifyLink(mail) {
  const link = mail.links.find((l) => l.includes('/auth/v1/verify?'))
  expect(link, `a verify link in: ${mail.text}`)
  return link
}

function mailCode(mail) {
  const code = mail.text.match(/enter this code: (\d{6})/)?.[1]
  expect(code, `a code in: ${mail.text}`)
  return code
}

async function toast(page, text) {
  await page.getByText(text, { exact: true }).first().waitFor()
}

async function passwordSignIn(page, url, email, password, redirect = '/dashboard') {
  await page.goto(`${url}/auth?mode=sign-in&redirect=${encodeURIComponent(redirect)}`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign In' }).click()
}

async function signsIn(page, url, email, password) {
  await passwordSignIn(page, url, email, password)
  await page.waitForURL((u) => u.pathname === '/dashboard')
}

async function refused(page, url, email, password) {
  await passwordSignIn(page, url, email, password)
  await page.getByText('Invalid login credentials').first().waitFor()
  expect(new URL(page.url()).pathname === '/auth', 'a refused sign-in stays on /auth')
}

async function setNewPassword(page, password) {
  await page.getByLabel('New password', { exact: true }).fill(password)
  await page.getByLabel('Confirm new password').fill(password)
}

/**
 * Enrolls and verifies a TOTP factor as the holder of `token` (another
 * session than the browser's): a function answering its next code. Each code
 * counts once: the next one is from a later step, which the server takes
 * from one step before its time on (as mfa.mjs uses it).
 */
async function enrollThroughApi(url, token) {
  const { secret, step } = await enrollTotpThroughApi(url, token, 'Walk phone')
  let last = step
  return async () => {
    const next = Math.max(stepNow(), last + 1)
    while (next > stepNow() + 1) await new Promise((ok) => setTimeout(ok, 500))
    last = next
    return totp(secret, next)
  }
}

export const walks = [
  {
    name: 'password: forgot password on /auth, the reset mail, a new password, the old one refused',
    async run(page, { url, viewport }) {
      const email = `e2e-reset-${viewport}-${Date.now()}@example.com`
      await apiVisitor(url, email)

      await page.goto(`${url}/auth?mode=sign-in`)
      await page.getByRole('link', { name: 'Forgot password?' }).click()
      await page.getByRole('heading', { name: 'Reset your password' }).waitFor()
      await expectNoSidewaysPan(page, 'the forgot-password form')
      await checkA11y(page, { viewport, state: 'forgot password' })
      await page.getByLabel('Email').fill(email)
      await page.getByRole('button', { name: 'Send reset link' }).click()
      await page.getByText('If an account exists for that address, we sent a link to reset the password.', { exact: false }).waitFor()

      // Asked again at once: the server's rate-limit message.
      await page.getByRole('button', { name: 'Send it again' }).click()
      await page.getByRole('button', { name: 'Send reset link' }).click()
      await page.getByRole('alert').filter({ hasText: /For security purposes, you can only request this after \d+ seconds?\./ }).first().waitFor()

      const mail = await mailTo(url, email, 'Reset your password')
      const link = verifyLink(mail)
      expect(new URL(link).searchParams.get('redirect_to') === `${url}/auth/reset-password`, `the link returns to the reset screen: ${link}`)
      await page.goto(link)
      await page.waitForURL((u) => u.pathname === '/auth/reset-password')
      await page.getByRole('heading', { level: 1, name: 'Set a new password' }).waitFor()
      await expectNoSidewaysPan(page, 'the new-password screen')
      await checkA11y(page, { viewport, who: 'recovering', state: 'new password' })
      await setNewPassword(page, NEW)
      await page.getByRole('button', { name: 'Set new password' }).click()
      await toast(page, 'Password updated')
      await page.waitForURL((u) => u.pathname === '/dashboard')

      await logout(page, viewport)
      await refused(page, url, email, OLD)
      await signsIn(page, url, email, NEW)

      // The link was used: opened again, it signs nobody in.
      await logout(page, viewport)
      await page.goto(link)
      await page.getByRole('heading', { level: 1, name: 'This link has expired' }).waitFor()
    },
  },
  {
    name: 'password: change it in Settings and sign in with it',
    async run(page, { url, viewport }) {
      const email = `e2e-change-${viewport}-${Date.now()}@example.com`
      await apiVisitor(url, email)
      await passwordSignIn(page, url, email, OLD, '/dashboard/settings')
      await page.waitForURL((u) => u.pathname === '/dashboard/settings')
      const card = page.getByRole('region', { name: 'Change password' })
      await card.waitFor()
      await card.getByLabel('New password', { exact: true }).fill(NEW)
      await card.getByLabel('Confirm new password').fill(`${NEW}x`)
      await card.getByRole('button', { name: 'Update password' }).click()
      await card.getByText('The passwords do not match').waitFor()
      await card.getByLabel('Confirm new password').fill(NEW)
      await expectNoSidewaysPan(page, 'the settings with the password card')
      await checkA11y(page, { viewport, who: 'creator', state: 'change password' })
      await card.getByRole('button', { name: 'Update password' }).click()
      await toast(page, 'Password updated')

      await logout(page, viewport)
      await refused(page, url, email, OLD)
      await signsIn(page, url, email, NEW)
    },
  },
  {
    name: 'password: an account with an authenticator app gives its code to reset or change the password',
    async run(page, { url, viewport }) {
      const email = `e2e-totp-pw-${viewport}-${Date.now()}@example.com`
      const visitor = await apiVisitor(url, email)
      const nextCode = await enrollThroughApi(url, visitor.token)

      // Settings: the password sign-in stops at the code screen; with the code
      // (an aal2 session, which the server wants for a new password) the
      // change goes through. (Verifying a factor ends the account's aal1
      // sessions, so no signed-in tab is left below aal2.)
      await passwordSignIn(page, url, email, OLD, '/dashboard/settings')
      await page.getByRole('heading', { level: 1, name: 'Two-factor authentication' }).waitFor()
      await page.getByLabel('6-digit code').fill(await nextCode())
      await page.getByRole('button', { name: 'Verify', exact: true }).click()
      await page.waitForURL((u) => u.pathname === '/dashboard/settings')
      const card = page.getByRole('region', { name: 'Change password' })
      await setNewPassword(card, NEW)
      await card.getByRole('button', { name: 'Update password' }).click()
      await toast(page, 'Password updated')
      await logout(page, viewport)

      // The reset link signs in at aal1: the code screen first, then the new password.
      await page.goto(`${url}/auth?mode=forgot`)
      await page.getByLabel('Email').fill(email)
      await page.getByRole('button', { name: 'Send reset link' }).click()
      await page.getByText('If an account exists for that address', { exact: false }).waitFor()
      const link = verifyLink(await mailTo(url, email, 'Reset your password'))
      await page.goto(link)
      await page.getByRole('heading', { level: 1, name: 'Two-factor authentication' }).waitFor()
      const here = new URL(page.url())
      expect(here.pathname === '/auth' && here.searchParams.get('redirect') === '/auth/reset-password', `at ${here}`)
      await page.getByTestId('mfa-factor-name').getByText('Walk phone', { exact: true }).waitFor()
      await page.getByLabel('6-digit code').fill(await nextCode())
      await page.getByRole('button', { name: 'Verify', exact: true }).click()
      await page.getByRole('heading', { level: 1, name: 'Set a new password' }).waitFor()
      const third = 'a-third-password-3'
      await setNewPassword(page, third)
      await page.getByRole('button', { name: 'Set new password' }).click()
      await toast(page, 'Password updated')
      await page.waitForURL((u) => u.pathname === '/dashboard')
      await logout(page, viewport)
      await refused(page, url, email, NEW)
      await passwordSignIn(page, url, email, third)
      await page.getByRole('heading', { level: 1, name: 'Two-factor authentication' }).waitFor()
    },
  },
  {
    name: 'password: sign-up confirmed by the mail link lands on "Email confirmed" with live notifications; or by its code',
    async run(page, { viewport }) {
      // A server of its own that asks new accounts to confirm their address.
      const mailboxToken = process.env.PLINTH_E2E_MAILBOX_TOKEN
      const own = await startPlinth({ name: 'confirm', env: { ENABLE_EMAIL_AUTOCONFIRM: 'false' } })
      try {
        const url = own.url
        const consoleErrors = []
        page.on('console', (m) => {
          if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(m.text())
        })
        const signUp = async (email) => {
          await page.goto(`${url}/auth?mode=sign-up`)
          await page.getByLabel('Display name').fill('Confirm Walker')
          await page.getByLabel('Email').fill(email)
          await page.getByLabel('Password').fill(OLD)
          await page.getByRole('button', { name: 'Create Account' }).click()
          await page.getByText('Confirm your e-mail', { exact: true }).waitFor()
          await expectNoSidewaysPan(page, 'the confirm-your-e-mail panel')
        }

        // (c) The link.
        const email = `e2e-confirm-${viewport}-${Date.now()}@example.com`
        await signUp(email)
        await checkA11y(page, { viewport, state: 'confirm your e-mail' })
        const link = verifyLink(await mailTo(url, email, 'Confirm your signup'))
        await page.goto(link)
        await page.waitForURL((u) => u.pathname === '/auth/confirmed')
        await page.getByRole('heading', { level: 1, name: 'Email confirmed' }).waitFor()
        await page.getByText('Your account is ready.').waitFor()
        await checkA11y(page, { viewport, who: 'creator', state: 'email confirmed' })

        // The tab follows the creator's channel at once: an approval arrives as a toast.
        const creator = await apiAccount(url, email, OLD)
        const title = `Confirmed ${viewport} ${Date.now().toString(36)}`
        const pending = await submitForReview(creator, title, { template_url: 'https://example.com/confirmed-walk-template' })
        const admin = await apiAccount(url, 'admin@demo.plinth.dev')
        await admin.rest('POST', 'rpc/admin_approve_template', { pending_template_id: pending })
        await page
          .locator('[data-sonner-toast]')
          .filter({ hasText: 'Template approved' })
          .getByText(`"${title}" has been approved and is now published.`)
          .waitFor()
        const refusedJoin = consoleErrors.filter((t) => t.includes('permissions to read from this Channel') || t.includes('following creator:'))
        expect(refusedJoin.length === 0, `the creator's channel was refused: ${refusedJoin.join(' | ')}`)

        // (d) The code from the mail, in place of the link.
        await logout(page, viewport)
        const second = `e2e-code-${viewport}-${Date.now()}@example.com`
        await signUp(second)
        const code = mailCode(await mailTo(url, second, 'Confirm your signup'))
        // Asked for again at once: the server's rate-limit message.
        await page.getByRole('button', { name: 'Send the e-mail again' }).click()
        await page.getByText(/For security purposes, you can only request this after \d+ seconds?\./).first().waitFor()
        await page.getByLabel('Code from the e-mail').fill(code)
        await page.getByRole('button', { name: 'Verify code' }).click()
        await page.waitForURL((u) => u.pathname === '/auth/confirmed')
        await page.getByRole('heading', { level: 1, name: 'Email confirmed' }).waitFor()
      } finally {
        process.env.PLINTH_E2E_MAILBOX_TOKEN = mailboxToken
        await own.stop()
      }
    },
  },
]
