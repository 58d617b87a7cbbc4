// A keyboard-only browser walk (issue 24): sign-in, upload and the checkout
// of a paid template with nothing but page.keyboard (Tab, Shift+Tab, Enter,
// Space, typing, Escape): no mouse, no locator.click() or fill(). The page is
// only opened by address (page.goto, as typed into the address bar) at the
// start and for the template to buy. Each step asserts what the person sees,
// and each element reached shows visible focus (lib.mjs, expectFocusVisible).
//
// The account is a new one (signed up through the API, outside the browser)
// rather than a demo user, so that its upload and its order leave the demo
// data the other walks read as it was. It signs in through the header's
// "Sign In" (the phone's: in the menu drawer).
//
// File inputs: a file chooser is the operating system's dialog, which the
// browser cannot drive with keys; the walk reaches each file input by Tab and
// then sets its file with setInputFiles on the focused input (`:focus`).
import { apiVisitor, appStarted, expect, expectFocusVisible } from '../lib.mjs'

const LEO_PAID = 'e0000000-0000-4000-8000-000000000003' // Startup CRM, $19.00, Leo's
const PASSWORD = 'a-long-password-1'
// A valid 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)

/** What has focus: tag, id, role and a name (aria-label, a label's text, or its own text). */
function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement
    if (!el || el === document.body) return null
    const byIds = el
      .getAttribute('aria-labelledby')
      ?.split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ')
    const name = el.getAttribute('aria-label') ?? byIds ?? el.labels?.[0]?.textContent ?? el.textContent ?? ''
    return {
      tag: el.tagName.toLowerCase(),
      id: el.id,
      role: el.getAttribute('role') ?? '',
      name: name.trim().replace(/\s+/g, ' '),
    }
  })
}

function matches(el, want) {
  if (!el) return false
  if (want.id && el.id !== want.id) return false
  if (want.tag && el.tag !== want.tag) return false
  if (want.role !== undefined && el.role !== want.role) return false
  if (want.name instanceof RegExp) return want.name.test(el.name)
  if (want.name !== undefined) return el.name === want.name
  return true
}

/**
 * Presses Tab (Shift+Tab with `back`) until the focused element is `want`
 * ({ id, tag, role, name }), at most `max` times; then checks that it shows
 * visible focus (unless `check` is false).
 */
async function tabTo(page, want, what, { max = 60, back = false, check = true } = {}) {
  const trail = []
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab')
    const el = await focused(page)
    if (matches(el, want)) {
      if (check) await expectFocusVisible(page, what)
      return el
    }
    trail.push(el ? `${el.tag}${el.id ? `#${el.id}` : ''} "${el.name.slice(0, 30)}"` : '(nothing)')
  }
  throw new Error(`${what}: not reached by ${back ? 'Shift+Tab' : 'Tab'} in ${max} presses; passed ${trail.slice(-12).join(', ')}`)
}

/** Waits until `locator` (its first match) is shown; fails naming `what` and the page. */
async function shown(page, locator, what) {
  try {
    await locator.first().waitFor()
  } catch {
    throw new Error(`${what} was not shown (at ${page.url()})`)
  }
}

