// Browser walks of the dashboard's account screens: Profile (display name,
// username set once, bio, a social link, an avatar seen in the header),
// Audience (follow a demo creator, see and unfollow them; a follower),
// Wishlist, and Settings (the payment profile with the simulated provider).
// Every walk makes its own account; the demo rows it touches (a follow of a
// demo creator, a wishlist row) are removed again before it ends.
import { apiVisitor, expect, signIn, visit } from '../lib.mjs'

const PASSWORD = 'a-long-password-1'
// A 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)
const HABIT_TRACKER = 'e0000000-0000-4000-8000-000000000007'

async function toast(page, text) {
  await page.getByText(text, { exact: true }).first().waitFor()
}

/** A fresh account made through the API, signed in through the UI at `path`. */
async function freshAccount(page, url, viewport, what, path) {
  const email = `e2e-${what}-${viewport}-${Date.now()}@example.com`
  const visitor = await apiVisitor(url, email)
  await signIn(page, url, email, PASSWORD, path)
  await page.waitForURL((u) => u.pathname + u.search === path)
  return visitor
}

export const walks = [
  {
    name: 'account: a new account edits its profile and sees its avatar in the header',
    async run(page, { url, viewport }) {
      const stamp = Date.now()
      const email = `e2e-profile-${viewport}-${stamp}@example.com`
      await page.goto(url + '/auth?mode=sign-up')
      await page.getByLabel('Display name').fill('Walker Before')
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Create Account' }).click()
      await page.waitForURL((u) => u.pathname === '/')
      await page.getByRole('button', { name: 'Account menu' }).waitFor()

      await visit(page, url, '/dashboard/profile')
      await page.getByRole('heading', { level: 1, name: 'Profile' }).waitFor()

      const name = `Walker ${viewport} ${stamp}`
      const displayName = page.getByRole('region', { name: 'Display Name' })
      expect((await displayName.getByLabel('Display name').inputValue()) === 'Walker Before', 'the sign-up display name is shown')
      await displayName.getByLabel('Display name').fill(name)
      await displayName.getByRole('button', { name: 'Save display name' }).click()
      await toast(page, 'Display name updated successfully')

      const username = `w-${viewport}-${stamp}`
      const usernameRegion = page.getByRole('region', { name: 'Username' })
      await usernameRegion.getByLabel('Username').fill(`W-${viewport}`.toUpperCase() + '!')
      await usernameRegion.getByText('Username can only contain lowercase letters, numbers, underscores, and hyphens').waitFor()
      await usernameRegion.getByLabel('Username').fill('mayachen')
      await usernameRegion.getByRole('button', { name: 'Save username' }).click()
      await usernameRegion.getByText('This username is already taken. Please choose another.').waitFor()
      await usernameRegion.getByLabel('Username').fill(username)
      await usernameRegion.getByRole('button', { name: 'Save username' }).click()
      await toast(page, 'Username updated successfully')
      await usernameRegion.getByTestId('username-locked').waitFor()
      expect(await usernameRegion.getByLabel('Username').isDisabled(), 'the username is locked once set')
      expect((await usernameRegion.getByLabel('Username').inputValue()) === username, 'the locked username is shown')

      const bio = page.getByRole('region', { name: 'Bio' })
      await bio.getByLabel('Bio').fill('I walk through dashboards.')
      await bio.getByRole('button', { name: 'Save bio' }).click()
      await toast(page, 'Bio updated successfully')

      const social = page.getByRole('region', { name: 'Social Links' })
      await social.getByLabel('Website').fill('https://example.com/walker')
      await social.getByRole('button', { name: 'Save social links' }).click()
      await toast(page, 'Social links updated successfully')

      await page.getByLabel('Profile picture file').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG })
      await toast(page, 'Image is smaller than recommended size (400x400px). This may affect quality.')
      await toast(page, 'Avatar updated successfully')
      const headerAvatar = page.getByRole('banner').getByRole('img', { name: `${name}'s avatar` })
      await headerAvatar.waitFor()
      const src = await headerAvatar.getAttribute('src')
      // a 96x96 rendition of the upload, not the upload itself
      expect(
        /\/storage\/v1\/render\/image\/public\/avatars\/[0-9a-f-]{36}\/\d+-[a-z0-9]+\.png\?width=96&height=96&resize=cover$/.test(src ?? ''),
        `the header shows a rendition of the uploaded avatar (${src})`,
      )
      const image = await page.request.get(src)
      expect(image.ok() && /^image\//.test(image.headers()['content-type'] ?? ''), 'the rendition is an image')
      const stored = await page.request.get(src.split('?')[0].replace('/render/image/public/', '/object/public/'))
      expect(stored.ok() && (await stored.body()).equals(PNG), 'the stored avatar is the uploaded file')

      // What was saved is what the public profile shows.
      await visit(page, url, `/profile/${username}`)
      await page.getByRole('heading', { level: 1, name }).waitFor()
      await page.getByText('I walk through dashboards.').waitFor()
      await page.getByRole('link', { name: /Website/ }).waitFor()
    },
  },
  {
    name: 'account: follow a demo creator, see them on the Following tab and unfollow',
    async run(page, { url, viewport }) {
      const me = await freshAccount(page, url, viewport, 'audience', '/profile/samfit')
      await page.getByRole('heading', { level: 1, name: 'Sam Rivera' }).waitFor()
      await page.getByRole('button', { name: 'Follow', exact: true }).click()
      await page.getByRole('button', { name: 'Following', exact: true }).waitFor()
      // Someone without a profile name follows the new account.
      const fan = await apiVisitor(url, `e2e-fan-${viewport}-${Date.now()}@example.com`)
      await fan.rest('POST', 'followers', { follower_id: fan.id, following_id: me.id })

      await visit(page, url, '/dashboard/audience')
      await page.getByRole('tab', { name: 'Followers (1)' }).waitFor()
      const fanRow = page.getByRole('tabpanel').getByRole('listitem')
      await fanRow.getByText(/^Followed you/).waitFor()
      expect((await fanRow.getByRole('link').getAttribute('href')) === `/profile/${fan.id}`, 'a follower without a username links by id')

      await page.getByRole('tab', { name: 'Following (1)' }).click()
      await page.waitForURL(/tab=following/)
      const row = page.getByRole('tabpanel').getByRole('listitem')
      await row.getByText('Sam Rivera').waitFor()
      await row.getByText(/^Following since/).waitFor()
      expect((await row.getByRole('link').getAttribute('href')) === '/profile/samfit', 'the row links to the profile by username')
      await row.getByRole('button', { name: 'Unfollow Sam Rivera' }).click()
      await toast(page, 'Unfollowed successfully')
      await page.getByRole('tab', { name: 'Following (0)' }).waitFor()

      // The profile agrees.
      await visit(page, url, '/profile/samfit')
      await page.getByRole('button', { name: 'Follow', exact: true }).waitFor()
    },
  },
  {
    name: 'account: wishlist a demo template and find it on the Wishlist screen',
    async run(page, { url, viewport }) {
      await freshAccount(page, url, viewport, 'wishlist', '/dashboard/wishlist')
      await page.getByText('No Wishlisted Templates').waitFor()
      await visit(page, url, `/template/${HABIT_TRACKER}`)
      await page.getByRole('heading', { level: 1, name: 'Habit Tracker' }).waitFor()
      await page.getByRole('button', { name: 'Wishlist', exact: true }).click()
      await toast(page, 'Added to Wishlist')
      await page.getByRole('button', { name: 'Wishlisted', exact: true }).waitFor()

      await visit(page, url, '/dashboard/wishlist')
      const card = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'Habit Tracker' }) })
      await card.waitFor()
      expect((await page.getByRole('article').count()) === 1, 'one saved template')
      // Leave the demo template as it was: open it from the card and remove it.
      await card.getByRole('link', { name: 'Habit Tracker' }).click()
      await page.waitForURL(`**/template/${HABIT_TRACKER}`)
      await page.getByRole('button', { name: 'Wishlisted', exact: true }).click()
      await toast(page, 'Removed from Wishlist')
      await visit(page, url, '/dashboard/wishlist')
      await page.getByText('No Wishlisted Templates').waitFor()
    },
  },
  {
    name: 'account: connect the payment profile with the simulated provider',
    async run(page, { url, viewport }) {
      await freshAccount(page, url, viewport, 'payments', '/dashboard/settings')
      const card = page.getByRole('region', { name: 'Payment Profile' })
      await card.getByText('Not connected').waitFor()
      await page.getByRole('region', { name: 'Crypto Payments' }).getByText('Premium', { exact: true }).waitFor()

      const stored = page.waitForResponse((r) => r.url().endsWith('/api/user/update-stripe-account'))
      await card.getByRole('button', { name: 'Connect with Stripe' }).click()
      // The simulated provider's onboarding is instant: straight back with the account id.
      await page.waitForURL(/\/dashboard\/settings\?stripe_account=acct_sim_/)
      const response = await stored
      expect(response.ok(), `storing the account answered ${response.status()}`)
      await page.waitForURL((u) => u.pathname === '/dashboard/settings' && u.search === '')
      await card.getByText('Connected', { exact: true }).waitFor()
      const connected = (await card.getByTestId('payment-connected').textContent()) ?? ''
      expect(/acct_sim_\w+/.test(connected), `the connected account is shown (${connected})`)
      await card.getByTestId('payment-issue').waitFor({ state: 'detached' })
      expect((await card.getByRole('alert').count()) === 0, 'no payment alert')
    },
  },
]
