// Deleting a pending template when the backend refuses (spec section 8,
// profile: 'Failed to delete template'): the template stays listed and no
// file is removed.
import { describe, expect, it } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { marketplace, MAYA } from '@/testing/fixtures'

const PENDING = [
  { id: 'p-1', creator_id: 'u-maya', title: 'Exam Countdown', description: 'Revision slots.', price: 0, preview_image_url: null, tags: [], status: 'Pending Approval', created_at: '2024-05-05T00:00:00Z' },
]

describe('PendingTemplates when the delete fails', () => {
  it("says 'Failed to delete template' and keeps the template", async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/profile/mayachen', {
      tables: marketplace({ templates_pending_approval: PENDING }),
      rpc: {
        get_follower_count: () => ({ data: 0 }),
        get_user_following: () => ({ data: [] }),
        is_following: () => ({ data: false }),
        delete_unpublished_template: () => ({ error: { message: 'permission denied for function delete_unpublished_template', code: '42501' } }),
      },
      signedInAs: MAYA,
    })
    await user.click(await screen.findByRole('tab', { name: 'Pending Review (1)' }))
    await user.click(await screen.findByRole('button', { name: 'Delete Exam Countdown' }))
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Failed to delete template')).toBeInTheDocument()
    expect(fake.rpc).toHaveBeenCalledWith('delete_unpublished_template', { kind: 'pending', template_id: 'p-1' })
    expect(screen.queryByText('Template deleted successfully')).not.toBeInTheDocument()
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument())
    expect(screen.getByRole('button', { name: 'Delete Exam Countdown' })).toBeInTheDocument()
    expect(screen.getByRole('tab', { name: 'Pending Review (1)' })).toBeInTheDocument()
    expect(fake.removals).toEqual([])
  })
})
