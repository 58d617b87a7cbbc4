import { describe, expect, it } from 'vitest'
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { CATEGORIES, marketplace, MAYA } from '@/testing/fixtures'
import { FakeSupabase, UNREACHABLE, type FakeOptions, type Row } from '@/testing/fake-supabase'
import { addTag, parsePrice, previewsError, titleTooShort } from '@/features/upload/form'

const PUBLIC = 'http://localhost:3000/storage/v1/object/public/templates/'
const NAME = String.raw`\d{13}-[a-z0-9]+`

function png(name = 'cover.png'): File {
  return new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], name, { type: 'image/png' })
}
function zip(name = 'planner.zip'): File {
  return new File(['PK'], name, { type: 'application/zip' })
}

const DRAFT: Row = {
  id: 'd-1',
  creator_id: 'u-maya',
  title: 'Half-done Planner',
  description: 'Weekly planning.',
  about_template: '## Draft about',
  price: 0,
  price_in_cents: 0,
  category_id: 'c-fin',
  tags: ['weekly'],
  preview_image_url: `${PUBLIC}u-maya/previews/1-old.png`,
  preview_images: [`${PUBLIC}u-maya/previews/2-old.png`],
  template_file_url: `${PUBLIC}u-maya/templates/3-old.zip`,
  features_included: ['Video tutorial', 'Written by hand'],
  requirements: ['Desktop recommended'],
  last_edited_at: '2024-05-01T00:00:00Z',
}

const REJECTED: Row = {
  id: 'r-1',
  creator_id: 'u-maya',
  title: 'Rejected Tracker',
  description: 'Tracks habits.',
  about_template: 'Too short.',
  price: 0,
  price_in_cents: 0,
  category_id: 'c-prod',
  tags: ['habits'],
  preview_image_url: `${PUBLIC}u-maya/previews/9-old.png`,
  preview_images: [],
  template_file_url: `${PUBLIC}u-maya/files/9-old.zip`,
  features_included: [],
  requirements: [],
  rejection_comment: 'Please add setup instructions.',
  rejection_date: '2024-06-02T00:00:00Z',
  original_template_id: 't-planner',
  created_at: '2024-06-01T00:00:00Z',
  updated_at: '2024-06-02T00:00:00Z',
}

