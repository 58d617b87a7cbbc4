// Users: search, create, ban and unban, sessions (and signing a user out
// everywhere), a recovery e-mail that lands in the dev mailbox, delete.
import { anonKey, consoleApi, expect, expectNoSidewaysPan, screenshot, signIn, toast, unique, waitUntil } from '../lib.mjs'

/**
 * Where the link's text wraps onto a new line, as `before|after`, for each
 * wrap that is not before "@" or "." or after "-" (a break inside a word;
 * issue 44: e-mails were cut mid-word at 375 px). Measured per character.
 */
async function wrapsInsideWords(link) {
  return link.evaluate((el) => {
    const chars = []
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange()
        range.setStart(node, i)
        range.setEnd(node, i + 1)
        chars.push({ c: node.data[i], top: Math.round(range.getBoundingClientRect().top) })
      }
    }
    const text = chars.map((x) => x.c).join('')
    const bad = []
    for (let i = 1; i < chars.length; i++) {
      const wrapped = chars[i].top > chars[i - 1].top + 2
      if (wrapped && !['@', '.'].includes(chars[i].c) && chars[i - 1].c !== '-') bad.push(`${text.slice(0, i)}|${text.slice(i)}`)
    }
    return bad
  })
}

async function search(page, text) {
  await page.getByLabel('Search').fill(text)
  await page.waitForURL((u) => (u.searchParams.get('q') ?? '') === text)
}

export const walks = [
  {
    name: 'users',
    async run(page, ctx) {
      await signIn(page, ctx)
      const table = page.getByRole('region', { name: 'Users' })
      await table.getByRole('link', { name: 'maya@demo.plinth.dev' }).waitFor()

      await search(page, 'leo@demo')
      await table.getByRole('link', { name: 'leo@demo.plinth.dev' }).waitFor()
      await waitUntil(async () => (await table.getByRole('link', { name: 'maya@demo.plinth.dev' }).count()) === 0, 'the search to leave only leo')
      await page.getByLabel('Status').selectOption('banned')
      await page.getByText('No users match.').waitFor()
      await page.getByLabel('Status').selectOption('')
      await page.getByLabel('Provider').selectOption('email')
      await table.getByRole('link', { name: 'leo@demo.plinth.dev' }).waitFor()
      await page.getByLabel('Provider').selectOption('')
      await search(page, '')
      await expectNoSidewaysPan(page, 'the users list')
      // A link to a page past the last one lands on the last one.
      const pastEnd = new URL(page.url())
      pastEnd.searchParams.set('page', '40')
      await page.goto(pastEnd.toString())
      await page.waitForURL((u) => !u.searchParams.has('page'))
      await page.getByText('Page 1 of 1').waitFor()
      await table.getByRole('link', { name: 'maya@demo.plinth.dev' }).waitFor()

      // Invite: the invitation lands in the dev mailbox.
      const invited = `${unique(`invited-${ctx.viewport}`)}@example.test`
      await page.getByRole('button', { name: 'Invite user' }).click()
      const invite = page.getByRole('dialog', { name: 'Invite user' })
      await invite.getByLabel('Email').fill(invited)
      await invite.getByRole('button', { name: 'Send invitation' }).click()
      await toast(page, 'Invitation sent')
      await waitUntil(async () => {
        const { status, body } = await consoleApi(page, ctx).get(`/mailbox?to=${encodeURIComponent(invited)}`)
        return status === 200 && body.messages.some((m) => m.to === invited)
      }, 'the invitation in the mailbox')
      await search(page, invited)
      await page.getByRole('region', { name: 'Users' }).getByRole('link', { name: invited }).waitFor()
      const brokenInvited = await wrapsInsideWords(table.getByRole('link', { name: invited }))
      expect(brokenInvited.length === 0, `an e-mail wraps inside a word: ${brokenInvited.join(', ')}`)
      await search(page, '')
      await screenshot(page, 'users')

      // Create (a long address: the list wraps it before "@" or ".", never inside a word)
      const email = `${unique(`console-${ctx.viewport}`)}.with.a.longer.address@example-domain.test`
      const password = 'a-long-password-1'
      await page.getByRole('button', { name: 'Create user' }).click()
      const dialog = page.getByRole('dialog', { name: 'Create user' })
      await dialog.getByLabel('Email').fill(email)
      await dialog.getByLabel('Password').fill(password)
      await dialog.getByRole('button', { name: 'Create user' }).click()
      await toast(page, 'User created')
      await search(page, email)
      await table.getByRole('link', { name: email }).waitFor()
      const broken = await wrapsInsideWords(table.getByRole('link', { name: email }))
      expect(broken.length === 0, `an e-mail wraps inside a word: ${broken.join(', ')}`)
      await expectNoSidewaysPan(page, 'the users list with a long e-mail')
      await table.getByRole('link', { name: email }).click()
      await page.getByRole('heading', { level: 1, name: email }).waitFor()
      await page.getByText('active', { exact: true }).first().waitFor()
      await page.getByText('No active sessions.').waitFor()

      // Ban and unban
      await page.getByRole('button', { name: 'Ban', exact: true }).click()
      await toast(page, 'User banned')
      await page.getByRole('button', { name: 'Unban' }).waitFor()
      await page.getByText('banned', { exact: true }).first().waitFor()
      await page.getByRole('button', { name: 'Unban' }).click()
      await toast(page, 'User unbanned')
      await page.getByRole('button', { name: 'Ban', exact: true }).waitFor()

      // A session of the user (signed in through the API), then signed out everywhere
      const key = await anonKey(page, ctx)
      const signedIn = await fetch(`${ctx.url}/auth/v1/token?grant_type=password`, {
        method: 'POST',
        headers: { apikey: key, 'content-type': 'application/json', 'user-agent': 'console-e2e' },
        body: JSON.stringify({ email, password }),
      })
      expect(signedIn.ok, `the user's sign-in answered ${signedIn.status}`)
      await page.reload()
      const sessions = page.getByRole('region', { name: 'Sessions' })
      await sessions.getByRole('row').nth(1).waitFor()
      await page.getByRole('button', { name: 'Sign out everywhere' }).click()
      await page.getByRole('alertdialog').getByRole('button', { name: 'Sign out everywhere' }).click()
      await toast(page, 'Signed out everywhere')
      await page.getByText('No active sessions.').waitFor()
      await expectNoSidewaysPan(page, 'a user')

      // Recovery e-mail, seen in the dev mailbox
      await page.getByRole('button', { name: 'Send recovery e-mail' }).click()
      await toast(page, 'Recovery e-mail sent')
      const api = consoleApi(page, ctx)
      await waitUntil(async () => {
        const { status, body } = await api.get(`/mailbox?to=${encodeURIComponent(email)}`)
        return status === 200 && body.messages.some((m) => m.to === email)
      }, 'the recovery e-mail in the mailbox')

      // Identities: the e-mail one.
      await page.getByRole('region', { name: 'Identities' }).getByText('email', { exact: true }).waitFor()

      // Delete
      await page.getByRole('button', { name: 'Delete user' }).click()
      await page.getByRole('alertdialog').getByRole('button', { name: 'Delete user' }).click()
      await toast(page, 'User deleted')
      await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor()
      await search(page, email)
      await page.getByText('No users match.').waitFor()
    },
  },
]
