// Browser walk of the Upload screen: a new creator (signed up through the
// API, signed in through the UI) fills the form, stores a PNG preview and a
// template file, saves a free draft, reopens it with ?draft={id}, makes it
// paid and submits it for review. The REST API (with the creator's token)
// then shows the pending row with the stored preview, whose public URL serves
// the PNG's bytes, and the template file moved to the private bucket (its
// public copy gone).
//
// A second walk edits a submission still waiting for review: a new creator
// submits through REST, opens My Templates -> Pending -> Edit, changes the
// title and submits; REST then shows exactly one pending row, with the new
// title, and the old row gone.
import { expect, signIn } from '../lib.mjs'

// A valid 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)
const PASSWORD = 'a-long-password-1'

/** A new account through the auth API: its id, a REST reader and a REST writer. */
async function newCreator(url, email) {
  const { anonKey } = await (await fetch(`${url}/_/app-config.json`)).json()
  const response = await fetch(`${url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD, data: { display_name: 'Upload Walker', avatar_url: '' } }),
  })
  const body = await response.json()
  expect(response.ok && body.access_token, `sign-up through the API: ${response.status} ${JSON.stringify(body)}`)
  const get = async (path) => {
    const r = await fetch(`${url}/rest/v1/${path}`, { headers: { apikey: anonKey, authorization: `Bearer ${body.access_token}` } })
    expect(r.ok, `GET /rest/v1/${path}: ${r.status} ${await r.clone().text()}`)
    return r.json()
  }
  const post = async (path, row) => {
    const r = await fetch(`${url}/rest/v1/${path}`, {
      method: 'POST',
      headers: {
        apikey: anonKey,
        authorization: `Bearer ${body.access_token}`,
        'content-type': 'application/json',
        prefer: 'return=representation',
      },
      body: JSON.stringify(row),
    })
    expect(r.ok, `POST /rest/v1/${path}: ${r.status} ${await r.clone().text()}`)
    return r.json()
  }
  return { id: body.user.id, get, post }
}

export const walks = [
  {
    name: 'upload: save a draft, reopen it and submit it for review',
    async run(page, { url, viewport }) {
      const stamp = Date.now()
      const email = `upload-${viewport}-${stamp}@example.com`
      const title = `Walk ${viewport} ${stamp % 1_000_000}`
      const creator = await newCreator(url, email)
      await signIn(page, url, email, PASSWORD, '/upload')
      await page.waitForURL((u) => u.pathname === '/upload')
      await page.getByRole('heading', { level: 1, name: 'Upload Template' }).waitFor()

      // General
      await page.getByRole('textbox', { name: 'Title' }).fill(title)
      await page.getByRole('textbox', { name: 'Short description' }).fill('A planner made by the upload walk.')
      await page.getByRole('textbox', { name: 'Detailed description' }).fill('What you get')
      await page.getByRole('textbox', { name: 'Detailed description' }).selectText()
      await page.getByRole('button', { name: 'Heading 2' }).click()
      expect(
        (await page.getByRole('textbox', { name: 'Detailed description' }).inputValue()) === '## What you get',
        'the toolbar formats the selection',
      )
      const category = page.getByRole('combobox', { name: 'Category' })
      await category.locator('option', { hasText: 'Productivity' }).waitFor({ state: 'attached' })
      await category.selectOption({ label: 'Productivity' })

      // Visuals: a real PNG and a template file
      await page.getByRole('tab', { name: 'Visuals' }).click()
      await page.getByLabel('Main preview image').setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: PNG })
      await page.getByRole('img', { name: 'Main preview' }).waitFor()
      await page
        .locator('#upload-template-file')
        .setInputFiles({ name: 'walk-template.zip', mimeType: 'application/zip', buffer: Buffer.from('PK\u0005\u0006walk') })
      await page.getByTestId('template-file-name').filter({ hasText: 'walk-template.zip' }).waitFor()

      // Features
      await page.getByRole('tab', { name: 'Features' }).click()
      await page.getByRole('textbox', { name: 'Tags' }).fill('  walk  ')
      await page.getByRole('textbox', { name: 'Tags' }).press('Enter')
      await page.getByRole('button', { name: 'Remove tag walk' }).waitFor()
      await page.getByRole('checkbox', { name: 'Setup instructions' }).check()
      await page.getByRole('checkbox', { name: 'Desktop recommended' }).check()

      // Pricing, then save the draft
      await page.getByRole('tab', { name: 'Pricing' }).click()
      await page.getByRole('spinbutton', { name: 'Price (USD)' }).fill('0')
      await page.getByTestId('price-shown').filter({ hasText: 'Free' }).waitFor()
      await page.getByRole('tab', { name: 'Actions' }).click()
      await page.getByRole('button', { name: 'Save Draft' }).click()
      await page.waitForURL((u) => u.pathname === '/dashboard/templates' && u.search === '?tab=draft')
      await page.getByText('Template saved as draft successfully.').waitFor()

      const drafts = await creator.get(
        `templates_draft?select=id,title,price,price_in_cents,tags,features_included,requirements,preview_image_url,template_file_url&title=eq.${encodeURIComponent(title)}`,
      )
      expect(drafts.length === 1, `one draft, saw ${drafts.length}`)
      const draft = drafts[0]
      expect(Number(draft.price) === 0 && draft.price_in_cents === 0, `draft price ${draft.price} / ${draft.price_in_cents}`)
      expect(JSON.stringify(draft.tags) === '["walk"]', `draft tags ${JSON.stringify(draft.tags)}`)
      expect(
        draft.preview_image_url?.includes(`/storage/v1/object/public/templates/${creator.id}/previews/`),
        `preview stored under previews/: ${draft.preview_image_url}`,
      )
      expect(
        draft.template_file_url?.includes(`/storage/v1/object/public/templates/${creator.id}/templates/`),
        `draft file stored under templates/: ${draft.template_file_url}`,
      )

      // Reopen the draft and submit it. In-app navigation: a full load would
      // restore the remembered location (spec section 2, global behaviour).
      await page.evaluate((path) => {
        window.history.pushState({}, '', path)
        window.dispatchEvent(new PopStateEvent('popstate'))
      }, `/upload?draft=${draft.id}`)
      await page.getByRole('heading', { level: 1, name: 'Edit Draft' }).waitFor()
      await page.getByText('Draft loaded').waitFor()
      expect((await page.getByRole('textbox', { name: 'Title' }).inputValue()) === title, 'the draft title is loaded')
      await page.getByRole('tab', { name: 'Visuals' }).click()
      const shown = page.getByRole('img', { name: 'Main preview' })
      await shown.waitFor()
      expect((await shown.getAttribute('src')) === draft.preview_image_url, 'the stored preview is shown')
      await page.getByRole('tab', { name: 'Pricing' }).click()
      await page.getByRole('spinbutton', { name: 'Price (USD)' }).fill('4.5')
      await page.getByTestId('price-shown').filter({ hasText: '$4.50' }).waitFor()
      await page.getByRole('tab', { name: 'Actions' }).click()
      await page.getByRole('button', { name: 'Submit for Review' }).click()
      await page.waitForURL((u) => u.pathname === '/dashboard/templates' && u.search === '')
      await page.getByText('Your template has been submitted for approval.').waitFor()

      const pending = await creator.get(
        `templates_pending_approval?select=id,title,status,creator_id,price,price_in_cents,preview_image_url,template_file_url,features_included,requirements&title=eq.${encodeURIComponent(title)}`,
      )
      expect(pending.length === 1, `one pending row, saw ${pending.length}`)
      const row = pending[0]
      expect(row.status === 'Pending Approval' && row.creator_id === creator.id, `pending row ${JSON.stringify(row)}`)
      expect(row.preview_image_url === draft.preview_image_url, 'the pending row keeps the uploaded preview URL')
      expect(Number(row.price) === 4.5 && row.price_in_cents === 450, `pending price ${row.price} / ${row.price_in_cents}`)
      // Paid: the file now lives in the private bucket, and the public copy is gone.
      expect(
        row.template_file_url?.startsWith(`template-files/${creator.id}/files/`),
        `paid file in the private bucket: ${row.template_file_url}`,
      )
      const privatePath = row.template_file_url.slice('template-files/'.length)
      const asPublic = await fetch(`${url}/storage/v1/object/public/template-files/${privatePath}`)
      expect(!asPublic.ok, `the private file is not public: ${asPublic.status}`)
      const oldPublic = await fetch(draft.template_file_url)
      expect(oldPublic.status === 404 || oldPublic.status === 400, `the public draft copy is removed: ${oldPublic.status}`)
      expect(
        JSON.stringify(row.features_included) === '["Setup instructions"]' && JSON.stringify(row.requirements) === '["Desktop recommended"]',
        `checklists ${JSON.stringify(row.features_included)} ${JSON.stringify(row.requirements)}`,
      )
      const left = await creator.get(`templates_draft?select=id&id=eq.${draft.id}`)
      expect(left.length === 0, 'the submitted draft is deleted')

      // The public preview URL serves the PNG's bytes.
      const image = await fetch(row.preview_image_url)
      expect(image.ok, `GET preview: ${image.status}`)
      const bytes = Buffer.from(await image.arrayBuffer())
      expect(bytes.equals(PNG), `the preview serves the uploaded bytes (${bytes.length} bytes)`)
    },
  },
  {
    name: 'upload: edit a pending submission from My Templates, which replaces it',
    async run(page, { url, viewport }) {
      const stamp = Date.now()
      const email = `upload-pending-${viewport}-${stamp}@example.com`
      const title = `Pend ${viewport} ${stamp % 1_000_000}`
      const edited = `Edited ${viewport} ${stamp % 1_000_000}`
      const creator = await newCreator(url, email)
      const [category] = await creator.get('categories?select=id&name=eq.Productivity')
      expect(category?.id, 'the Productivity category exists')
      const [submitted] = await creator.post('templates_pending_approval', {
        creator_id: creator.id,
        title,
        description: 'Submitted through REST by the upload walk.',
        about_template: 'What you get',
        category_id: category.id,
        status: 'Pending Approval',
      })
      expect(submitted?.id, `the pending row is created: ${JSON.stringify(submitted)}`)

      // My Templates -> Pending -> Edit, through the app's own links.
      await signIn(page, url, email, PASSWORD, '/dashboard/templates?tab=pending')
      await page.waitForURL((u) => u.pathname === '/dashboard/templates' && u.searchParams.get('tab') === 'pending')
      const card = page.getByRole('article', { name: title })
      await card.waitFor()
      await card.getByRole('link', { name: 'Edit' }).click()
      await page.waitForURL((u) => u.pathname === '/upload' && u.searchParams.get('template') === submitted.id)
      await page.getByRole('heading', { level: 1, name: 'Edit Pending Template' }).waitFor()
      await page.getByText('Pending template loaded').waitFor()
      expect(
        (await page.getByText('Failed to load rejected template. Please try again.').count()) === 0,
        'no load failure is reported',
      )
      const titleBox = page.getByRole('textbox', { name: 'Title' })
      expect((await titleBox.inputValue()) === title, 'the pending title is loaded')
      await titleBox.fill(edited)
      await page.getByRole('tab', { name: 'Actions' }).click()
      await page.getByRole('button', { name: 'Submit for Review' }).click()
      await page.waitForURL((u) => u.pathname === '/dashboard/templates' && u.search === '')
      await page.getByText('Your template has been resubmitted for approval.').waitFor()
      await page.getByRole('article', { name: edited }).waitFor()

      // Exactly one pending row: the new one; the old one is gone.
      const rows = await creator.get('templates_pending_approval?select=id,title,status,creator_id,category_id')
      expect(rows.length === 1, `one pending row, saw ${JSON.stringify(rows)}`)
      const [row] = rows
      expect(row.title === edited && row.status === 'Pending Approval', `the pending row has the new title: ${JSON.stringify(row)}`)
      expect(row.creator_id === creator.id && row.category_id === category.id, `the pending row keeps its owner and category`)
      expect(row.id !== submitted.id, 'the submission is a new row')
      const old = await creator.get(`templates_pending_approval?select=id&id=eq.${submitted.id}`)
      expect(old.length === 0, 'the old pending row is deleted')
      const drafts = await creator.get('templates_draft?select=id')
      expect(drafts.length === 0, `no draft is left behind: ${JSON.stringify(drafts)}`)
    },
  },
]
