// Browser walks of the accessibility checks (issue 24) that the screens walks
// (screens.mjs, which run axe-core on every screen of the route table) cannot
// make on a freshly loaded page:
// - axe-core on the menus, dialogs and forms that matter in their open state:
//   the header's menus (the phone's drawer, the desktop's dropdowns and the
//   account menu), the auth form with its errors, the guest's free-download
//   dialog, a toast, the checkout's card form after a decline, every tab of
//   the upload form with its required-field errors, the dashboard's phone
//   drawer, the delete confirmation and the admin's reject dialog;
// - visible focus: Tab through the first stops of a few screens, each one
//   must show a focus indicator (lib.mjs, expectFocusVisible);
// - reduced motion: under `prefers-reduced-motion: reduce` animations and
//   transitions are (near) zero, smooth scrolling is off, and the gallery's
//   magnifier lens does not follow the pointer.
// run.mjs fails a walk whose axe checks found a serious or critical violation.
import { appStarted, checkA11y, expect, expectFocusVisible, signIn } from '../lib.mjs'

const FREE = 'e0000000-0000-4000-8000-000000000001' // Calm Weekly Planner, Maya's
const LEO_PAID = 'e0000000-0000-4000-8000-000000000003' // Startup CRM, $19.00, Leo's
const LEO = 'leo@demo.plinth.dev'
const ADMIN = 'admin@demo.plinth.dev'
const PENDING = 'f1000000-0000-4000-8000-000000000001'

/** Opens `path` and waits for its level-1 heading (or `ready`) and a quiet network. */
async function open(page, url, path, ready) {
  await page.goto(url + path)
  await appStarted(page)
  const shown = (ready ? page.getByText(ready) : page.getByRole('heading', { level: 1 })).locator('visible=true').first()
  await shown.waitFor()
  await page.waitForLoadState('networkidle').catch(() => {})
}

/** The header's menu, open: the phone's drawer, or (desktop) the dropdown behind `trigger`. */
async function headerMenu(page, viewport, who, trigger) {
  if (viewport === 'phone') {
    await page.getByRole('button', { name: 'Open menu' }).click()
    await page.getByRole('dialog', { name: 'Menu' }).waitFor()
    await checkA11y(page, { viewport, who, state: 'mobile menu open' })
    await page.keyboard.press('Escape')
    await page.getByRole('dialog', { name: 'Menu' }).waitFor({ state: 'detached' })
  } else {
    await page.getByRole('button', { name: trigger }).click()
    await page.getByRole('menu').waitFor()
    await checkA11y(page, { viewport, who, state: `${trigger} open` })
    await page.keyboard.press('Escape')
    await page.getByRole('menu').waitFor({ state: 'detached' })
  }
}

/**
 * Tabs through `stops` focus stops of a freshly opened page, each of which
 * must show that it has focus; with `skip`, first through the skip link
 * (Tab, Enter) to the page's own content, past the header.
 */
async function tabThrough(page, stops, what, { skip = false } = {}) {
  const seen = []
  if (skip) {
    await page.keyboard.press('Tab')
    seen.push(await expectFocusVisible(page, `${what}, the skip link`))
    expect(seen[0].includes('Skip to content'), `${what}: the first stop is the skip link, saw ${seen[0]}`)
    await page.keyboard.press('Enter')
  }
  for (let i = 0; i < stops; i++) {
    await page.keyboard.press('Tab')
    seen.push(await expectFocusVisible(page, `${what}, Tab ${i + 1}`))
  }
  if (skip) {
    const inMain = await page.evaluate(() => !!document.activeElement?.closest('main'))
    expect(inMain, `${what}: after the skip link, Tab stays in the main content (at ${seen.at(-1)})`)
  }
  return seen
}

/** The running animations' and transitions' longest duration (ms) on the elements matching `selector`. */
function longestMotion(page, selector) {
  return page.evaluate((sel) => {
    const ms = (list) => Math.max(0, ...list.split(',').map((d) => (d.trim().endsWith('ms') ? parseFloat(d) : parseFloat(d) * 1000)))
    let longest = 0
    let count = 0
    for (const el of document.querySelectorAll(sel)) {
      const s = getComputedStyle(el)
      count++
      longest = Math.max(longest, s.animationName === 'none' ? 0 : ms(s.animationDuration), ms(s.transitionDuration))
    }
    return { longest, count }
  }, selector)
}

