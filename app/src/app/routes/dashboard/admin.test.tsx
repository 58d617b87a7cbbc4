import { describe, expect, it } from 'vitest'
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { FakeSupabase, type Row } from '@/testing/fake-supabase'
import { marketplace, LEO, MAYA } from '@/testing/fixtures'
import { submittedWithin } from '@/features/admin/components/admin-panel'
import { safeReturnTo } from '@/features/admin/components/review-page'
import { privateFilePath } from '@/features/admin/api/template-file-link'

const ADMIN = { id: 'u-admin', email: 'admin@example.com', password: 'secret-pass', display_name: 'Ada Admin' }
const DAY = 24 * 60 * 60 * 1000

function pending(overrides: Row): Row {
  return {
    creator_id: 'u-maya',
    description: 'Revision slots and countdowns.',
    about_template: '## What you get\n\nA **focused** planner.',
    price: 0,
    price_in_cents: 0,
    category_id: 'c-prod',
    category: { name: 'Productivity', slug: 'productivity' },
    tags: ['exams', 'revision'],
    preview_image_url: null,
    preview_images: [],
    template_file_url: null,
    // Delivered as a link: approvable (issue 44, item 3).
    template_url: 'https://example.com/templates/exam',
    status: 'Pending Approval',
    rejection_comment: null,
    created_at: new Date().toISOString(),
    ...overrides,
  }
}

function queue(): Row[] {
  return [
    pending({ id: 'p-old', title: 'Meal Prep Planner', creator_id: 'u-leo', category: { name: 'Business', slug: 'business' }, created_at: new Date(Date.now() - 9 * DAY).toISOString() }),
    pending({ id: 'p-new', title: 'Exam Countdown', created_at: new Date(Date.now() - 2 * DAY).toISOString() }),
    pending({ id: 'p-done', title: 'Already Rejected', status: 'Rejected', rejection_comment: 'Blurry.' }),
  ]
}

/** An admin's backend whose decision functions do what the server's do. */
function adminBackend(extra: Partial<ConstructorParameters<typeof FakeSupabase>[0]> = {}) {
  const fake: FakeSupabase = new FakeSupabase({
    tables: marketplace({ admins: [{ id: 'a-1', user_id: ADMIN.id }], templates_pending_approval: queue() }),
    signedInAs: ADMIN,
    rpc: {
      admin_approve_template: ({ pending_template_id }) => {
        fake.tables.templates_pending_approval = fake.tables.templates_pending_approval.filter((r) => r.id !== pending_template_id)
        return { data: pending_template_id }
      },
      admin_reject_template: ({ pending_template_id }) => {
        fake.tables.templates_pending_approval = fake.tables.templates_pending_approval.filter((r) => r.id !== pending_template_id)
        return { data: pending_template_id }
      },
    },
    ...extra,
  })
  return fake
}

const rows = () => screen.getAllByTestId('pending-row')

describe('admin access', () => {
  it.each(['/dashboard/admin', '/dashboard/admin/template/p-new', '/dashboard/admin/upload'])('denies %s to a signed-in non-admin', async (path) => {
    renderApp(path, { tables: marketplace({ admins: [{ id: 'a-1', user_id: 'u-admin' }], templates_pending_approval: queue() }), signedInAs: MAYA })
    expect(await screen.findByText('Access Denied')).toBeInTheDocument()
    expect(screen.getByText("You don't have permission to access this page.")).toBeInTheDocument()
    expect(screen.queryByTestId('pending-row')).not.toBeInTheDocument()
  })

  it('shows the Admin section of the sidebar to admins only', async () => {
    const { unmount } = renderApp('/dashboard/wishlist', { tables: marketplace({ admins: [{ id: 'a-1', user_id: ADMIN.id }] }), signedInAs: ADMIN })
    const sidebar = await screen.findByRole('complementary', { name: 'Dashboard' })
    expect(await within(sidebar).findByRole('link', { name: 'Admin Panel' })).toHaveAttribute('href', '/dashboard/admin')
    expect(within(sidebar).getByRole('link', { name: 'Upload Template' })).toHaveAttribute('href', '/dashboard/admin/upload')
    unmount()
    renderApp('/dashboard/wishlist', { tables: marketplace({ admins: [{ id: 'a-1', user_id: ADMIN.id }] }), signedInAs: LEO })
    const other = await screen.findByRole('complementary', { name: 'Dashboard' })
    expect(within(other).getByRole('link', { name: 'Settings' })).toBeInTheDocument()
    await waitFor(() => expect(within(other).queryByRole('link', { name: 'Admin Panel' })).not.toBeInTheDocument())
  })
})

