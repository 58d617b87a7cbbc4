// Issue 44, item 4: the browse lists are paged. The walk puts 205 published
// templates of 30 creators into the walks' database (once: fixed ids, a
// category of their own, dated a year back so the demo's lists keep their
// newest first), then on Discover, the category, Creators and a profile:
// a page holds PAGE_SIZE cards, "Showing 1–24 of N" with N the true count,
// the pager's page 2 puts ?page=2 in the URL and shows other cards, Back
// returns to page 1, a shared ?page=3 opens page 3, a filter goes back to
// page 1; on the phone two cards a row and no sideways pan.
import { checkA11y, expect, expectNoSidewaysPan } from '../lib.mjs'

const PAGE_SIZE = 24
const CATEGORY = 'paging-walk'
const CREATORS = 30
const TEMPLATES = 205
// Creator 0 has 60 of them (three pages on the profile); the others 5 each.
const BUSY_CREATOR = 'pager-00'
const BUSY_COUNT = 60

async function seed(sql) {
  await sql(
    `insert into public.categories (id, name, slug, description)
     values ('c0000000-0000-4000-8000-0000000000aa', 'Paging Walk', $1, 'The paging walk''s templates.')
     on conflict do nothing`,
    [CATEGORY],
  )
  await sql(
    `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
                             raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
     select '00000000-0000-0000-0000-000000000000',
            ('a0000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid,
            'authenticated', 'authenticated', 'pager-' || lpad(i::text, 2, '0') || '@walk.plinth.dev', '', now(),
            '{"provider":"email","providers":["email"]}',
            jsonb_build_object('display_name', 'Pager ' || lpad(i::text, 2, '0')),
            now() - interval '400 days', now() - interval '400 days'
       from generate_series(0, $1::int - 1) i
     on conflict (id) do nothing`,
    [CREATORS],
  )
  await sql(
    `update public.profiles set username = 'pager-' || right(id::text, 2)
      where id::text like 'a0000000-0000-4000-8000-%' and username is null`,
  )
  await sql(
    `insert into public.templates (id, user_id, title, description, price, price_in_cents, category_id,
                                   downloads_count, average_rating, total_ratings, author, created_at, updated_at)
     select ('b0000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid,
            ('a0000000-0000-4000-8000-' || lpad((case when i < $2::int then 0 else 1 + (i - $2::int) % ($3::int - 1) end)::text, 12, '0'))::uuid,
            'Paged ' || lpad(i::text, 3, '0'), 'One of the paging walk''s templates.',
            (i % 2) * 3, (i % 2) * 300, 'c0000000-0000-4000-8000-0000000000aa',
            i, case when i % 3 = 0 then 4.5 else 0 end, case when i % 3 = 0 then 2 else 0 end,
            'Pager', now() - interval '1 year' - i * interval '1 hour', now() - interval '1 year'
       from generate_series(0, $1::int - 1) i
     on conflict (id) do nothing`,
    [TEMPLATES, BUSY_COUNT, CREATORS],
  )
}

async function poll(test, what, ms = 15_000) {
  const until = Date.now() + ms
  let last
  while (Date.now() < until) {
    last = await test()
    if (last === true) return
    await new Promise((ok) => setTimeout(ok, 150))
  }
  throw new Error(`timed out waiting for ${what}${last !== undefined && last !== false ? ` (saw ${last})` : ''}`)
}

const fmt = (n) => n.toLocaleString('en-US')
const showing = (page, total) => `Showing ${fmt((page - 1) * PAGE_SIZE + 1)}–${fmt(Math.min(page * PAGE_SIZE, total))} of ${fmt(total)}`

/** The headings of the cards in view (template or creator cards). */
async function titles(page, grid) {
  return page.getByTestId(grid).locator('h2, h3').allTextContents()
}

/** Waits for a page of `expected` cards reading `text` under the pager. */
async function pageShows(page, grid, expected, text) {
  await poll(async () => {
    const seen = (await page.getByTestId('showing').textContent().catch(() => null))?.trim()
    const cards = await page.getByTestId(grid).locator(':scope > li').count()
    return (seen === text && cards === expected) || `${cards} cards, "${seen}"`
  }, `${expected} cards and "${text}"`)
}

async function twoPerRow(page, grid, what) {
  const boxes = await page.getByTestId(grid).locator(':scope > li').evaluateAll((items) =>
    items.slice(0, 3).map((li) => {
      const r = li.getBoundingClientRect()
      return { x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.width) }
    }),
  )
  expect(
    boxes.length === 3 && boxes[0].y === boxes[1].y && boxes[1].x > boxes[0].x && boxes[2].y > boxes[0].y && boxes[2].x === boxes[0].x,
    `${what}: two cards a row on a phone, saw ${JSON.stringify(boxes)}`,
  )
}

