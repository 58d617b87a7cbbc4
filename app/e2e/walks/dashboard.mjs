// Browser walks of the dashboard's Home, My Templates and Edit Template
// screens. A demo creator (Leo: two published templates, a draft and a
// rejection in seed/demo.sql) is only read; everything that writes uses a
// fresh account made through the API, with its own rows.
import { apiAccount, apiVisitor, expect, signIn, visit, waitForText } from '../lib.mjs'

const LEO = 'leo@demo.plinth.dev'
const ADMIN = 'admin@demo.plinth.dev'
const FRESH_PASSWORD = 'a-long-password-1'
// A 1x1 PNG (the 'templates' bucket takes raster previews only, no SVG).
const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)

async function anonKey(url) {
  return (await (await fetch(`${url}/_/app-config.json`)).json()).anonKey
}

/** Uploads a small image to the public 'templates' bucket as `account`; returns its public URL. */
async function uploadPreview(url, account, name) {
  const path = `${account.id}/previews/${name}`
  const r = await fetch(`${url}/storage/v1/object/templates/${path}`, {
    method: 'POST',
    headers: { apikey: await anonKey(url), authorization: `Bearer ${account.token}`, 'content-type': 'image/png' },
    body: TINY_PNG,
  })
  expect(r.ok, `upload ${path}: ${r.status} ${await r.text()}`)
  return `${url}/storage/v1/object/public/templates/${path}`
}

/** A field read the way `waitForText` reads a locator's text. */
function inputValueOf(locator) {
  return { textContent: () => locator.inputValue() }
}

/** `?tab=` switches through the tab list; the tab is selected and in the URL. */
async function openTab(page, name, param) {
  await page.getByRole('tab', { name, exact: true }).click()
  await page.waitForURL((u) => u.pathname === '/dashboard/templates' && (param ? u.searchParams.get('tab') === param : !u.searchParams.has('tab')))
  await page.getByRole('tab', { name, exact: true, selected: true }).waitFor()
}