describe('admin panel', () => {
  it('lists pending submissions newest first with counters, creators, categories and review links', async () => {
    const { fake } = renderApp('/dashboard/admin', adminBackend())
    await screen.findByRole('heading', { name: 'Admin Panel' })
    await waitFor(() => expect(rows()).toHaveLength(2))
    expect(within(rows()[0]).getByText('Exam Countdown')).toBeInTheDocument()
    expect(within(rows()[1]).getByText('Meal Prep Planner')).toBeInTheDocument()
    expect(within(rows()[0]).getByRole('link', { name: 'Maya Chen' })).toHaveAttribute('href', '/profile/u-maya')
    expect(within(rows()[1]).getByRole('link', { name: 'Leo Martins' })).toHaveAttribute('href', '/profile/u-leo')
    expect(within(rows()[1]).getByText('Business')).toBeInTheDocument()
    expect(within(rows()[0]).getByRole('link', { name: 'Review Exam Countdown' })).toHaveAttribute(
      'href',
      '/dashboard/admin/template/p-new?returnTo=%2Fdashboard%2Fadmin',
    )
    expect(screen.getByTestId('counter-Pending Review')).toHaveTextContent('2')
    expect(screen.getByTestId('counter-Total Submissions')).toHaveTextContent('2')
    expect(screen.getByTestId('counter-This Week')).toHaveTextContent('1')
    const read = fake.callsTo('templates_pending_approval', 'select')[0]
    expect(read.filters).toContain('status=eq.Pending Approval')
  })

  it('says all caught up when nothing waits', async () => {
    renderApp('/dashboard/admin', adminBackend({ tables: marketplace({ admins: [{ id: 'a-1', user_id: ADMIN.id }], templates_pending_approval: [] }) }))
    expect(await screen.findByText('No templates pending review')).toBeInTheDocument()
    expect(screen.getByText('All caught up!')).toBeInTheDocument()
    expect(screen.getByTestId('counter-Pending Review')).toHaveTextContent('0')
  })

  it('tells the admin when the queue cannot be read', async () => {
    renderApp('/dashboard/admin', adminBackend({ failing: { templates_pending_approval: { message: 'boom' } } }))
    expect(await screen.findByText('Failed to load pending templates')).toBeInTheDocument()
  })

  it('updates live when a template is submitted, and when one leaves the queue', async () => {
    const { fake } = renderApp('/dashboard/admin', adminBackend())
    await waitFor(() => expect(rows()).toHaveLength(2))
    await waitFor(() => expect(fake.liveChannels).toHaveLength(1))
    expect(fake.liveChannels[0].bindings[0]).toMatchObject({ event: '*', schema: 'public', table: 'templates_pending_approval' })

    const submitted = pending({ id: 'p-live', title: 'Live Submission', creator_id: 'u-kim' })
    fake.tables.templates_pending_approval.push(submitted)
    act(() => {
      expect(fake.emitChange({ table: 'templates_pending_approval', eventType: 'INSERT', new: submitted })).toBe(1)
    })
    await waitFor(() => expect(rows()).toHaveLength(3))
    expect(within(rows()[0]).getByText('Live Submission')).toBeInTheDocument()
    expect(within(rows()[0]).getByRole('link', { name: 'Kim Novak' })).toBeInTheDocument()
    expect(screen.getByTestId('counter-This Week')).toHaveTextContent('2')

    fake.tables.templates_pending_approval = fake.tables.templates_pending_approval.filter((r) => r.id !== 'p-old')
    act(() => {
      fake.emitChange({ table: 'templates_pending_approval', eventType: 'DELETE', old: { id: 'p-old' } })
    })
    await waitFor(() => expect(rows()).toHaveLength(2))
    expect(screen.queryByText('Meal Prep Planner')).not.toBeInTheDocument()
  })

  it('stops following the queue when the admin leaves', async () => {
    const { fake, router } = renderApp('/dashboard/admin', adminBackend())
    await waitFor(() => expect(fake.liveChannels).toHaveLength(1))
    await act(() => router.navigate('/dashboard/wishlist'))
    await waitFor(() => expect(fake.liveChannels).toHaveLength(0))
  })

  it('approves from the status dropdown', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/admin', adminBackend())
    await waitFor(() => expect(rows()).toHaveLength(2))
    await user.selectOptions(screen.getByLabelText('Status of Exam Countdown'), 'Approve')
    expect(await screen.findByText('Template approved and published successfully')).toBeInTheDocument()
    expect(fake.rpc).toHaveBeenCalledWith('admin_approve_template', { pending_template_id: 'p-new' })
    await waitFor(() => expect(rows()).toHaveLength(1))
  })

  it('does nothing when Pending Approval is chosen', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/admin', adminBackend())
    await waitFor(() => expect(rows()).toHaveLength(2))
    await user.selectOptions(screen.getByLabelText('Status of Exam Countdown'), 'Approve')
    await screen.findByText('Template approved and published successfully')
    fake.rpc.mockClear()
    await user.selectOptions(screen.getByLabelText('Status of Meal Prep Planner'), 'Pending Approval')
    expect(fake.rpc).not.toHaveBeenCalled()
  })

  it('rejects from the status dropdown only with a reason', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/admin', adminBackend())
    await waitFor(() => expect(rows()).toHaveLength(2))
    await user.selectOptions(screen.getByLabelText('Status of Meal Prep Planner'), 'Reject')
    const dialog = await screen.findByRole('dialog', { name: 'Reject "Meal Prep Planner"' })
    expect(within(dialog).getByText('Give the reason for the rejection. It is shown to the creator.')).toBeInTheDocument()
    await user.type(within(dialog).getByLabelText('Rejection reason'), '   ')
    await user.click(within(dialog).getByRole('button', { name: 'Reject Template' }))
    expect(within(dialog).getByText('A rejection reason is required')).toBeInTheDocument()
    expect(fake.rpc).not.toHaveBeenCalledWith('admin_reject_template', expect.anything())

    await user.type(within(dialog).getByLabelText('Rejection reason'), ' The previews are blurry. ')
    await user.click(within(dialog).getByRole('button', { name: 'Reject Template' }))
    expect(await screen.findByText('Template rejected successfully')).toBeInTheDocument()
    expect(fake.rpc).toHaveBeenCalledWith('admin_reject_template', { pending_template_id: 'p-old', reason: 'The previews are blurry.' })
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    await waitFor(() => expect(rows()).toHaveLength(1))
  })

  it('reports a decision the server refused', async () => {
    const user = userEvent.setup()
    renderApp('/dashboard/admin', adminBackend({ rpc: { admin_approve_template: () => ({ error: { message: 'Only admins may approve templates', code: '42501' } }) } }))
    await waitFor(() => expect(rows()).toHaveLength(2))
    await user.selectOptions(screen.getByLabelText('Status of Exam Countdown'), 'Approve')
    expect(await screen.findByText('Failed to update template status')).toBeInTheDocument()
    expect(rows()).toHaveLength(2)
  })
})