const PENDING: Row = {
  id: 'p-1',
  creator_id: 'u-maya',
  title: 'Waiting Planner',
  description: 'Plans the week.',
  about_template: 'About the planner.',
  price: 0,
  price_in_cents: 0,
  category_id: 'c-prod',
  tags: ['weekly'],
  preview_image_url: `${PUBLIC}u-maya/previews/7-old.png`,
  preview_images: [`${PUBLIC}u-maya/previews/8-old.png`],
  template_file_url: `${PUBLIC}u-maya/files/7-old.zip`,
  features_included: ['Setup instructions'],
  requirements: [],
  status: 'Pending Approval',
  rejection_comment: null,
  rejection_date: null,
  original_template_id: null,
  created_at: '2024-06-03T00:00:00Z',
  updated_at: '2024-06-03T00:00:00Z',
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/**
 * Makes the next delete on `table` fail with `message`, once: later ones (the
 * undo of a replacement) go through.
 */
function failNextDelete(fake: FakeSupabase, table: string, message: string) {
  let armed = true
  const from = fake.from
  fake.from = ((name: string) => {
    const query = from(name)
    if (name === table) {
      const remove = query.delete.bind(query)
      query.delete = (() => {
        const chain = remove()
        if (armed) {
          armed = false
          const then = chain.then.bind(chain)
          const key = `${table}:delete`
          chain.then = ((ok?: (result: unknown) => unknown, fail?: (reason: unknown) => unknown) => {
            fake.failing[key] = { message }
            return then((result) => {
              delete fake.failing[key]
              return ok ? ok(result) : result
            }, fail)
          }) as unknown as typeof chain.then
        }
        return chain
      }) as typeof query.delete
    }
    return query
  }) as typeof fake.from
}

function options(extra: Partial<FakeOptions> = {}, tables: Record<string, Row[]> = {}): FakeOptions {
  return { tables: marketplace(tables), signedInAs: MAYA, users: [MAYA], ...extra }
}

function setup() {
  // The inputs' accept= is this screen's first filter, not its only one.
  return userEvent.setup({ applyAccept: false })
}

async function openTab(user: ReturnType<typeof setup>, name: string) {
  await user.click(screen.getByRole('tab', { name }))
}

/** Fills every field of a new template and chooses its files. */
async function fillForm(user: ReturnType<typeof setup>, priceText = '19.99') {
  await user.click(await screen.findByRole('textbox', { name: 'Title' }))
  await user.paste('Focus Planner')
  await user.click(screen.getByRole('textbox', { name: 'Short description' }))
  await user.paste('Plan deep work.')
  await user.click(screen.getByRole('textbox', { name: 'Detailed description' }))
  await user.paste('## About\n\nDetails')
  await waitFor(() => expect(screen.getByRole('option', { name: 'Business' })).toBeInTheDocument())
  await user.selectOptions(screen.getByRole('combobox', { name: 'Category' }), 'Business')
  await openTab(user, 'Visuals')
  await user.upload(screen.getByLabelText('Main preview image'), png('cover.png'))
  await user.upload(screen.getByLabelText('Additional preview images'), png('inside.png'))
  await user.upload(screen.getByLabelText(/^Template file/, { selector: 'input' }), zip())
  await openTab(user, 'Features')
  const tag = screen.getByRole('textbox', { name: 'Tags' })
  await user.type(tag, ' focus {Enter}')
  await user.type(tag, 'planner')
  await user.click(screen.getByRole('button', { name: 'Add tag' }))
  await user.click(screen.getByRole('checkbox', { name: 'Template file' }))
  await user.click(screen.getByRole('checkbox', { name: 'Video tutorial' }))
  await user.click(screen.getByRole('checkbox', { name: 'Desktop recommended' }))
  await openTab(user, 'Pricing')
  const price = screen.getByRole('spinbutton', { name: 'Price (USD)' })
  await user.clear(price)
  await user.paste(priceText)
  await openTab(user, 'Actions')
}

describe('upload rules', () => {
  it('flags only a non-empty title under 3 characters', () => {
    expect(titleTooShort('')).toBe(false)
    expect(titleTooShort('  ab ')).toBe(true)
    expect(titleTooShort('abc')).toBe(false)
  })
  it('adds tags trimmed, non-empty and without duplicates', () => {
    expect(addTag(['a'], '  b ')).toEqual(['a', 'b'])
    const same = ['a']
    expect(addTag(same, '   ')).toBe(same)
    expect(addTag(same, ' a ')).toBe(same)
  })
  it('parses the price with a fallback of 0 and price_in_cents = round(price * 100)', () => {
    expect(parsePrice('19.99')).toEqual({ price: 19.99, price_in_cents: 1999 })
    expect(parsePrice('0.295')).toEqual({ price: 0.3, price_in_cents: 30 })
    expect(parsePrice('')).toEqual({ price: 0, price_in_cents: 0 })
    expect(parsePrice('abc')).toEqual({ price: 0, price_in_cents: 0 })
  })
  it('allows at most 6 additional previews, images only', () => {
    expect(previewsError(5, [png()])).toBeNull()
    expect(previewsError(5, [png(), png()])).toEqual({ title: 'Too many images', description: 'You can only upload up to 6 total preview images.' })
    expect(previewsError(0, [zip()])?.description).toBe('Please upload only image files for previews.')
  })
})

// Whole-form walks type a lot: give them room on a busy machine.
describe('upload page', { timeout: 20_000 }, () => {
  it('needs a signed-in user', async () => {
    const { router } = renderApp('/upload', { tables: marketplace() })
    await waitFor(() => expect(here(router)).toBe('/auth?mode=sign-in&redirect=%2Fupload'))
  })

  it('shows the five tabs and the categories ordered by name', async () => {
    const { fake } = renderApp('/upload', options())
    expect(await screen.findByRole('heading', { level: 1, name: 'Upload Template' })).toBeInTheDocument()
    const tabs = screen.getAllByRole('tab').map((t) => t.textContent)
    expect(tabs).toEqual(['General', 'Visuals', 'Features', 'Pricing', 'Actions'])
    const select = screen.getByRole('combobox', { name: 'Category' })
    await waitFor(() => expect(within(select).getAllByRole('option')).toHaveLength(CATEGORIES.length + 1))
    expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['Select a category', 'Business', 'Finance', 'Productivity'])
    expect(fake.callsTo('categories', 'select').length).toBeGreaterThan(0)
    expect(screen.getByText('Title must be between 3 and 30 characters long')).toBeInTheDocument()
    expect(screen.getByText('Description must be between 350 and 10000 characters long')).toBeInTheDocument()
  })

  it("shows 'Errors found' for a non-empty title under 3 characters and stops at 30", async () => {
    const user = setup()
    renderApp('/upload', options())
    const title = await screen.findByRole('textbox', { name: 'Title' })
    expect(screen.queryByText('Errors found')).not.toBeInTheDocument()
    await user.type(title, 'ab')
    expect(screen.getByRole('alert')).toHaveTextContent('Errors foundTitle must be between 3 and 30 characters long')
    expect(title).toHaveAttribute('aria-invalid', 'true')
    await user.type(title, 'c')
    expect(screen.queryByText('Errors found')).not.toBeInTheDocument()
    await user.type(title, 'x'.repeat(40))
    expect(title).toHaveValue('abc' + 'x'.repeat(27))
  })

  it('refuses to submit without title, description and category', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload', options())
    await user.type(await screen.findByRole('textbox', { name: 'Title' }), 'Focus Planner')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    expect(await screen.findByText('Missing required fields')).toBeInTheDocument()
    expect(screen.getByText('Please fill in all required fields.')).toBeInTheDocument()
    // Back on General, the missing fields are marked.
    expect(screen.getByRole('tab', { name: 'General' })).toHaveAttribute('aria-selected', 'true')
    expect(screen.getByRole('textbox', { name: 'Short description' })).toHaveAttribute('aria-invalid', 'true')
    expect(screen.getByRole('combobox', { name: 'Category' })).toHaveAttribute('aria-invalid', 'true')
    expect(fake.callsTo('templates_pending_approval')).toHaveLength(0)
    expect(fake.uploads).toHaveLength(0)
    expect(here(router)).toBe('/upload')
  })

  it('adds tags with Add or Enter, trimmed, without blanks or duplicates, and removes them', async () => {
    const user = setup()
    renderApp('/upload', options())
    await screen.findByRole('tab', { name: 'Features' })
    await openTab(user, 'Features')
    const input = screen.getByRole('textbox', { name: 'Tags' })
    await user.type(input, '  planner  {Enter}')
    expect(input).toHaveValue('')
    await user.type(input, 'weekly')
    await user.click(screen.getByRole('button', { name: 'Add tag' }))
    await user.type(input, '   {Enter}')
    await user.type(input, 'planner{Enter}')
    expect(screen.getByText('That tag is already added.')).toBeInTheDocument()
    const list = screen.getByRole('list', { name: 'Tags added' })
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['planner', 'weekly'])
    await user.click(screen.getByRole('button', { name: 'Remove tag planner' }))
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['weekly'])
  })

  it('offers the 12 features and 8 requirements', async () => {
    const user = setup()
    renderApp('/upload', options())
    await screen.findByRole('tab', { name: 'Features' })
    await openTab(user, 'Features')
    const features = screen.getByRole('group', { name: 'Features included' })
    const requirements = screen.getByRole('group', { name: 'Requirements' })
    expect(within(features).getAllByRole('checkbox')).toHaveLength(12)
    expect(within(requirements).getAllByRole('checkbox')).toHaveLength(8)
    expect(within(features).getByRole('checkbox', { name: 'Interactive walkthrough' })).toBeInTheDocument()
    expect(within(requirements).getByRole('checkbox', { name: 'Willingness to customize' })).toBeInTheDocument()
  })

  it('checks the images: the main preview and up to 6 additional previews', async () => {
    const user = setup()
    renderApp('/upload', options())
    await screen.findByRole('tab', { name: 'Visuals' })
    await openTab(user, 'Visuals')
    await user.upload(screen.getByLabelText('Main preview image'), zip('notes.zip'))
    expect(await screen.findByText('Invalid file type')).toBeInTheDocument()
    expect(screen.getByText('Please upload an image file for the main preview.')).toBeInTheDocument()
    expect(screen.queryByRole('img', { name: 'Main preview' })).not.toBeInTheDocument()
    await user.upload(screen.getByLabelText('Main preview image'), png())
    expect(screen.getByRole('img', { name: 'Main preview' })).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Remove main preview' }))
    expect(screen.queryByRole('img', { name: 'Main preview' })).not.toBeInTheDocument()

    const previews = screen.getByLabelText('Additional preview images')
    await user.upload(previews, [png('a.png'), zip('b.zip')])
    expect(await screen.findByText('Please upload only image files for previews.')).toBeInTheDocument()
    await user.upload(previews, [1, 2, 3, 4].map((i) => png(`${i}.png`)))
    expect(screen.getAllByRole('img', { name: /^Preview \d$/ })).toHaveLength(4)
    await user.upload(previews, [png('5.png'), png('6.png'), png('7.png')])
    expect(await screen.findByText('Too many images')).toBeInTheDocument()
    expect(screen.getByText('You can only upload up to 6 total preview images.')).toBeInTheDocument()
    expect(screen.getAllByRole('img', { name: /^Preview \d$/ })).toHaveLength(4)
    await user.click(screen.getByRole('button', { name: 'Remove preview 2' }))
    expect(screen.getAllByRole('img', { name: /^Preview \d$/ })).toHaveLength(3)
    expect(screen.getByRole('heading', { name: 'Additional previews (3/6)' })).toBeInTheDocument()
  })

  it('saves a new paid draft: previews public, the file private under templates/, the draft row, then the drafts tab', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload', options())
    await fillForm(user)
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=draft'))
    expect(await screen.findByText('Template saved as draft successfully.')).toBeInTheDocument()

    expect(fake.uploads.map((u) => u.bucket)).toEqual(['templates', 'templates', 'template-files'])
    expect(fake.uploads[0].path).toMatch(new RegExp(`^u-maya/previews/${NAME}\\.png$`))
    expect(fake.uploads[1].path).toMatch(new RegExp(`^u-maya/previews/${NAME}\\.png$`))
    expect(fake.uploads[2].path).toMatch(new RegExp(`^u-maya/templates/${NAME}/planner\\.zip$`))
    expect((fake.uploads[0].file as File).name).toBe('cover.png')
    for (const u of fake.uploads) expect(u.options).toEqual({ cacheControl: '3600', upsert: false })

    const inserts = fake.callsTo('templates_draft', 'insert')
    expect(inserts).toHaveLength(1)
    expect(inserts[0].payload).toEqual({
      creator_id: 'u-maya',
      title: 'Focus Planner',
      description: 'Plan deep work.',
      about_template: '## About\n\nDetails',
      price: 19.99,
      price_in_cents: 1999,
      category_id: 'c-biz',
      tags: ['focus', 'planner'],
      features_included: ['Template file', 'Video tutorial'],
      requirements: ['Desktop recommended'],
      preview_image_url: PUBLIC + fake.uploads[0].path,
      preview_images: [PUBLIC + fake.uploads[1].path],
      template_file_url: 'template-files/' + fake.uploads[2].path,
      last_edited_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    })
    expect(fake.callsTo('templates_pending_approval')).toHaveLength(0)
  })

  it('submits a new paid template: the file private under files/, a pending row, then the templates list', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload', options())
    await fillForm(user)
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(await screen.findByText('Your template has been submitted for approval.')).toBeInTheDocument()
    expect(fake.uploads[2]).toMatchObject({ bucket: 'template-files', options: { cacheControl: '3600', upsert: false } })
    expect(fake.uploads[2].path).toMatch(new RegExp(`^u-maya/files/${NAME}/planner\\.zip$`))
    const inserts = fake.callsTo('templates_pending_approval', 'insert')
    expect(inserts).toHaveLength(1)
    expect(inserts[0].payload).toEqual({
      creator_id: 'u-maya',
      title: 'Focus Planner',
      description: 'Plan deep work.',
      about_template: '## About\n\nDetails',
      price: 19.99,
      price_in_cents: 1999,
      category_id: 'c-biz',
      tags: ['focus', 'planner'],
      features_included: ['Template file', 'Video tutorial'],
      requirements: ['Desktop recommended'],
      preview_image_url: PUBLIC + fake.uploads[0].path,
      preview_images: [PUBLIC + fake.uploads[1].path],
      template_file_url: 'template-files/' + fake.uploads[2].path,
      status: 'Pending Approval',
    })
    expect(fake.callsTo('templates_draft')).toHaveLength(0)
    expect(fake.callsTo('templates_rejected')).toHaveLength(0)
  })

  it('submits a free template with its file in the public bucket under files/', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload', options())
    await fillForm(user, '0')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(fake.uploads.map((u) => u.bucket)).toEqual(['templates', 'templates', 'templates'])
    expect(fake.uploads[2].path).toMatch(new RegExp(`^u-maya/files/${NAME}/planner\\.zip$`))
    expect(fake.callsTo('templates_pending_approval', 'insert')[0].payload).toMatchObject({
      price: 0,
      price_in_cents: 0,
      template_file_url: PUBLIC + fake.uploads[2].path,
    })
  })

  it('keeps a paid file private: a public draft file is copied across, then its public copy removed', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload?draft=d-1', options({}, { templates_draft: [DRAFT] }))
    await screen.findByText('Draft loaded')
    await openTab(user, 'Pricing')
    await user.clear(screen.getByRole('spinbutton', { name: 'Price (USD)' }))
    await user.paste('9')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(fake.uploads).toHaveLength(0)
    expect(fake.copies).toHaveLength(1)
    expect(fake.copies[0]).toMatchObject({ bucket: 'templates', from: 'u-maya/templates/3-old.zip', destinationBucket: 'template-files' })
    expect(fake.copies[0].to).toMatch(new RegExp(`^u-maya/files/${NAME}/3-old\\.zip$`))
    expect(fake.callsTo('templates_pending_approval', 'insert')[0].payload).toMatchObject({
      price: 9,
      price_in_cents: 900,
      template_file_url: 'template-files/' + fake.copies[0].to,
      // Previews stay public.
      preview_image_url: DRAFT.preview_image_url,
    })
    expect(fake.removals).toEqual([{ bucket: 'templates', paths: ['u-maya/templates/3-old.zip'] }])
  })

  it("shows 'Processing...' with both actions disabled while saving", async () => {
    const user = setup()
    const fake = new FakeSupabase(options())
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const from = fake.from
    fake.from = ((table: string) => {
      const query = from(table)
      if (table === 'templates_draft') {
        const then = query.then.bind(query)
        query.then = ((ok, fail) => gate.then(() => then(ok, fail))) as typeof query.then
      }
      return query
    }) as typeof fake.from
    const { router } = renderApp('/upload', fake)
    await user.type(await screen.findByRole('textbox', { name: 'Title' }), 'Slow Save')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    const processing = await screen.findByRole('button', { name: 'Processing...' })
    expect(processing).toBeDisabled()
    expect(screen.getByRole('button', { name: 'Submit for Review' })).toBeDisabled()
    release()
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=draft'))
  })

  it('tries another name when storage says the resource already exists', async () => {
    const user = setup()
    const { fake } = renderApp('/upload', options({ uploadConflicts: { templates: 1 } }))
    await user.type(await screen.findByRole('textbox', { name: 'Title' }), 'Retry Planner')
    await openTab(user, 'Visuals')
    await user.upload(screen.getByLabelText('Main preview image'), png())
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    expect(await screen.findByText('Template saved as draft successfully.')).toBeInTheDocument()
    expect(fake.uploadAttempts).toHaveLength(1)
    expect(fake.uploads).toHaveLength(1)
    expect(fake.uploads[0].path).toMatch(new RegExp(`^u-maya/previews/${NAME}\\.png$`))
    expect(fake.uploads[0].path).not.toBe(fake.uploadAttempts[0].path)
    expect(fake.callsTo('templates_draft', 'insert')[0].payload).toMatchObject({ preview_image_url: PUBLIC + fake.uploads[0].path })
  })

  it('reports a failed draft save, removes the files it stored and stays', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload', options({ failing: { 'templates_draft:insert': { message: 'boom' } } }))
    await user.type(await screen.findByRole('textbox', { name: 'Title' }), 'Broken Save')
    await openTab(user, 'Visuals')
    await user.upload(screen.getByLabelText('Main preview image'), png())
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    expect(await screen.findByText('Failed to save draft. Please try again.')).toBeInTheDocument()
    expect(fake.removals).toEqual([{ bucket: 'templates', paths: [fake.uploads[0].path] }])
    expect(fake.tables.templates_draft ?? []).toHaveLength(0)
    expect(here(router)).toBe('/upload')
    expect(screen.getByRole('button', { name: 'Save Draft' })).toBeEnabled()
  })

  it('reports a failed submission and stays', async () => {
    const user = setup()
    const { router } = renderApp('/upload', options({ failing: { templates_pending_approval: { message: 'boom' } } }))
    await fillForm(user)
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    expect(await screen.findByText('Failed to submit template. Please try again.')).toBeInTheDocument()
    expect(here(router)).toBe('/upload')
  })

  it('keeps every field and chosen file after a submission that could not reach the server, and sends them all on the next try (issue 24)', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload', options({ failing: { templates_pending_approval: { ...UNREACHABLE } } }))
    await fillForm(user)
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    expect(await screen.findByText('Failed to submit template. Please try again.')).toBeInTheDocument()
    expect(here(router)).toBe('/upload')
    await openTab(user, 'General')
    expect(screen.getByRole('textbox', { name: 'Title' })).toHaveValue('Focus Planner')
    expect(screen.getByRole('textbox', { name: 'Short description' })).toHaveValue('Plan deep work.')
    expect(screen.getByRole('textbox', { name: 'Detailed description' })).toHaveValue('## About\n\nDetails')
    expect(screen.getByRole('combobox', { name: 'Category' })).toHaveValue('c-biz')
    await openTab(user, 'Visuals')
    expect(screen.getByText('cover.png')).toBeInTheDocument()
    expect(screen.getByText('inside.png')).toBeInTheDocument()
    expect(screen.getByTestId('template-file-name')).toHaveTextContent('planner.zip')
    await openTab(user, 'Features')
    expect(screen.getByRole('checkbox', { name: 'Video tutorial' })).toBeChecked()
    expect(screen.getByRole('checkbox', { name: 'Desktop recommended' })).toBeChecked()
    await openTab(user, 'Pricing')
    expect(screen.getByRole('spinbutton', { name: 'Price (USD)' })).toHaveValue(19.99)

    fake.failing = {}
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    const inserts = fake.callsTo('templates_pending_approval', 'insert')
    expect(inserts.at(-1)!.payload).toMatchObject({
      title: 'Focus Planner',
      description: 'Plan deep work.',
      about_template: '## About\n\nDetails',
      category_id: 'c-biz',
      price: 19.99,
      tags: ['focus', 'planner'],
      features_included: ['Template file', 'Video tutorial'],
      requirements: ['Desktop recommended'],
    })
  })

  it('shows the retry state, not an empty new form, when a draft cannot be read; Try again loads it (issue 24)', async () => {
    const user = setup()
    const { fake } = renderApp('/upload?draft=d-1', options({ failing: { templates_draft: { ...UNREACHABLE } } }, { templates_draft: [DRAFT] }))
    const alert = await screen.findByTestId('load-error')
    expect(alert).toHaveTextContent("We couldn't load this template")
    expect(screen.queryByRole('textbox', { name: 'Title' })).not.toBeInTheDocument()
    fake.failing = {}
    await user.click(within(alert).getByRole('button', { name: 'Try again' }))
    expect(await screen.findByRole('textbox', { name: 'Title' })).toHaveValue('Half-done Planner')
  })

  it('keeps the uploaded file name: a saved draft, reloaded, shows it (issue 15, item 14)', async () => {
    const user = setup()
    const saved = renderApp('/upload', options())
    await fillForm(user)
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    await waitFor(() => expect(here(saved.router)).toBe('/dashboard/templates?tab=draft'))
    const row: Row = { ...saved.fake.tables.templates_draft[0], id: 'd-saved' }
    expect(String(row.template_file_url)).toMatch(/\/planner\.zip$/)
    saved.unmount()
    renderApp('/upload?draft=d-saved', options({}, { templates_draft: [row] }))
    await screen.findByText('Draft loaded')
    await openTab(user, 'Visuals')
    expect(await screen.findByText('planner.zip')).toBeInTheDocument()
  })

  it('loads a draft, updates it by id without storing its files again', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload?draft=d-1', options({}, { templates_draft: [DRAFT] }))
    expect(await screen.findByText('Draft loaded')).toBeInTheDocument()
    expect(screen.getByRole('heading', { level: 1, name: 'Edit Draft' })).toBeInTheDocument()
    expect(fake.callsTo('templates_draft', 'select')[0].filters).toEqual(['id=eq.d-1', 'creator_id=eq.u-maya'])
    const title = screen.getByRole('textbox', { name: 'Title' })
    expect(title).toHaveValue('Half-done Planner')
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Category' })).toHaveValue('c-fin'))
    await openTab(user, 'Features')
    // A stored item outside the checklist stays, checked.
    expect(screen.getByRole('checkbox', { name: 'Written by hand' })).toBeChecked()
    expect(screen.getByRole('checkbox', { name: 'Video tutorial' })).toBeChecked()
    await openTab(user, 'General')
    await user.clear(screen.getByRole('textbox', { name: 'Title' }))
    await user.type(screen.getByRole('textbox', { name: 'Title' }), 'Done Planner')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=draft'))
    const updates = fake.callsTo('templates_draft', 'update')
    expect(updates).toHaveLength(1)
    expect(updates[0].filters).toEqual(['id=eq.d-1'])
    expect(updates[0].payload).toMatchObject({
      title: 'Done Planner',
      price: 0,
      price_in_cents: 0,
      category_id: 'c-fin',
      preview_image_url: DRAFT.preview_image_url,
      preview_images: DRAFT.preview_images,
      template_file_url: DRAFT.template_file_url,
      features_included: ['Video tutorial', 'Written by hand'],
    })
    expect(fake.callsTo('templates_draft', 'insert')).toHaveLength(0)
    expect(fake.uploads).toHaveLength(0)
    expect(fake.tables.templates_draft[0].title).toBe('Done Planner')
  })

  it('submits a loaded draft and deletes it', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload?draft=d-1', options({}, { templates_draft: [DRAFT] }))
    await screen.findByText('Draft loaded')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(fake.callsTo('templates_pending_approval', 'insert')[0].payload).toMatchObject({
      title: 'Half-done Planner',
      status: 'Pending Approval',
      template_file_url: DRAFT.template_file_url,
    })
    expect(fake.callsTo('templates_pending_approval', 'insert')[0].payload).not.toHaveProperty('last_edited_at')
    expect(fake.callsTo('templates_draft', 'delete')[0].filters).toEqual(['id=eq.d-1', 'creator_id=eq.u-maya'])
    expect(fake.tables.templates_draft).toHaveLength(0)
    // Not re-read after it is gone.
    expect(screen.queryByText('Failed to load draft template. Please try again.')).not.toBeInTheDocument()
  })

  it('submits a loaded draft that edits a published template as an edit of it', async () => {
    const user = setup()
    const { fake, router } = renderApp(
      '/upload?draft=d-1',
      options({}, { templates_draft: [{ ...DRAFT, original_template_id: 't-planner' }] }),
    )
    await screen.findByText('Draft loaded')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(fake.callsTo('templates_pending_approval', 'insert')[0].payload).toMatchObject({
      title: 'Half-done Planner',
      status: 'Pending Approval',
      original_template_id: 't-planner',
    })
    expect(fake.tables.templates_pending_approval[0].original_template_id).toBe('t-planner')
    expect(fake.tables.templates_draft).toHaveLength(0)
  })

  it('submits a loaded draft of a new template without original_template_id', async () => {
    const user = setup()
    const { fake, router } = renderApp(
      '/upload?draft=d-1',
      options({}, { templates_draft: [{ ...DRAFT, original_template_id: null }] }),
    )
    await screen.findByText('Draft loaded')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(fake.callsTo('templates_pending_approval', 'insert')[0].payload).not.toHaveProperty('original_template_id')
  })

  it('keeps the published template a draft edits when the draft is saved again', async () => {
    const user = setup()
    const { fake, router } = renderApp(
      '/upload?draft=d-1',
      options({}, { templates_draft: [{ ...DRAFT, original_template_id: 't-planner' }] }),
    )
    await screen.findByText('Draft loaded')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=draft'))
    // The update leaves the column alone: it neither clears nor rewrites it.
    expect(fake.callsTo('templates_draft', 'update')[0].payload).not.toHaveProperty('original_template_id')
    expect(fake.tables.templates_draft[0].original_template_id).toBe('t-planner')
  })

  it.each([
    ['removes the public copy of a draft file made paid', null, true],
    ['keeps the public copy when the draft edits a published template (it may share it)', 't-planner', false],
  ])('%s', async (_name, original, removed) => {
    const user = setup()
    const { fake, router } = renderApp(
      '/upload?draft=d-1',
      options({}, { templates_draft: [{ ...DRAFT, original_template_id: original }] }),
    )
    await screen.findByText('Draft loaded')
    await openTab(user, 'Pricing')
    await user.clear(screen.getByRole('spinbutton', { name: 'Price (USD)' }))
    await user.paste('5')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(fake.copies).toHaveLength(1)
    expect(fake.copies[0]).toMatchObject({ from: 'u-maya/templates/3-old.zip', destinationBucket: 'template-files' })
    expect(fake.removals).toEqual(removed ? [{ bucket: 'templates', paths: ['u-maya/templates/3-old.zip'] }] : [])
  })

  it("does not load someone else's draft", async () => {
    renderApp('/upload?draft=d-1', options({}, { templates_draft: [{ ...DRAFT, creator_id: 'u-leo' }] }))
    expect(await screen.findByText('Failed to load draft template. Please try again.')).toBeInTheDocument()
    expect(screen.getByRole('heading', { level: 1, name: 'Upload Template' })).toBeInTheDocument()
    expect(screen.getByRole('textbox', { name: 'Title' })).toHaveValue('')
  })

  it('loads a rejected template with its feedback and resubmits it, deleting the rejected row', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload?template=r-1', options({}, { templates_rejected: [REJECTED] }))
    expect(await screen.findByText('Rejected template loaded')).toBeInTheDocument()
    expect(screen.getByText('Please address the rejection feedback and resubmit.')).toBeInTheDocument()
    const feedback = screen.getByRole('region', { name: 'Rejection feedback' })
    expect(feedback).toHaveTextContent('Please add setup instructions.')
    expect(feedback).toHaveTextContent('Rejected on Jun 2, 2024')
    expect(fake.callsTo('templates_rejected', 'select')[0].filters).toEqual(['id=eq.r-1', 'creator_id=eq.u-maya'])
    expect(screen.getByRole('textbox', { name: 'Title' })).toHaveValue('Rejected Tracker')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(await screen.findByText('Your template has been resubmitted for approval.')).toBeInTheDocument()
    const deleted = fake.calls.findIndex((c) => c.table === 'templates_rejected' && c.op === 'delete')
    const inserted = fake.calls.findIndex((c) => c.table === 'templates_pending_approval' && c.op === 'insert')
    expect(deleted).toBeGreaterThan(-1)
    expect(deleted).toBeLessThan(inserted)
    expect(fake.calls[deleted].filters).toEqual(['id=eq.r-1', 'creator_id=eq.u-maya'])
    expect(fake.calls[inserted].payload).toMatchObject({
      title: 'Rejected Tracker',
      status: 'Pending Approval',
      original_template_id: 't-planner',
      preview_image_url: REJECTED.preview_image_url,
    })
    expect(fake.tables.templates_rejected).toHaveLength(0)
  })

  it("copies a rejected edit's public file when it becomes paid, but keeps the original (it may be shared)", async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload?template=r-1', options({}, { templates_rejected: [REJECTED] }))
    await screen.findByText('Rejected template loaded')
    await openTab(user, 'Pricing')
    await user.clear(screen.getByRole('spinbutton', { name: 'Price (USD)' }))
    await user.paste('3')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(fake.copies).toHaveLength(1)
    expect(fake.copies[0]).toMatchObject({ from: 'u-maya/files/9-old.zip', destinationBucket: 'template-files' })
    expect(fake.callsTo('templates_pending_approval', 'insert')[0].payload).toMatchObject({
      template_file_url: 'template-files/' + fake.copies[0].to,
      original_template_id: 't-planner',
    })
    expect(fake.removals).toEqual([])
  })

  it('saves a rejected template as a draft under the same id and deletes the rejected row', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload?template=r-1', options({}, { templates_rejected: [REJECTED] }))
    await screen.findByText('Rejected template loaded')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=draft'))
    expect(fake.callsTo('templates_draft', 'insert')[0].payload).toMatchObject({ id: 'r-1', creator_id: 'u-maya', title: 'Rejected Tracker' })
    expect(fake.callsTo('templates_rejected', 'delete')[0].filters).toEqual(['id=eq.r-1', 'creator_id=eq.u-maya'])
    expect(fake.tables.templates_rejected).toHaveLength(0)
    expect(fake.tables.templates_draft.map((d) => d.id)).toEqual(['r-1'])
  })

  it('keeps the published template a rejected edit edits when it is saved as a draft, and submits the draft as that edit', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload?template=r-1', options({}, { templates_rejected: [REJECTED] }))
    await screen.findByText('Rejected template loaded')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=draft'))
    expect(fake.callsTo('templates_draft', 'insert')[0].payload).toMatchObject({
      id: 'r-1',
      title: 'Rejected Tracker',
      original_template_id: 't-planner',
    })
    expect(fake.tables.templates_draft[0].original_template_id).toBe('t-planner')

    // Continued later from My Templates (/upload?draft=): submitted as the same edit.
    await act(() => router.navigate('/upload?draft=r-1'))
    expect(await screen.findByText('Draft loaded')).toBeInTheDocument()
    expect(screen.getByRole('textbox', { name: 'Title' })).toHaveValue('Rejected Tracker')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(fake.callsTo('templates_pending_approval', 'insert')[0].payload).toMatchObject({
      title: 'Rejected Tracker',
      status: 'Pending Approval',
      original_template_id: 't-planner',
    })
    expect(fake.tables.templates_draft).toHaveLength(0)
  })

  it('saves a rejected template of a new template as a draft without original_template_id', async () => {
    const user = setup()
    const { fake, router } = renderApp(
      '/upload?template=r-1',
      options({}, { templates_rejected: [{ ...REJECTED, original_template_id: null }] }),
    )
    await screen.findByText('Rejected template loaded')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=draft'))
    expect(fake.callsTo('templates_draft', 'insert')[0].payload).not.toHaveProperty('original_template_id')
  })

  it('removes the new draft again when the rejected row cannot be deleted', async () => {
    const user = setup()
    const { fake, router } = renderApp(
      '/upload?template=r-1',
      options({ failing: { 'templates_rejected:delete': { message: 'denied' } } }, { templates_rejected: [REJECTED] }),
    )
    await screen.findByText('Rejected template loaded')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    expect(await screen.findByText('Failed to save draft. Please try again.')).toBeInTheDocument()
    expect(fake.callsTo('templates_draft', 'delete')[0].filters).toEqual(['id=eq.r-1', 'creator_id=eq.u-maya'])
    expect(fake.tables.templates_draft).toHaveLength(0)
    expect(fake.tables.templates_rejected).toHaveLength(1)
    expect(here(router)).toBe('/upload?template=r-1')
  })

  it('reports a rejected template that cannot be read', async () => {
    renderApp('/upload?template=r-404', options({}, { templates_rejected: [REJECTED] }))
    expect(await screen.findByText('Failed to load rejected template. Please try again.')).toBeInTheDocument()
    expect(screen.queryByRole('region', { name: 'Rejection feedback' })).not.toBeInTheDocument()
  })

  it('opens a pending template from My Templates: looked up as rejected first, then pending', async () => {
    const user = setup()
    const { fake, router } = renderApp('/dashboard/templates?tab=pending', options({}, { templates_pending_approval: [PENDING] }))
    const card = await screen.findByRole('article', { name: 'Waiting Planner' })
    await user.click(within(card).getByRole('link', { name: 'Edit' }))
    await waitFor(() => expect(here(router)).toBe('/upload?template=p-1'))
    expect(await screen.findByText('Pending template loaded')).toBeInTheDocument()
    expect(screen.getByText('Submitting your changes replaces the submission waiting for review.')).toBeInTheDocument()
    expect(screen.getByRole('heading', { level: 1, name: 'Edit Pending Template' })).toBeInTheDocument()
    expect(screen.getByText(/This template is waiting for review\. Submitting your changes replaces the submission/)).toBeInTheDocument()
    expect(screen.getByText(/submitted Jun 3, 2024/)).toBeInTheDocument()
    expect(screen.queryByText('Failed to load rejected template. Please try again.')).not.toBeInTheDocument()
    expect(screen.queryByRole('region', { name: 'Rejection feedback' })).not.toBeInTheDocument()
    const rejected = fake.calls.findIndex(
      (c) => c.table === 'templates_rejected' && c.op === 'select' && c.filters.includes('id=eq.p-1'),
    )
    const pending = fake.calls.findIndex(
      (c) => c.table === 'templates_pending_approval' && c.op === 'select' && c.filters.includes('id=eq.p-1'),
    )
    expect(rejected).toBeGreaterThan(-1)
    expect(rejected).toBeLessThan(pending)
    expect(fake.calls[rejected].filters).toEqual(['id=eq.p-1', 'creator_id=eq.u-maya'])
    expect(fake.calls[pending].filters).toEqual(['id=eq.p-1', 'creator_id=eq.u-maya'])
    expect(screen.getByRole('textbox', { name: 'Title' })).toHaveValue('Waiting Planner')
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Category' })).toHaveValue('c-prod'))
  })

  it('replaces a pending submission: inserts the new row, then deletes the old one, reusing its files', async () => {
    const user = setup()
    const { fake, router } = renderApp(
      '/upload?template=p-1',
      options({}, { templates_pending_approval: [{ ...PENDING, original_template_id: 't-planner' }] }),
    )
    await screen.findByText('Pending template loaded')
    const title = screen.getByRole('textbox', { name: 'Title' })
    await user.clear(title)
    await user.type(title, 'Better Planner')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(await screen.findByText('Your template has been resubmitted for approval.')).toBeInTheDocument()
    const inserted = fake.calls.findIndex((c) => c.table === 'templates_pending_approval' && c.op === 'insert')
    const deleted = fake.calls.findIndex((c) => c.table === 'templates_pending_approval' && c.op === 'delete')
    expect(inserted).toBeGreaterThan(-1)
    expect(inserted).toBeLessThan(deleted)
    expect(fake.calls[deleted].filters).toEqual(['id=eq.p-1', 'creator_id=eq.u-maya'])
    const payload = fake.calls[inserted].payload as Row
    expect(payload).toMatchObject({
      creator_id: 'u-maya',
      title: 'Better Planner',
      status: 'Pending Approval',
      original_template_id: 't-planner',
      preview_image_url: PENDING.preview_image_url,
      preview_images: PENDING.preview_images,
      template_file_url: PENDING.template_file_url,
      features_included: ['Setup instructions'],
    })
    expect(payload.id).toMatch(UUID)
    expect(payload).not.toHaveProperty('last_edited_at')
    expect(fake.calls.some((c) => c.table === 'templates_pending_approval' && c.op === 'update')).toBe(false)
    expect(fake.tables.templates_pending_approval.map((r) => [r.id, r.title])).toEqual([[payload.id, 'Better Planner']])
    // The same files, not stored again and not removed.
    expect(fake.uploads).toHaveLength(0)
    expect(fake.removals).toEqual([])
  })

  it('keeps the old submission when the new pending row cannot be inserted', async () => {
    const user = setup()
    const { fake, router } = renderApp(
      '/upload?template=p-1',
      options({ failing: { 'templates_pending_approval:insert': { message: 'boom' } } }, { templates_pending_approval: [PENDING] }),
    )
    await screen.findByText('Pending template loaded')
    await openTab(user, 'Visuals')
    await user.upload(screen.getByLabelText('Main preview image'), png('new.png'))
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    expect(await screen.findByText('Failed to submit template. Please try again.')).toBeInTheDocument()
    expect(fake.callsTo('templates_pending_approval', 'delete')).toHaveLength(0)
    expect(fake.tables.templates_pending_approval).toEqual([PENDING])
    // The preview stored for the failed submission is removed again.
    expect(fake.removals).toEqual([{ bucket: 'templates', paths: [fake.uploads[0].path] }])
    expect(here(router)).toBe('/upload?template=p-1')
  })

  it('removes the new pending row again when the old one cannot be deleted', async () => {
    const user = setup()
    const fake = new FakeSupabase(options({}, { templates_pending_approval: [PENDING] }))
    failNextDelete(fake, 'templates_pending_approval', 'denied')
    const { router } = renderApp('/upload?template=p-1', fake)
    await screen.findByText('Pending template loaded')
    await user.clear(screen.getByRole('textbox', { name: 'Title' }))
    await user.type(screen.getByRole('textbox', { name: 'Title' }), 'Better Planner')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    expect(await screen.findByText('Failed to submit template. Please try again.')).toBeInTheDocument()
    const newId = (fake.callsTo('templates_pending_approval', 'insert')[0].payload as Row).id
    const deletes = fake.callsTo('templates_pending_approval', 'delete')
    expect(deletes.map((c) => c.filters)).toEqual([
      ['id=eq.p-1', 'creator_id=eq.u-maya'],
      [`id=eq.${newId}`, 'creator_id=eq.u-maya'],
    ])
    expect(fake.tables.templates_pending_approval).toEqual([PENDING])
    expect(here(router)).toBe('/upload?template=p-1')
  })

  it('does not add a second submission when the pending one was reviewed meanwhile', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload?template=p-1', options({}, { templates_pending_approval: [PENDING] }))
    await screen.findByText('Pending template loaded')
    // An admin approves it while the creator edits.
    fake.tables.templates_pending_approval = []
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    expect(
      await screen.findByText(
        'This template is no longer waiting for review, so your changes were not submitted. Check My Templates for its status.',
      ),
    ).toBeInTheDocument()
    expect(fake.callsTo('templates_pending_approval', 'insert')).toHaveLength(1)
    expect(fake.tables.templates_pending_approval).toEqual([])
    expect(here(router)).toBe('/upload?template=p-1')
  })

  it('saves a pending template as a draft under its id and takes it out of the review queue', async () => {
    const user = setup()
    const { fake, router } = renderApp('/upload?template=p-1', options({}, { templates_pending_approval: [PENDING] }))
    await screen.findByText('Pending template loaded')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=draft'))
    expect(await screen.findByText('Template saved as draft successfully.')).toBeInTheDocument()
    const inserted = fake.calls.findIndex((c) => c.table === 'templates_draft' && c.op === 'insert')
    const deleted = fake.calls.findIndex((c) => c.table === 'templates_pending_approval' && c.op === 'delete')
    expect(inserted).toBeGreaterThan(-1)
    expect(inserted).toBeLessThan(deleted)
    expect(fake.calls[inserted].payload).toMatchObject({
      id: 'p-1',
      creator_id: 'u-maya',
      title: 'Waiting Planner',
      template_file_url: PENDING.template_file_url,
    })
    expect(fake.calls[deleted].filters).toEqual(['id=eq.p-1', 'creator_id=eq.u-maya'])
    expect(fake.tables.templates_pending_approval).toHaveLength(0)
    expect(fake.tables.templates_draft.map((d) => d.id)).toEqual(['p-1'])
    expect(fake.removals).toEqual([])
  })

  it('keeps the published template a pending edit edits when it is saved as a draft', async () => {
    const user = setup()
    const { fake, router } = renderApp(
      '/upload?template=p-1',
      options({}, { templates_pending_approval: [{ ...PENDING, original_template_id: 't-planner' }] }),
    )
    await screen.findByText('Pending template loaded')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=draft'))
    expect(fake.callsTo('templates_draft', 'insert')[0].payload).toMatchObject({
      id: 'p-1',
      title: 'Waiting Planner',
      original_template_id: 't-planner',
    })
    expect(fake.tables.templates_draft.map((d) => [d.id, d.original_template_id])).toEqual([['p-1', 't-planner']])
    expect(fake.tables.templates_pending_approval).toHaveLength(0)
  })

  it('removes the new draft again when the pending row cannot be deleted', async () => {
    const user = setup()
    const { fake, router } = renderApp(
      '/upload?template=p-1',
      options({ failing: { 'templates_pending_approval:delete': { message: 'denied' } } }, { templates_pending_approval: [PENDING] }),
    )
    await screen.findByText('Pending template loaded')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    expect(await screen.findByText('Failed to save draft. Please try again.')).toBeInTheDocument()
    expect(fake.callsTo('templates_draft', 'delete')[0].filters).toEqual(['id=eq.p-1', 'creator_id=eq.u-maya'])
    expect(fake.tables.templates_draft).toHaveLength(0)
    expect(fake.tables.templates_pending_approval).toEqual([PENDING])
    expect(here(router)).toBe('/upload?template=p-1')
  })

  it.each([
    ['removes the public copy of a pending file made paid once the old row is gone', null, true],
    ['keeps the public copy when the pending row edits a published template (it may share it)', 't-planner', false],
  ])('%s', async (_name, original, removed) => {
    const user = setup()
    const { fake, router } = renderApp(
      '/upload?template=p-1',
      options({}, { templates_pending_approval: [{ ...PENDING, original_template_id: original }] }),
    )
    await screen.findByText('Pending template loaded')
    await openTab(user, 'Pricing')
    await user.clear(screen.getByRole('spinbutton', { name: 'Price (USD)' }))
    await user.paste('5')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(fake.copies).toHaveLength(1)
    expect(fake.copies[0]).toMatchObject({ from: 'u-maya/files/7-old.zip', destinationBucket: 'template-files' })
    expect(fake.tables.templates_pending_approval).toHaveLength(1)
    expect(fake.tables.templates_pending_approval[0]).toMatchObject({ price: 5, template_file_url: 'template-files/' + fake.copies[0].to })
    expect(fake.callsTo('templates_pending_approval', 'delete')).toHaveLength(1)
    expect(fake.removals).toEqual(removed ? [{ bucket: 'templates', paths: ['u-maya/files/7-old.zip'] }] : [])
  })

  it("does not load someone else's pending template", async () => {
    renderApp('/upload?template=p-1', options({}, { templates_pending_approval: [{ ...PENDING, creator_id: 'u-leo' }] }))
    expect(await screen.findByText('Failed to load rejected template. Please try again.')).toBeInTheDocument()
    expect(screen.getByRole('heading', { level: 1, name: 'Upload Template' })).toBeInTheDocument()
    expect(screen.getByRole('textbox', { name: 'Title' })).toHaveValue('')
  })

  it('reports a pending store that cannot be read', async () => {
    const { fake } = renderApp(
      '/upload?template=p-1',
      options({ failing: { 'templates_pending_approval:select': { message: 'boom' } } }, { templates_pending_approval: [PENDING] }),
    )
    expect(await screen.findByText('Failed to load pending template. Please try again.')).toBeInTheDocument()
    expect(fake.callsTo('templates_rejected', 'select')).toHaveLength(1)
    expect(screen.getByRole('heading', { level: 1, name: 'Upload Template' })).toBeInTheDocument()
  })

  it('is the same screen for an admin on /dashboard/admin/upload, and denied to others', async () => {
    const user = setup()
    const { fake, router } = renderApp('/dashboard/admin/upload', options({}, { admins: [{ id: 'a-1', user_id: 'u-maya' }] }))
    expect(await screen.findByRole('heading', { level: 1, name: 'Upload Template' })).toBeInTheDocument()
    await user.type(screen.getByRole('textbox', { name: 'Title' }), 'Admin Planner')
    await openTab(user, 'Actions')
    await user.click(screen.getByRole('button', { name: 'Save Draft' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=draft'))
    expect(fake.callsTo('templates_draft', 'insert')[0].payload).toMatchObject({ creator_id: 'u-maya', title: 'Admin Planner' })
  })

  it('shows Access Denied on /dashboard/admin/upload to a non-admin', async () => {
    renderApp('/dashboard/admin/upload', options())
    expect(await screen.findByText('Access Denied')).toBeInTheDocument()
    expect(screen.queryByRole('heading', { name: 'Upload Template' })).not.toBeInTheDocument()
  })
})