export const walks = [
  {
    name: 'accessibility: menus, dialogs and forms of a visitor pass axe in their open state',
    async run(page, { url, viewport }) {
      const who = 'visitor'
      await open(page, url, '/')
      await headerMenu(page, viewport, who, 'Discover menu')
      if (viewport === 'desktop') await headerMenu(page, viewport, who, 'Categories menu')

      // The sign-in and sign-up forms, sent empty: their errors shown.
      await open(page, url, '/auth?mode=sign-in', 'Welcome back')
      await page.getByRole('button', { name: 'Sign In', exact: true }).click()
      await page.getByRole('alert').filter({ hasText: 'Email is required' }).waitFor()
      await checkA11y(page, { viewport, who, state: 'sign-in errors' })
      await page.getByRole('tab', { name: 'Sign Up' }).click()
      await page.getByRole('button', { name: 'Create Account' }).click()
      await page.getByRole('alert').first().waitFor()
      await checkA11y(page, { viewport, who, state: 'sign-up errors' })

      // The guest's free download: the e-mail dialog, then its error.
      await open(page, url, `/template/${FREE}`)
      await page.getByTestId('price-card').getByRole('button', { name: 'Download Free' }).click()
      const dialog = page.getByRole('dialog', { name: 'Get Your Free Template' })
      await dialog.waitFor()
      await checkA11y(page, { viewport, who, state: 'free-download dialog open' })
      await dialog.getByRole('button', { name: 'Send Download Link' }).click()
      await dialog.getByRole('alert').filter({ hasText: 'Please enter your email.' }).waitFor()
      await checkA11y(page, { viewport, who, state: 'free-download dialog error' })
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'detached' })

      // A toast: a paid template bought without an e-mail.
      await open(page, url, `/template/${LEO_PAID}`)
      await page.getByTestId('price-card').getByRole('button', { name: 'Purchase & Download' }).click()
      await page.locator('[data-sonner-toast]').filter({ hasText: 'Please enter your email.' }).waitFor()
      // axe reads the colours as painted: wait until the toast has finished
      // fading in (mid-transition its text is blended with the page).
      await page.waitForFunction(() => {
        const toast = document.querySelector('[data-sonner-toast][data-mounted="true"]')
        return toast && getComputedStyle(toast).opacity === '1' && toast.getAnimations({ subtree: true }).length === 0
      })
      await checkA11y(page, { viewport, who, state: 'error toast shown' })

      // The checkout's card form after a declined card: its alert shown.
      const email = `e2e-a11y-${viewport}-${Date.now()}@example.com`
      await open(page, url, `/checkout?templateId=${LEO_PAID}&buyerEmail=${encodeURIComponent(email)}`, 'Pay & Download')
      await page.getByTestId('checkout-total').filter({ hasText: '$19.00' }).waitFor()
      await page.getByLabel('Card number').fill('4000 0000 0000 0002')
      await page.getByLabel('Expiry (MM/YY)').fill('12/39')
      await page.getByLabel('CVC').fill('123')
      await page.getByRole('button', { name: 'Pay & Download' }).click()
      await page.getByRole('alert').filter({ hasText: 'Your card was declined.' }).waitFor()
      await checkA11y(page, { viewport, who, state: 'card declined' })
    },
  },
  {
    name: 'accessibility: menus, dialogs and the upload form of a creator pass axe in their open state',
    async run(page, { url, viewport }) {
      const who = 'creator'
      await signIn(page, url, LEO)
      await open(page, url, '/')
      await headerMenu(page, viewport, who, 'Account menu')

      // Every tab of the upload form, after an attempt to submit it empty.
      await open(page, url, '/upload')
      await page.getByRole('tab', { name: 'Actions' }).click()
      await page.getByRole('button', { name: 'Submit for Review' }).click()
      await page.getByRole('tab', { name: 'General', selected: true }).waitFor()
      await page.locator('[aria-invalid="true"]').first().waitFor()
      await page.locator('[data-sonner-toast]').filter({ hasText: 'Please fill in all required fields.' }).waitFor()
      await checkA11y(page, { viewport, who, state: 'upload General, required errors' })
      for (const tab of ['Visuals', 'Features', 'Pricing', 'Actions']) {
        await page.getByRole('tab', { name: tab }).click()
        await page.getByRole('tab', { name: tab, selected: true }).waitFor()
        await checkA11y(page, { viewport, who, state: `upload ${tab}` })
      }

      // My Templates: the delete confirmation, and the phone's dashboard drawer.
      await open(page, url, '/dashboard/templates?tab=draft')
      await page.getByRole('button', { name: /^Delete / }).first().click()
      await page.getByRole('alertdialog').waitFor()
      await checkA11y(page, { viewport, who, state: 'delete confirmation open' })
      await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel' }).click()
      await page.getByRole('alertdialog').waitFor({ state: 'detached' })
      if (viewport === 'phone') {
        await page.getByRole('button', { name: 'Open dashboard menu' }).click()
        await page.getByRole('dialog', { name: 'Dashboard menu' }).waitFor()
        await checkA11y(page, { viewport, who, state: 'dashboard menu open' })
      }
    },
  },
  {
    name: "accessibility: the admin's review page and its reject dialog pass axe",
    async run(page, { url, viewport }) {
      const who = 'admin'
      await signIn(page, url, ADMIN)
      await open(page, url, `/dashboard/admin/template/${PENDING}`)
      await page.getByRole('button', { name: 'Reject Template' }).click()
      const dialog = page.getByRole('dialog', { name: /^Reject "/ })
      await dialog.waitFor()
      await checkA11y(page, { viewport, who, state: 'reject dialog open' })
    },
  },
  {
    name: 'accessibility: every focus stop shows visible focus (header, auth form, template page)',
    async run(page, { url, viewport }) {
      // The skip link, the logo, the header's entries ...; then the page's
      // own controls, past the skip link.
      await open(page, url, '/')
      const home = await tabThrough(page, viewport === 'phone' ? 4 : 9, 'home')
      expect(home[0].includes('Skip to content'), `the first stop is the skip link, saw ${home[0]}`)
      // (On the phone the keyboard walk goes through the auth form.)
      if (viewport === 'desktop') {
        await open(page, url, '/auth?mode=sign-in', 'Welcome back')
        await tabThrough(page, 6, 'sign-in', { skip: true })
      }
      await open(page, url, `/template/${LEO_PAID}`)
      await tabThrough(page, 8, 'template page', { skip: true })
      await open(page, url, '/discover')
      await tabThrough(page, 8, 'discover', { skip: true })

      // The check itself tells a missing indicator: a button without outline or ring fails it.
      await page.evaluate(() => {
        const probe = document.createElement('button')
        probe.textContent = 'probe'
        probe.style.outline = 'none'
        document.querySelector('main').prepend(probe)
        document.getElementById('main').focus()
      })
      await page.keyboard.press('Tab')
      const caught = await expectFocusVisible(page, 'the probe').then(
        () => null,
        (error) => error.message,
      )
      expect(caught?.includes('shows no visible focus indicator'), `a button without a focus indicator is caught, saw ${caught}`)
    },
  },
  {
    name: 'accessibility: under prefers-reduced-motion animations and transitions stop, the magnifier stays still',
    async run(page, { url, viewport }) {
      await page.emulateMedia({ reducedMotion: 'reduce' })
      await open(page, url, `/template/${FREE}`)
      expect(await page.evaluate(() => matchMedia('(prefers-reduced-motion: reduce)').matches), 'the browser reports reduced motion')
      // Everything: buttons' colour transitions, cards' hover lifts, spinners, pulses.
      const all = await longestMotion(page, '*')
      expect(all.count > 100 && all.longest <= 10, `the longest animation or transition lasts ${all.longest} ms over ${all.count} elements`)
      // A spinner and a skeleton while something loads: stalled templates.
      const stalled = (u) => u.pathname.startsWith('/rest/v1/')
      await page.route(stalled, async (route) => {
        await new Promise((ok) => setTimeout(ok, 1500))
        await route.continue().catch(() => {})
      })
      await page.goto(`${url}/discover`)
      await page.locator('.animate-pulse, .animate-spin').first().waitFor()
      const loading = await longestMotion(page, '.animate-pulse, .animate-spin')
      expect(loading.count > 0 && loading.longest <= 10, `loading indicators animate for ${loading.longest} ms (${loading.count})`)
      await page.unroute(stalled)
      expect(
        (await page.evaluate(() => getComputedStyle(document.documentElement).scrollBehavior)) !== 'smooth',
        'smooth scrolling is off',
      )
      // A toast slides in with no transition.
      await open(page, url, `/template/${LEO_PAID}`)
      await page.getByTestId('price-card').getByRole('button', { name: 'Purchase & Download' }).click()
      await page.locator('[data-sonner-toast]').first().waitFor()
      const toast = await longestMotion(page, '[data-sonner-toast]')
      expect(toast.longest <= 10, `the toast moves for ${toast.longest} ms`)
      // The gallery's magnifier does not follow the pointer.
      if (viewport === 'desktop') {
        await open(page, url, `/template/${FREE}`)
        const main = page.getByTestId('gallery-main')
        await main.hover({ position: { x: 60, y: 60 } })
        await page.mouse.move(120, 90, { steps: 3 })
        await main.hover({ position: { x: 100, y: 80 } })
        await page.waitForTimeout(100)
        expect((await page.getByTestId('magnifier-lens').count()) === 0, 'no magnifier lens under reduced motion')
        // And with motion allowed, it does (the check above could fail).
        await page.emulateMedia({ reducedMotion: 'no-preference' })
        await main.hover({ position: { x: 110, y: 90 } })
        await page.getByTestId('magnifier-lens').waitFor()
      }
    },
  },
]