export const walks = [
  {
    name: "dashboard: a demo creator's overview matches the seed, and My Templates switches tabs",
    async run(page, { url }) {
      // What the database says about Leo's published templates (views and
      // downloads move as other walks visit and download them).
      const leo = await apiAccount(url, LEO)
      const rows = await leo.get(`templates?user_id=eq.${leo.id}&select=id,downloads_count,total_views,average_rating`)
      expect(rows.length === 2, `Leo has the two published templates of the seed: ${JSON.stringify(rows)}`)
      const downloads = rows.reduce((n, r) => n + r.downloads_count, 0)
      const rated = rows.map((r) => Number(r.average_rating)).filter((r) => r > 0)
      const avg = rated.length ? Math.round((rated.reduce((a, b) => a + b, 0) / rated.length) * 10) / 10 : 0
      const ids = rows.map((r) => r.id).join(',')
      const upvotes = (await leo.get(`template_upvotes?template_id=in.(${ids})&select=template_id`)).length
      // Favorites through the counting RPC (wishlists themselves are private).
      const favorites = (await leo.rest('POST', 'rpc/get_template_wishlist_counts', { template_ids: rows.map((r) => r.id) }))
        .reduce((n, r) => n + r.wishlist_count, 0)

      await signIn(page, url, LEO, 'demo-password', '/dashboard')
      await page.waitForURL((u) => u.pathname === '/dashboard')
      await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor()
      const overview = page.getByRole('region', { name: 'Template Status Overview' })
      // seed/demo.sql: Leo has 1 draft (Investor Updates), 2 published, no pending, 1 rejected (Quick Invoice).
      await waitForText(overview.getByTestId('status-draft'), '1', 'Drafts')
      await waitForText(overview.getByTestId('status-published'), '2', 'Published')
      await waitForText(overview.getByTestId('status-pending'), '0', 'Pending')
      await waitForText(overview.getByTestId('status-rejected'), '1', 'Rejected')
      const stats = page.getByRole('region', { name: 'Engagement Statistics' })
      await waitForText(stats.getByTestId('stat-total-templates'), '2', 'Total Templates')
      await waitForText(stats.getByTestId('stat-downloads'), downloads.toLocaleString('en-US'), 'Downloads')
      await waitForText(stats.getByTestId('stat-avg-rating'), avg.toFixed(1), 'Avg Rating')
      await waitForText(stats.getByTestId('stat-upvotes'), upvotes.toLocaleString('en-US'), 'Upvotes')
      await waitForText(stats.getByTestId('stat-favorited'), favorites.toLocaleString('en-US'), 'Favorited')
      // Notices for the draft and the rejection; none for pending.
      const notices = page.getByRole('region', { name: 'Notices' })
      await notices.getByText('1 draft in progress').waitFor()
      await notices.getByText('1 template needs changes').waitFor()
      expect((await notices.getByText(/waiting for review/).count()) === 0, 'no pending notice')
      // Leo has a display name and a username, but no avatar.
      await page.getByRole('link', { name: /Setup your profile/ }).waitFor()
      expect((await page.getByRole('link', { name: /Setup your username/ }).count()) === 0, 'no username card')

      await notices.getByRole('link', { name: 'View rejected' }).click()
      await page.waitForURL((u) => u.pathname === '/dashboard/templates' && u.searchParams.get('tab') === 'rejected')
      const invoice = page.getByRole('article', { name: 'Quick Invoice' })
      await invoice.getByText('The preview images are missing and the description is too short.', { exact: false }).waitFor()
      expect((await invoice.getByRole('link', { name: 'Edit' }).getAttribute('href')) === '/upload?template=f2000000-0000-4000-8000-000000000001', 'the rejected edit link')

      await openTab(page, 'Drafts', 'draft')
      const draft = page.getByRole('article', { name: 'Investor Updates' })
      await draft.waitFor()
      expect((await draft.getByRole('link', { name: 'Continue Editing' }).getAttribute('href')) === '/upload?draft=f0000000-0000-4000-8000-000000000002', 'the draft edit link')
      await openTab(page, 'Pending', 'pending')
      await page.getByText('No templates pending approval').waitFor()
      await openTab(page, 'Published', 'published')
      await page.getByRole('article', { name: 'Startup CRM' }).waitFor()
      await page.getByRole('article', { name: 'Team Wiki' }).waitFor()
      expect((await page.getByRole('article', { name: 'Team Wiki' }).getByRole('button', { name: /Delete/ }).count()) === 0, 'published templates have no delete')
      await openTab(page, 'All', null)
      expect((await page.getByRole('article').count()) === 4, 'All lists the four templates')
    },
  },
  {
    name: 'dashboard: a fresh creator deletes a draft and its files through the dialog',
    async run(page, { url, viewport }) {
      const email = `e2e-dash-draft-${viewport}-${Date.now()}@example.com`
      const creator = await apiVisitor(url, email)
      const preview = await uploadPreview(url, creator, `${Date.now()}-walk.png`)
      expect((await fetch(preview)).ok, 'the preview is stored')
      const draftId = crypto.randomUUID()
      const title = `Draft ${viewport} ${Date.now().toString(36)}`
      await creator.rest('POST', 'templates_draft', {
        id: draftId,
        creator_id: creator.id,
        title,
        description: 'A draft to delete.',
        preview_image_url: preview,
        preview_images: [preview],
      })

      await signIn(page, url, email, FRESH_PASSWORD, '/dashboard')
      await page.waitForURL((u) => u.pathname === '/dashboard')
      // A fresh account has neither a username nor an avatar.
      await page.getByRole('link', { name: /Setup your profile/ }).waitFor()
      await page.getByRole('link', { name: /Setup your username/ }).waitFor()
      await waitForText(page.getByTestId('status-draft'), '1', 'Drafts')
      await waitForText(page.getByTestId('status-published'), '0', 'Published')
      await page.getByRole('link', { name: 'View drafts' }).click()
      await page.waitForURL((u) => u.pathname === '/dashboard/templates' && u.searchParams.get('tab') === 'draft')

      const card = page.getByRole('article', { name: title })
      await card.getByRole('button', { name: `Delete ${title}` }).click()
      const dialog = page.getByRole('alertdialog', { name: 'Are you sure?' })
      await dialog.getByText('This action cannot be undone. This will permanently delete your template draft').waitFor()
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      await dialog.waitFor({ state: 'hidden' })
      expect((await creator.get(`templates_draft?id=eq.${draftId}&select=id`)).length === 1, 'Cancel keeps the draft')

      await card.getByRole('button', { name: `Delete ${title}` }).click()
      await dialog.getByRole('button', { name: 'Delete' }).click()
      await page.getByText('Template deleted successfully').first().waitFor()
      await page.getByText('No drafts').waitFor()
      expect((await creator.get(`templates_draft?id=eq.${draftId}&select=id`)).length === 0, 'the draft row is gone')
      const gone = await fetch(preview)
      expect(!gone.ok, `the preview file is removed from the bucket (GET answered ${gone.status})`)
    },
  },
  {
    name: 'dashboard: a fresh creator edits a published template and the public page follows',
    async run(page, { url, viewport }) {
      const email = `e2e-dash-edit-${viewport}-${Date.now()}@example.com`
      const creator = await apiVisitor(url, email)
      const [category] = await creator.get('categories?slug=eq.productivity&select=id')
      const id = crypto.randomUUID()
      const stamp = Date.now().toString(36)
      const oldTitle = `Pub ${viewport} ${stamp}`
      const newTitle = `Edited ${viewport} ${stamp}`
      await creator.rest('POST', 'templates_pending_approval', {
        id,
        creator_id: creator.id,
        title: oldTitle,
        description: 'Before the edit.',
        about_template: 'Old about.',
        category_id: category.id,
        price: 0,
        price_in_cents: 0,
        tags: ['walk'],
        // Something to download: approval refuses a template without (issue 44, item 3).
        template_url: 'https://example.com/templates/walk',
        status: 'Pending Approval',
      })
      const admin = await apiAccount(url, ADMIN)
      await admin.rest('POST', 'rpc/admin_approve_template', { pending_template_id: id })

      await signIn(page, url, email, FRESH_PASSWORD, '/dashboard/templates?tab=published')
      await page.waitForURL((u) => u.pathname === '/dashboard/templates')
      const card = page.getByRole('article', { name: oldTitle })
      await card.getByRole('link', { name: 'Edit' }).click()
      await page.waitForURL((u) => u.pathname === `/dashboard/templates/edit/${id}`)
      const title = page.getByLabel('Title', { exact: true })
      await waitForText(inputValueOf(title), oldTitle, 'the loaded title')
      await page.getByRole('region', { name: 'Current status' }).getByText('Published').waitFor()
      await title.fill(newTitle)
      await page.getByLabel('Short description').fill('After the edit.')
      await page.getByRole('textbox', { name: 'About this template' }).fill('## New about\n\nWith **bold** text.')
      await page.getByLabel('Price (USD)').fill('4.5')
      await page.getByLabel('Features included').fill('First feature\n\n  Second feature  \n')
      await page.getByLabel('Requirements').fill('A computer')
      await page.getByRole('button', { name: 'Save Changes' }).click()
      await page.getByText('Template updated successfully').first().waitFor()
      await page.waitForURL((u) => u.pathname === '/dashboard/templates' && u.searchParams.get('tab') === 'published')
      await page.getByRole('article', { name: newTitle }).waitFor()

      const [row] = await creator.get(`templates?id=eq.${id}&select=title,description,price,price_in_cents,features_included,requirements`)
      expect(
        row.title === newTitle && row.description === 'After the edit.' && Number(row.price) === 4.5 && row.price_in_cents === 450 &&
          JSON.stringify(row.features_included) === '["First feature","Second feature"]' && JSON.stringify(row.requirements) === '["A computer"]',
        `the saved row: ${JSON.stringify(row)}`,
      )

      // In-app navigation: a fresh load would restore the remembered path (spec, global behaviour).
      await page.getByRole('article', { name: newTitle }).getByRole('link', { name: 'View' }).click()
      await page.waitForURL((u) => u.pathname === `/template/${id}`)
      await page.getByRole('heading', { level: 1, name: newTitle }).waitFor()
      await page.getByTestId('price').filter({ hasText: '$4.50' }).waitFor()
      await page.getByRole('region', { name: 'About this template' }).getByRole('heading', { name: 'New about' }).waitFor()

      // Someone else's template does not open in the editor.
      await visit(page, url, '/dashboard/templates/edit/e0000000-0000-4000-8000-000000000003')
      await page.getByText('Template not found').waitFor()
      expect((await page.getByLabel('Title', { exact: true }).count()) === 0, 'no form for a template of another creator')
    },
  },
]