describe('admin review page', () => {
  it('shows the submission with its details', async () => {
    const backend = adminBackend()
    backend.tables.templates_pending_approval[1].template_file_url = 'template-files/u-maya/files/1-abc.zip'
    backend.tables.templates_pending_approval[1].price = 12.5
    renderApp('/dashboard/admin/template/p-new?returnTo=%2Fdashboard%2Fadmin', backend)
    expect(await screen.findByRole('heading', { level: 1, name: 'Exam Countdown' })).toBeInTheDocument()
    expect(screen.getByText('Revision slots and countdowns.')).toBeInTheDocument()
    expect(screen.getByRole('heading', { name: 'What you get' })).toBeInTheDocument()
    expect(screen.getByText('focused').tagName).toBe('STRONG')
    expect(within(screen.getByRole('list', { name: 'Tags' })).getAllByRole('listitem')).toHaveLength(2)
    const details = screen.getByRole('region', { name: 'Details' })
    expect(within(details).getByText('$12.50')).toBeInTheDocument()
    expect(within(details).getByText('Productivity')).toBeInTheDocument()
    expect(within(details).getByRole('link', { name: 'Maya Chen' })).toHaveAttribute('href', '/profile/u-maya')
    const file = await screen.findByRole('link', { name: 'Download template file' })
    expect(file.getAttribute('href')).toBe('http://localhost:3000/storage/v1/object/sign/template-files/u-maya/files/1-abc.zip?token=signed-600')
    expect(screen.getByLabelText('Review status')).toHaveValue('Pending Approval')
    expect(screen.getByRole('link', { name: 'Back to Dashboard' })).toHaveAttribute('href', '/dashboard/admin')
  })

  it('approves and goes back to where the admin came from', async () => {
    const user = userEvent.setup()
    const { fake, router } = renderApp('/dashboard/admin/template/p-new?returnTo=%2Fdashboard%2Fadmin', adminBackend())
    await user.click(await screen.findByRole('button', { name: 'Approve Template' }))
    expect(await screen.findByText('Template approved and published successfully')).toBeInTheDocument()
    expect(fake.rpc).toHaveBeenCalledWith('admin_approve_template', { pending_template_id: 'p-new' })
    await waitFor(() => expect(here(router)).toBe('/dashboard/admin'))
    await waitFor(() => expect(rows()).toHaveLength(1))
  })

  it('choosing Approved in its dropdown does not approve; the button does', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/admin/template/p-new', adminBackend())
    await user.selectOptions(await screen.findByLabelText('Review status'), 'Approved')
    expect(fake.rpc).not.toHaveBeenCalled()
    await user.selectOptions(screen.getByLabelText('Review status'), 'Rejected')
    expect(await screen.findByRole('dialog', { name: 'Reject "Exam Countdown"' })).toBeInTheDocument()
  })

  it('rejects with a reason and returns to the admin panel', async () => {
    const user = userEvent.setup()
    const { fake, router } = renderApp('/dashboard/admin/template/p-new', adminBackend())
    await user.click(await screen.findByRole('button', { name: 'Reject Template' }))
    const dialog = await screen.findByRole('dialog')
    await user.type(within(dialog).getByLabelText('Rejection reason'), 'Add setup instructions.')
    await user.click(within(dialog).getByRole('button', { name: 'Reject Template' }))
    expect(await screen.findByText('Template rejected successfully')).toBeInTheDocument()
    expect(fake.rpc).toHaveBeenCalledWith('admin_reject_template', { pending_template_id: 'p-new', reason: 'Add setup instructions.' })
    await waitFor(() => expect(here(router)).toBe('/dashboard/admin'))
  })

  it('disables Reject once rejected', async () => {
    renderApp('/dashboard/admin/template/p-done', adminBackend())
    expect(await screen.findByRole('button', { name: 'Reject Template' })).toBeDisabled()
    expect(screen.getByRole('button', { name: 'Approve Template' })).toBeEnabled()
    expect(screen.getByText('Rejected', { selector: 'span' })).toBeInTheDocument()
    expect(screen.getByText('Rejection reason: Blurry.')).toBeInTheDocument()
  })

  it('disables Approve once approved', async () => {
    const backend = adminBackend()
    backend.tables.templates_pending_approval[1].status = 'Active'
    renderApp('/dashboard/admin/template/p-new', backend)
    expect(await screen.findByRole('button', { name: 'Approve Template' })).toBeDisabled()
    expect(screen.getByRole('button', { name: 'Reject Template' })).toBeEnabled()
  })

  it('says when there is no such submission', async () => {
    renderApp('/dashboard/admin/template/p-missing?returnTo=%2F%2Fevil.example', adminBackend())
    expect(await screen.findByText('Template not found')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Back to Dashboard' })).toHaveAttribute('href', '/dashboard/admin')
  })
})