export const walks = [
  {
    name: 'paging: Discover with 200+ templates (counts, URL, Back, shared link, filters), phone two-column',
    async run(page, { url, viewport, sql }) {
      await seed(sql)
      const [{ n: total }] = await sql('select count(*)::int as n from public.templates where is_published')
      expect(total >= 200, `at least 200 published templates, saw ${total}`)

      await page.goto(`${url}/discover`)
      await pageShows(page, 'template-grid', PAGE_SIZE, showing(1, total))
      await page.getByText(`${fmt(total)} templates`, { exact: true }).waitFor()
      const first = await titles(page, 'template-grid')
      expect(first.length === PAGE_SIZE, `24 titles on page 1, saw ${first.length}`)
      const pager = page.getByRole('navigation', { name: 'Templates pages' })
      expect((await pager.getByRole('link', { name: 'Page 1', exact: true }).getAttribute('aria-current')) === 'page', 'page 1 is current')
      if (viewport === 'phone') await twoPerRow(page, 'template-grid', 'Discover')
      await expectNoSidewaysPan(page, 'Discover page 1')
      await checkA11y(page, { viewport, state: 'paged' })

      // Page 2 through the pager: in the URL, other cards.
      await pager.getByRole('link', { name: 'Page 2', exact: true }).click()
      await page.waitForURL((u) => u.pathname === '/discover' && u.searchParams.get('page') === '2')
      await pageShows(page, 'template-grid', PAGE_SIZE, showing(2, total))
      const second = await titles(page, 'template-grid')
      expect(second.every((t) => !first.includes(t)), `page 2 repeats page 1's cards: ${second.filter((t) => first.includes(t))}`)
      expect((await pager.getByRole('link', { name: 'Page 2', exact: true }).getAttribute('aria-current')) === 'page', 'page 2 is current')
      expect((await page.evaluate(() => window.scrollY)) < 200, 'page 2 starts at the top')

      // Back: page 1 again.
      await page.goBack()
      await page.waitForURL((u) => u.pathname === '/discover' && !u.searchParams.has('page'))
      await pageShows(page, 'template-grid', PAGE_SIZE, showing(1, total))
      expect(JSON.stringify(await titles(page, 'template-grid')) === JSON.stringify(first), 'Back shows page 1 again')

      // A shared link to page 3 opens page 3; Next goes on to 4.
      await page.goto(`${url}/discover?page=3`)
      await pageShows(page, 'template-grid', PAGE_SIZE, showing(3, total))
      const third = await titles(page, 'template-grid')
      expect(third.every((t) => !first.includes(t) && !second.includes(t)), 'page 3 has cards of its own')
      await pager.getByRole('link', { name: 'Next' }).click()
      await page.waitForURL((u) => u.searchParams.get('page') === '4')
      await pageShows(page, 'template-grid', PAGE_SIZE, showing(4, total))

      // The last page holds the rest; a filter goes back to page 1.
      const last = Math.ceil(total / PAGE_SIZE)
      await page.goto(`${url}/discover?page=${last}`)
      await pageShows(page, 'template-grid', total - (last - 1) * PAGE_SIZE, `Showing ${fmt((last - 1) * PAGE_SIZE + 1)}–${fmt(total)} of ${fmt(total)}`)
      expect((await pager.getByRole('link', { name: 'Next' }).count()) === 0, 'no Next link on the last page')
      await page.getByLabel('Price').selectOption('paid')
      await page.waitForURL((u) => u.searchParams.get('price') === 'paid' && !u.searchParams.has('page'))
      const [{ n: paid }] = await sql('select count(*)::int as n from public.templates where is_published and price > 0')
      await pageShows(page, 'template-grid', Math.min(PAGE_SIZE, paid), showing(1, paid))
      await expectNoSidewaysPan(page, 'Discover, paid, page 1')
    },
  },
  {
    name: 'paging: a category, Creators and a profile are paged',
    async run(page, { url, viewport, sql }) {
      await seed(sql)

      // The category: its own templates only.
      await page.goto(`${url}/category/${CATEGORY}`)
      await page.getByText(`${fmt(TEMPLATES)} templates found`).waitFor()
      await pageShows(page, 'template-grid', PAGE_SIZE, showing(1, TEMPLATES))
      if (viewport === 'phone') await twoPerRow(page, 'template-grid', 'the category')
      const firstCategory = await titles(page, 'template-grid')
      expect(firstCategory[0] === 'Paged 000', `newest first: ${firstCategory[0]}`)
      // Stars on cards: a rated one shows its average, an unrated one says so.
      const rated = page.getByRole('article').filter({ hasText: 'Paged 000' }).getByTestId('card-rating')
      expect((await rated.textContent()).includes('4.5'), `a rated card: ${await rated.textContent()}`)
      const unrated = page.getByRole('article').filter({ hasText: 'Paged 001' }).getByTestId('card-rating')
      expect((await unrated.textContent()).trim() === 'No ratings yet', `an unrated card: ${await unrated.textContent()}`)
      const categoryPager = page.getByRole('navigation', { name: 'Templates pages' })
      await categoryPager.getByRole('link', { name: 'Next' }).click()
      await page.waitForURL((u) => u.pathname === `/category/${CATEGORY}` && u.searchParams.get('page') === '2')
      await pageShows(page, 'template-grid', PAGE_SIZE, showing(2, TEMPLATES))
      expect((await titles(page, 'template-grid'))[0] === 'Paged 024', 'page 2 starts with the 25th')
      await page.goto(`${url}/category/${CATEGORY}?page=9`)
      await pageShows(page, 'template-grid', TEMPLATES - 8 * PAGE_SIZE, `Showing 193–205 of 205`)
      await expectNoSidewaysPan(page, 'the category, last page')

      // Creators: every creator with a published template, paged and searched on the server.
      const [{ n: creators }] = await sql('select count(*)::int as n from public.creator_listing')
      expect(creators > PAGE_SIZE, `more creators than a page: ${creators}`)
      await page.goto(`${url}/creators`)
      await pageShows(page, 'creator-grid', PAGE_SIZE, showing(1, creators))
      const firstCreators = await titles(page, 'creator-grid')
      await page.getByRole('navigation', { name: 'Creators pages' }).getByRole('link', { name: 'Page 2', exact: true }).click()
      await page.waitForURL((u) => u.pathname === '/creators' && u.searchParams.get('page') === '2')
      await pageShows(page, 'creator-grid', Math.min(PAGE_SIZE, creators - PAGE_SIZE), showing(2, creators))
      const secondCreators = await titles(page, 'creator-grid')
      expect(secondCreators.every((t) => !firstCreators.includes(t)), 'page 2 of Creators has other creators')
      await page.goBack()
      await page.waitForURL((u) => u.pathname === '/creators' && !u.searchParams.has('page'))
      await pageShows(page, 'creator-grid', PAGE_SIZE, showing(1, creators))
      // A search goes back to page 1 and finds across all pages.
      await page.goto(`${url}/creators?page=2`)
      await pageShows(page, 'creator-grid', Math.min(PAGE_SIZE, creators - PAGE_SIZE), showing(2, creators))
      await page.getByLabel('Search creators').fill('Pager 0')
      await page.waitForURL((u) => u.searchParams.get('search') === 'Pager 0' && !u.searchParams.has('page'))
      await pageShows(page, 'creator-grid', 10, showing(1, 10))
      await expectNoSidewaysPan(page, 'Creators')

      // The busiest creator's profile: 60 templates, three pages.
      await page.goto(`${url}/profile/${BUSY_CREATOR}`)
      await page.getByRole('tab', { name: `Templates (${BUSY_COUNT})` }).waitFor()
      await pageShows(page, 'template-grid', PAGE_SIZE, showing(1, BUSY_COUNT))
      await page.getByRole('navigation', { name: 'Templates pages' }).getByRole('link', { name: 'Page 3', exact: true }).click()
      await page.waitForURL((u) => u.pathname === `/profile/${BUSY_CREATOR}` && u.searchParams.get('page') === '3')
      await pageShows(page, 'template-grid', BUSY_COUNT - 2 * PAGE_SIZE, `Showing 49–60 of 60`)
      if (viewport === 'phone') await twoPerRow(page, 'template-grid', 'the profile')
      await expectNoSidewaysPan(page, 'the profile, page 3')
      // Its statistics once: Templates and Downloads only in the creator statistics.
      const stats = page.getByRole('region', { name: 'Creator statistics' })
      await stats.waitFor()
      for (const label of ['Templates', 'Downloads']) {
        const n = await page.locator('dt').filter({ hasText: new RegExp(`^${label}$`) }).count()
        expect(n === 1, `${label} is shown ${n} times on the profile`)
      }
      expect((await stats.getByTestId('creator-stat-templates').textContent()).trim() === String(BUSY_COUNT), 'the statistics count 60 templates')
    },
  },
]