export const walks = [
  {
    name: 'keyboard: sign in, upload a template and buy one with the keyboard alone, focus always visible',
    async run(page, { url, viewport }) {
      const stamp = Date.now()
      const email = `e2e-keyboard-${viewport}-${stamp}@example.com`
      const title = `Keys ${viewport} ${stamp % 1_000_000}`
      const account = await apiVisitor(url, email)

      // --- Sign in: from the header to the auth form.
      await page.goto(url + '/')
      await appStarted(page)
      await shown(page, page.getByRole('heading', { level: 1 }), 'the home page')
      const first = await tabTo(page, {}, 'the first Tab')
      expect(first.name === 'Skip to content', `the first Tab reaches the skip link, saw ${first.name}`)
      if (viewport === 'phone') {
        await tabTo(page, { name: 'Open menu' }, 'the menu button')
        await page.keyboard.press('Enter')
        await shown(page, page.getByRole('dialog', { name: 'Menu' }), 'the menu drawer')
        await tabTo(page, { tag: 'a', name: 'Sign In' }, "the drawer's Sign In")
      } else {
        await tabTo(page, { tag: 'a', name: 'Sign In' }, "the header's Sign In")
      }
      await page.keyboard.press('Enter')
      await page.waitForURL((u) => u.pathname === '/auth' && u.searchParams.get('mode') === 'sign-in')
      await shown(page, page.getByRole('heading', { name: 'Welcome back' }), 'the sign-in form')
      await tabTo(page, { id: 'sign-in-email' }, 'the e-mail field')
      await page.keyboard.type(email)
      await tabTo(page, { id: 'sign-in-password' }, 'the password field')
      await page.keyboard.type(PASSWORD)
      await page.keyboard.press('Enter')
      await page.waitForURL((u) => u.pathname !== '/auth')
      await shown(page, page.getByText("You've been signed in successfully."), 'the signed-in toast')
      await shown(page, page.getByRole('button', { name: 'Account menu' }), 'the account menu button')
      // The form that had focus is gone: focus went to the new screen's main content (useFocusAfterNavigation).
      await page.waitForFunction(() => document.activeElement?.id === 'main')

      // --- Upload: back up from the main content to the header's Upload, then the form, filled and submitted.
      if (viewport === 'phone') {
        // The header's Upload button is hidden on a phone: the drawer has it.
        await tabTo(page, { name: 'Open menu' }, 'the menu button', { back: true, max: 6 })
        await page.keyboard.press('Enter')
        await shown(page, page.getByRole('dialog', { name: 'Menu' }), 'the menu drawer')
        await tabTo(page, { tag: 'a', name: 'Upload' }, "the drawer's Upload")
      } else {
        await tabTo(page, { tag: 'button', name: 'Upload' }, "the header's Upload", { back: true, max: 4 })
      }
      await page.keyboard.press('Enter')
      await page.waitForURL((u) => u.pathname === '/upload')
      await shown(page, page.getByRole('heading', { level: 1, name: 'Upload Template' }), 'the upload form')
      await tabTo(page, { id: 'upload-title' }, 'the title field')
      await page.keyboard.type(title)
      await tabTo(page, { id: 'upload-description' }, 'the short description')
      await page.keyboard.type('A template uploaded with the keyboard alone.')
      const category = await tabTo(page, { id: 'upload-category' }, 'the category')
      // A closed select takes type-ahead: the option starting with what is typed.
      await page.waitForFunction((id) => document.getElementById(id)?.options.length > 1, category.id)
      await page.keyboard.type('Productivity')
      const chosen = await page.evaluate(() => document.activeElement.selectedOptions[0]?.textContent)
      expect(chosen === 'Productivity', `the category chosen by typing is Productivity, saw ${chosen}`)

      await tabTo(page, { tag: 'button', name: 'Next: Visuals' }, 'Next: Visuals')
      await page.keyboard.press('Enter')
      await shown(page, page.getByRole('tab', { name: 'Visuals', selected: true }), 'the Visuals tab')
      await tabTo(page, { id: 'upload-main-preview' }, 'the main preview input')
      await page.locator(':focus').setInputFiles({ name: 'keys.png', mimeType: 'image/png', buffer: PNG })
      await shown(page, page.getByRole('img', { name: 'Main preview' }), 'the main preview')
      await tabTo(page, { id: 'upload-template-file' }, 'the template file input')
      await page.locator(':focus').setInputFiles({ name: 'keys.zip', mimeType: 'application/zip', buffer: Buffer.from('PK\u0005\u0006keys') })
      await shown(page, page.getByTestId('template-file-name').filter({ hasText: 'keys.zip' }), 'the template file name')

      for (const [from, to] of [
        ['Visuals', 'Features'],
        ['Features', 'Pricing'],
        ['Pricing', 'Actions'],
      ]) {
        await tabTo(page, { tag: 'button', name: `Next: ${to}` }, `Next: ${to} (from ${from})`)
        await page.keyboard.press(to === 'Pricing' ? 'Space' : 'Enter')
        await shown(page, page.getByRole('tab', { name: to, selected: true }), `the ${to} tab`)
      }
      await tabTo(page, { tag: 'button', name: 'Submit for Review' }, 'Submit for Review')
      await page.keyboard.press('Enter')
      await page.waitForURL((u) => u.pathname === '/dashboard/templates')
      await shown(page, page.getByText('Your template has been submitted for approval.'), 'the submitted toast')
      await shown(page, page.getByRole('article', { name: title }), 'the submitted template in My Templates')
      const pending = await account.get(`templates_pending_approval?select=title,status&title=eq.${encodeURIComponent(title)}`)
      expect(pending.length === 1 && pending[0].status === 'Pending Approval', `one pending row, saw ${JSON.stringify(pending)}`)

      // --- Checkout of a paid template.
      await page.goto(`${url}/template/${LEO_PAID}`)
      await shown(page, page.getByTestId('price').filter({ hasText: '$19.00' }), 'the price')
      await tabTo(page, { tag: 'button', name: 'Purchase & Download' }, 'Purchase & Download')
      await page.keyboard.press('Enter')
      await page.waitForURL((u) => u.pathname === '/checkout' && u.searchParams.get('buyerEmail') === email)
      await shown(page, page.getByTestId('checkout-total').filter({ hasText: '$19.00' }), 'the checkout total')
      await tabTo(page, { id: 'card-number' }, 'the card number')
      await page.keyboard.type('4242 4242 4242 4242')
      await tabTo(page, { id: 'card-expiry' }, 'the expiry')
      await page.keyboard.type('12/39')
      await tabTo(page, { id: 'card-cvc' }, 'the CVC')
      await page.keyboard.type('123')
      await tabTo(page, { tag: 'button', name: 'Pay & Download' }, 'Pay & Download')
      await page.keyboard.press('Enter')
      await shown(page, page.getByText('Payment successful!'), 'the payment confirmation')
      await page.waitForURL((u) => u.pathname.startsWith('/download-secure/') && u.searchParams.has('token'))
      await shown(page, page.getByRole('heading', { name: 'Your download is ready' }), 'the download page')
      await tabTo(page, { tag: 'a', name: 'Download File' }, 'Download File')

      // --- The account menu opens and closes with keys (desktop), or the drawer with Escape (phone).
      if (viewport === 'desktop') {
        await tabTo(page, { name: 'Account menu' }, 'the account menu button', { back: true })
        await page.keyboard.press('Enter')
        await shown(page, page.getByRole('menu'), 'the account menu')
        await page.keyboard.press('ArrowDown')
        const item = await focused(page)
        expect(item?.role === 'menuitem', `a menu item has focus, saw ${JSON.stringify(item)}`)
        expect(
          await page.evaluate(() => document.activeElement.hasAttribute('data-highlighted')),
          'the focused menu item is highlighted',
        )
        await page.keyboard.press('Escape')
        await page.getByRole('menu').waitFor({ state: 'detached' })
        await page
          .waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Account menu', null, { timeout: 3000 })
          .catch(async () => expect(false, `Escape returns focus to the account menu button, saw ${JSON.stringify(await focused(page))}`))
      } else {
        await tabTo(page, { name: 'Open menu' }, 'the menu button', { back: true })
        await page.keyboard.press('Enter')
        await shown(page, page.getByRole('dialog', { name: 'Menu' }), 'the menu drawer')
        await page.keyboard.press('Escape')
        await page.getByRole('dialog', { name: 'Menu' }).waitFor({ state: 'detached' })
        await page
          .waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Open menu', null, { timeout: 3000 })
          .catch(async () => expect(false, `Escape returns focus to the menu button, saw ${JSON.stringify(await focused(page))}`))
      }
    },
  },
]