describe('admin helpers', () => {
  it('counts the submissions of the last 7 days', () => {
    const now = Date.parse('2026-11-22T12:00:00Z')
    const at = (days: number) => ({ created_at: new Date(now - days * DAY).toISOString() })
    expect(submittedWithin([at(0), at(6.9), at(7.1), at(30)], 7, now)).toBe(2)
  })

  it('keeps Back to Dashboard on this site', () => {
    expect(safeReturnTo('/dashboard/admin?x=1')).toBe('/dashboard/admin?x=1')
    expect(safeReturnTo('//evil.example/x')).toBe('/dashboard/admin')
    expect(safeReturnTo('https://evil.example')).toBe('/dashboard/admin')
    expect(safeReturnTo('/\\evil.example')).toBe('/dashboard/admin')
    expect(safeReturnTo(null)).toBe('/dashboard/admin')
  })

  it('finds the private bucket path of a template file', () => {
    expect(privateFilePath('template-files/u1/files/a.zip')).toBe('u1/files/a.zip')
    expect(privateFilePath('http://h/storage/v1/object/authenticated/template-files/u1/files/a%20b.zip?x=1')).toBe('u1/files/a b.zip')
    expect(privateFilePath('http://h/storage/v1/object/public/templates/u1/files/a.zip')).toBeNull()
  })
})
