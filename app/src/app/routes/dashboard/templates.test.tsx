import { describe, expect, it } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { marketplace, MAYA, template } from '@/testing/fixtures'
import type { Row } from '@/testing/fake-supabase'

const STORAGE = 'http://localhost:3000/storage/v1/object/public/templates'

const DRAFTS: Row[] = [
  {
    id: 'd-1', creator_id: 'u-maya', title: 'OKR Tracker', description: 'Objectives for teams.', price: 0, tags: ['okr'],
    preview_image_url: `${STORAGE}/u-maya/previews/1-a.png`,
    preview_images: [`${STORAGE}/u-maya/previews/1-a.png`, `${STORAGE}/u-maya/previews/2-b%20c.png`],
    template_file_url: `${STORAGE}/u-maya/templates/3-c.zip`,
    last_edited_at: '2024-06-02T00:00:00Z',
  },
  { id: 'd-leo', creator_id: 'u-leo', title: 'Leo Draft', price: 0, tags: [], last_edited_at: '2024-06-05T00:00:00Z' },
]
const PENDING: Row[] = [
  {
    id: 'p-1', creator_id: 'u-maya', title: 'Exam Countdown', description: 'Revision slots.', price: 6, tags: [], status: 'Pending Approval',
    preview_image_url: `${STORAGE}/u-maya/previews/shared.png`, preview_images: ['/demo/study.svg'],
    template_file_url: 'template-files/u-maya/files/9-paid.zip', original_template_id: 't-a',
    created_at: '2024-06-03T00:00:00Z',
  },
]
const REJECTED: Row[] = [
  {
    id: 'r-1', creator_id: 'u-maya', title: 'Quick Invoice', description: 'Invoices.', price: 3, tags: [], preview_image_url: null, preview_images: [],
    template_file_url: null, rejection_comment: 'The preview images are missing.', rejection_date: '2024-06-04T12:00:00Z',
  },
]
const PUBLISHED: Row[] = [
  template({ id: 't-a', title: 'Calm Planner', preview_image_url: `${STORAGE}/u-maya/previews/shared.png`, updated_at: '2024-06-01T00:00:00Z' }),
  template({ id: 't-leo', title: 'Startup CRM', user_id: 'u-leo' }),
]

function tables(extra: Record<string, Row[]> = {}) {
  return marketplace({
    templates: PUBLISHED,
    templates_draft: DRAFTS,
    templates_pending_approval: PENDING,
    templates_rejected: REJECTED,
    ...extra,
  })
}

const empty = () => marketplace({ templates: [], templates_draft: [], templates_pending_approval: [], templates_rejected: [] })

function card(title: string) {
  return screen.getByRole('article', { name: title })
}

