// The review page and the queue when the server refuses a decision (spec
// section 8, admin: 'Failed to update template status'): the admin stays
// where they were and the submission stays pending.
import { describe, expect, it } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { FakeSupabase, type Row } from '@/testing/fake-supabase'
import { marketplace } from '@/testing/fixtures'

const ADMIN = { id: 'u-admin', email: 'admin@example.com', password: 'secret-pass', display_name: 'Ada Admin' }
const REFUSED = { error: { message: 'Only admins may review templates', code: '42501' } }

function submission(id: string, title: string): Row {
  return {
    id,
    title,
    creator_id: 'u-maya',
    description: 'Revision slots and countdowns.',
    about_template: 'A planner.',
    price: 0,
    price_in_cents: 0,
    category_id: 'c-prod',
    category: { name: 'Productivity', slug: 'productivity' },
    tags: [],
    preview_image_url: null,
    preview_images: [],
    template_file_url: null,
    template_url: 'https://example.com/templates/exam',
    status: 'Pending Approval',
    rejection_comment: null,
    created_at: new Date().toISOString(),
  }
}

/** An admin whose every decision the server refuses. */
function refusingBackend() {
  return new FakeSupabase({
    tables: marketplace({
      admins: [{ id: 'a-1', user_id: ADMIN.id }],
      templates_pending_approval: [submission('p-new', 'Exam Countdown'), submission('p-old', 'Meal Prep Planner')],
    }),
    signedInAs: ADMIN,
    rpc: { admin_approve_template: () => REFUSED, admin_reject_template: () => REFUSED },
  })
}

describe('ReviewPage when the decision fails', () => {
  it('says so on a refused approval and stays on the submission', async () => {
    const user = userEvent.setup()
    const { fake, router } = renderApp('/dashboard/admin/template/p-new?returnTo=%2Fdashboard%2Fadmin', refusingBackend())
    await user.click(await screen.findByRole('button', { name: 'Approve Template' }))
    expect(await screen.findByText('Failed to update template status')).toBeInTheDocument()
    expect(fake.rpc).toHaveBeenCalledWith('admin_approve_template', { pending_template_id: 'p-new' })
    expect(screen.queryByText('Template approved and published successfully')).not.toBeInTheDocument()
    expect(here(router)).toBe('/dashboard/admin/template/p-new?returnTo=%2Fdashboard%2Fadmin')
    await waitFor(() => expect(screen.getByRole('button', { name: 'Approve Template' })).toBeEnabled())
    expect(screen.getByLabelText('Review status')).toHaveValue('Pending Approval')
  })

  it('says so on a refused rejection and keeps the dialog with the reason', async () => {
    const user = userEvent.setup()
    const { fake, router } = renderApp('/dashboard/admin/template/p-new', refusingBackend())
    await user.click(await screen.findByRole('button', { name: 'Reject Template' }))
    const dialog = await screen.findByRole('dialog')
    await user.type(within(dialog).getByLabelText('Rejection reason'), 'Add setup instructions.')
    await user.click(within(dialog).getByRole('button', { name: 'Reject Template' }))
    expect(await screen.findByText('Failed to update template status')).toBeInTheDocument()
    expect(fake.rpc).toHaveBeenCalledWith('admin_reject_template', { pending_template_id: 'p-new', reason: 'Add setup instructions.' })
    expect(screen.queryByText('Template rejected successfully')).not.toBeInTheDocument()
    expect(here(router)).toBe('/dashboard/admin/template/p-new')
    expect(within(screen.getByRole('dialog')).getByLabelText('Rejection reason')).toHaveValue('Add setup instructions.')
  })
})

describe('AdminPanel when a rejection fails', () => {
  it('says so and keeps the submission in the queue', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/admin', refusingBackend())
    await waitFor(() => expect(screen.getAllByTestId('pending-row')).toHaveLength(2))
    await user.selectOptions(screen.getByLabelText('Status of Meal Prep Planner'), 'Reject')
    const dialog = await screen.findByRole('dialog', { name: 'Reject "Meal Prep Planner"' })
    await user.type(within(dialog).getByLabelText('Rejection reason'), 'Blurry previews.')
    await user.click(within(dialog).getByRole('button', { name: 'Reject Template' }))
    expect(await screen.findByText('Failed to update template status')).toBeInTheDocument()
    expect(fake.rpc).toHaveBeenCalledWith('admin_reject_template', { pending_template_id: 'p-old', reason: 'Blurry previews.' })
    expect(screen.getAllByTestId('pending-row')).toHaveLength(2)
    expect(fake.tables.templates_pending_approval).toHaveLength(2)
  })
})

// Issue 44, item 3: a submission with nothing to download cannot be approved.
describe('approval of a submission without a file or link', () => {
  const NO_DOWNLOAD = 'This template has no file or link to download; ask the creator to add one'

  function backend(rpc: NonNullable<ConstructorParameters<typeof FakeSupabase>[0]>['rpc'] = {}) {
    const bare = { ...submission('p-bare', 'Bare Template'), template_url: null }
    return new FakeSupabase({
      tables: marketplace({
        admins: [{ id: 'a-1', user_id: ADMIN.id }],
        templates_pending_approval: [bare, submission('p-link', 'Linked Template')],
      }),
      signedInAs: ADMIN,
      rpc,
    })
  }

  it('disables Approve on the review page and says why', async () => {
    const { fake } = renderApp('/dashboard/admin/template/p-bare', backend())
    const approve = await screen.findByRole('button', { name: 'Approve Template' })
    expect(approve).toBeDisabled()
    expect(approve).toHaveAccessibleDescription(NO_DOWNLOAD)
    expect(screen.getByText(NO_DOWNLOAD)).toBeVisible()
    expect(fake.rpc).not.toHaveBeenCalled()
  })

  it("offers Approve disabled in the queue's status list, with the reason", async () => {
    renderApp('/dashboard/admin', backend())
    await waitFor(() => expect(screen.getAllByTestId('pending-row')).toHaveLength(2))
    const bare = screen.getByLabelText('Status of Bare Template')
    expect(within(bare).getByRole('option', { name: 'Approve (no file or link)' })).toBeDisabled()
    expect(bare).toHaveAccessibleDescription(NO_DOWNLOAD)
    const linked = screen.getByLabelText('Status of Linked Template')
    expect(within(linked).getByRole('option', { name: 'Approve' })).toBeEnabled()
  })

  it("shows the server's message when it refuses the approval", async () => {
    const user = userEvent.setup()
    renderApp(
      '/dashboard/admin/template/p-link',
      backend({ admin_approve_template: () => ({ error: { message: NO_DOWNLOAD, code: 'P0001' } }) }),
    )
    await user.click(await screen.findByRole('button', { name: 'Approve Template' }))
    expect(await screen.findByRole('alert')).toHaveTextContent(NO_DOWNLOAD)
    expect(screen.queryByText('Failed to update template status')).not.toBeInTheDocument()
    expect(screen.queryByText('Template approved and published successfully')).not.toBeInTheDocument()
  })
})