describe('my templates', () => {
  it('lists every template of the user under All, newest activity first, with its label', async () => {
    const { fake } = renderApp('/dashboard/templates', { tables: tables(), signedInAs: MAYA })
    await screen.findByRole('article', { name: 'Quick Invoice' })
    const titles = screen.getAllByRole('article').map((a) => within(a).getByRole('heading').textContent)
    expect(titles).toEqual(['Quick Invoice', 'Exam Countdown', 'OKR Tracker', 'Calm Planner'])
    expect(within(card('OKR Tracker')).getByText('Draft')).toBeInTheDocument()
    expect(within(card('Exam Countdown')).getByText('Pending Approval')).toBeInTheDocument()
    expect(within(card('Calm Planner')).getByText('Published')).toBeInTheDocument()
    expect(within(card('Quick Invoice')).getByText('Rejected')).toBeInTheDocument()
    // Each store is read only where its owner is the user.
    expect(fake.callsTo('templates_draft', 'select')[0].filters).toEqual(['creator_id=eq.u-maya'])
    expect(fake.callsTo('templates_pending_approval', 'select')[0].filters).toEqual(['creator_id=eq.u-maya'])
    expect(fake.callsTo('templates_rejected', 'select')[0].filters).toEqual(['creator_id=eq.u-maya'])
    expect(fake.callsTo('templates', 'select')[0].filters).toEqual(['user_id=eq.u-maya', 'status=eq.published'])
    expect(screen.getByRole('link', { name: 'Create Template' })).toHaveAttribute('href', '/upload')
  })

  it('keeps the tab in the URL', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/dashboard/templates', { tables: tables(), signedInAs: MAYA })
    await screen.findByRole('article', { name: 'Quick Invoice' })
    await user.click(screen.getByRole('tab', { name: 'Drafts' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=draft'))
    expect(screen.getAllByRole('article').map((a) => within(a).getByRole('heading').textContent)).toEqual(['OKR Tracker'])
    await user.click(screen.getByRole('tab', { name: 'Published' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=published'))
    expect(screen.getByRole('article', { name: 'Calm Planner' })).toBeInTheDocument()
    expect(screen.queryByRole('article', { name: 'OKR Tracker' })).not.toBeInTheDocument()
    await user.click(screen.getByRole('tab', { name: 'All' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
  })

  it('opens the tab named in the URL, and shows the rejection details', async () => {
    renderApp('/dashboard/templates?tab=rejected', { tables: tables(), signedInAs: MAYA })
    expect(await screen.findByRole('tab', { name: 'Rejected', selected: true })).toBeInTheDocument()
    const rejected = await screen.findByRole('article', { name: 'Quick Invoice' })
    const note = within(rejected).getByRole('note', { name: 'Rejection details' })
    expect(note).toHaveTextContent('The preview images are missing.')
    expect(note).toHaveTextContent('Rejected on Jun 4, 2024')
    expect(screen.getAllByRole('article')).toHaveLength(1)
  })

  it.each([
    ['/dashboard/templates', 'No templates yet'],
    ['/dashboard/templates?tab=draft', 'No drafts'],
    ['/dashboard/templates?tab=pending', 'No templates pending approval'],
    ['/dashboard/templates?tab=published', 'No published templates'],
    ['/dashboard/templates?tab=rejected', 'No rejected templates'],
  ])('says so when %s is empty', async (path, text) => {
    renderApp(path, { tables: empty(), signedInAs: MAYA })
    expect(await screen.findByText(text)).toBeInTheDocument()
  })

  it('links each card to its editor', async () => {
    renderApp('/dashboard/templates', { tables: tables(), signedInAs: MAYA })
    await screen.findByRole('article', { name: 'Quick Invoice' })
    expect(within(card('OKR Tracker')).getByRole('link', { name: 'Continue Editing' })).toHaveAttribute('href', '/upload?draft=d-1')
    expect(within(card('Calm Planner')).getByRole('link', { name: 'Edit' })).toHaveAttribute('href', '/dashboard/templates/edit/t-a')
    expect(within(card('Quick Invoice')).getByRole('link', { name: 'Edit' })).toHaveAttribute('href', '/upload?template=r-1')
    expect(within(card('Exam Countdown')).getByRole('link', { name: 'Edit' })).toHaveAttribute('href', '/upload?template=p-1')
    expect(within(card('Calm Planner')).getByRole('link', { name: 'View' })).toHaveAttribute('href', '/template/t-a')
    // Published templates cannot be deleted by their owner (no delete policy on templates).
    expect(within(card('Calm Planner')).queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument()
    expect(within(card('OKR Tracker')).getByRole('button', { name: 'Delete OKR Tracker' })).toBeInTheDocument()
  })

  it('deletes a draft after confirmation: its row by id and owner, then its files', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/templates?tab=draft', { tables: tables(), signedInAs: MAYA })
    await user.click(await screen.findByRole('button', { name: 'Delete OKR Tracker' }))
    const dialog = await screen.findByRole('alertdialog', { name: 'Are you sure?' })
    expect(within(dialog).getByText('This action cannot be undone. This will permanently delete your template draft')).toBeInTheDocument()
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(fake.callsTo('templates_draft', 'delete')).toHaveLength(0)
    expect(screen.getByRole('article', { name: 'OKR Tracker' })).toBeInTheDocument()

    await user.click(screen.getByRole('button', { name: 'Delete OKR Tracker' }))
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Template deleted successfully')).toBeInTheDocument()
    const deletes = fake.callsTo('templates_draft', 'delete')
    expect(deletes).toHaveLength(1)
    expect(deletes[0].filters).toEqual(['id=eq.d-1', 'creator_id=eq.u-maya'])
    expect(fake.removals).toEqual([{ bucket: 'templates', paths: ['u-maya/previews/1-a.png', 'u-maya/previews/2-b c.png', 'u-maya/templates/3-c.zip'] }])
    expect(fake.tables.templates_draft.map((r) => r.id)).toEqual(['d-leo'])
    expect(await screen.findByText('No drafts')).toBeInTheDocument()
  })

  it('deletes a pending submission, keeping the files its published template still uses', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/templates?tab=pending', { tables: tables(), signedInAs: MAYA })
    await user.click(await screen.findByRole('button', { name: 'Delete Exam Countdown' }))
    const dialog = await screen.findByRole('alertdialog', { name: 'Are you sure?' })
    expect(within(dialog).getByText('This action cannot be undone. This will permanently delete your template')).toBeInTheDocument()
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Template deleted successfully')).toBeInTheDocument()
    expect(fake.callsTo('templates_pending_approval', 'delete')[0].filters).toEqual(['id=eq.p-1', 'creator_id=eq.u-maya'])
    // shared.png is the published template's preview; /demo/study.svg is a site asset.
    expect(fake.removals).toEqual([{ bucket: 'template-files', paths: ['u-maya/files/9-paid.zip'] }])
    expect(fake.tables.templates_pending_approval).toEqual([])
  })

  it('deletes a draft of an edit, keeping the files its published template still uses', async () => {
    const user = userEvent.setup()
    const edit = { ...DRAFTS[0], preview_image_url: `${STORAGE}/u-maya/previews/shared.png`, original_template_id: 't-a' }
    const { fake } = renderApp('/dashboard/templates?tab=draft', { tables: tables({ templates_draft: [edit] }), signedInAs: MAYA })
    await user.click(await screen.findByRole('button', { name: 'Delete OKR Tracker' }))
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Template deleted successfully')).toBeInTheDocument()
    expect(fake.callsTo('templates', 'select').some((c) => c.filters.join() === 'id=eq.t-a')).toBe(true)
    // shared.png is the published template's preview: kept. (The fake returns
    // whole rows whatever the select names, so this guards the behaviour, not
    // the select string that asks the real server for original_template_id.)
    expect(fake.removals).toEqual([{ bucket: 'templates', paths: ['u-maya/previews/1-a.png', 'u-maya/previews/2-b c.png', 'u-maya/templates/3-c.zip'] }])
  })

  it('deletes a rejected template from the rejected store', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/templates?tab=rejected', { tables: tables(), signedInAs: MAYA })
    await user.click(await screen.findByRole('button', { name: 'Delete Quick Invoice' }))
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Template deleted successfully')).toBeInTheDocument()
    expect(fake.callsTo('templates_rejected', 'delete')[0].filters).toEqual(['id=eq.r-1', 'creator_id=eq.u-maya'])
    expect(fake.removals).toEqual([])
    expect(await screen.findByText('No rejected templates')).toBeInTheDocument()
  })

  it('reports a failed delete and removes no files', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/templates?tab=draft', { tables: tables(), signedInAs: MAYA })
    await user.click(await screen.findByRole('button', { name: 'Delete OKR Tracker' }))
    fake.failing.templates_draft = { message: 'permission denied', code: '42501' }
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Failed to delete template. Please try again.')).toBeInTheDocument()
    expect(screen.queryByText('Template deleted successfully')).not.toBeInTheDocument()
    expect(fake.removals).toEqual([])
  })

  it('reports a delete that found nothing to delete (gone meanwhile) without touching files', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/templates?tab=draft', { tables: tables(), signedInAs: MAYA })
    await user.click(await screen.findByRole('button', { name: 'Delete OKR Tracker' }))
    fake.tables.templates_draft = fake.tables.templates_draft.filter((r) => r.id !== 'd-1')
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Failed to delete template. Please try again.')).toBeInTheDocument()
    expect(fake.removals).toEqual([])
    // The list is read again and no longer shows it.
    expect(await screen.findByText('No drafts')).toBeInTheDocument()
  })

  it('still reports success when only the file removal fails', async () => {
    const user = userEvent.setup()
    renderApp('/dashboard/templates?tab=draft', {
      tables: tables(),
      signedInAs: MAYA,
      failing: { 'storage-remove:templates': { message: 'storage down' } },
    })
    await user.click(await screen.findByRole('button', { name: 'Delete OKR Tracker' }))
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Template deleted successfully')).toBeInTheDocument()
  })

  it('says so when the templates cannot be loaded', async () => {
    renderApp('/dashboard/templates', { tables: tables(), signedInAs: MAYA, failing: { templates_rejected: { message: 'down' } } })
    expect(await screen.findByText('Failed to load templates. Please try again.')).toBeInTheDocument()
  })
})
